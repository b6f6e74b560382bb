// A queue in an app's wrangler config: a producer (`queues.producers[]`, by binding), a consumer
// (`queues.consumers[]`, by the queue's name) and a consumer's dead-letter queue. All of them name the
// queue by its name, so each is pointed at the slot's queue by name, and the references that name one
// queue go to one template together.
import * as z from '../../zod.ts';
import {
  bindingSchema,
  type KindWrangler,
  sectionEntries,
  type WranglerReference,
} from '../wrangler-binding.ts';
import type { SlotQueue } from './config.ts';

const queueName = z.string().min(1).max(256);
const producer = bindingSchema({ queue: queueName });
const consumer = z.looseObject({ queue: queueName, dead_letter_queue: queueName.optional() });

export const queuesWrangler: KindWrangler<SlotQueue> = {
  read(top) {
    const producers = sectionEntries(top, ['queues', 'producers'], producer);
    const consumers = sectionEntries(top, ['queues', 'consumers'], consumer);
    const references: WranglerReference[] = [
      ...producers.entries.map(({ index, entry }) => ({
        path: ['queues', 'producers', index],
        role: 'producer',
        names: [entry.binding, entry.queue],
        target: entry.queue,
        label: `queues.producers[${index}] (binding ${entry.binding}, queue ${entry.queue})`,
      })),
      ...consumers.entries.flatMap(({ index, entry }) => [
        {
          path: ['queues', 'consumers', index],
          role: 'consumer',
          names: [entry.queue],
          target: entry.queue,
          label: `queues.consumers[${index}] (queue ${entry.queue})`,
        },
        ...(entry.dead_letter_queue === undefined
          ? []
          : [
              {
                path: ['queues', 'consumers', index],
                role: 'dead-letter',
                names: [entry.dead_letter_queue],
                target: entry.dead_letter_queue,
                label: `queues.consumers[${index}].dead_letter_queue (queue ${entry.dead_letter_queue})`,
              },
            ]),
      ]),
    ];
    return { references, problems: [...producers.problems, ...consumers.problems] };
  },
  point: (reference, queue) =>
    reference.role === 'dead-letter' ? { dead_letter_queue: queue.name } : { queue: queue.name },
};

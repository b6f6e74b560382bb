// The Queues kind of the twin: queues, their messages and purges.
import { defineTwinKind } from '../twin-kind.ts';
import { queuesRoutes } from './routes.ts';
import { queueSeedFor, queueSeedSchema, seedQueue } from './seed.ts';
import { QueueStore } from './store.ts';

export const queuesKind = defineTwinKind({
  key: 'queues',
  seedSchema: queueSeedSchema,
  createStore: ({ now }) => new QueueStore(now),
  seed: seedQueue,
  routes: queuesRoutes,
  state: (queues) => ({
    queues: queues
      .all()
      .map((queue) => ({ id: queue.id, name: queue.name, messages: queue.messages.length })),
  }),
  seedFor: queueSeedFor,
});

// A queue in a seed: its name and how many messages wait in it; and the seed that makes a slot's queue
// exist with a backlog, as a preview's producers would leave it.
import { z } from 'zod';
import { QUEUE_NAME, type QueueStore } from './store.ts';

export const queueSeedSchema = z.strictObject({
  name: z.string().regex(QUEUE_NAME, 'a queue name: 1-63 letters, digits, - and _'),
  /** That many JSON messages, `{ "n": <n> }`, sent at seed time. */
  messages: z.number().int().nonnegative().max(100_000).optional(),
});
export type QueueSeed = z.infer<typeof queueSeedSchema>;

/** A queue of the same name is reused; the messages are added to it. */
export function seedQueue(queues: QueueStore, entry: QueueSeed): void {
  const queue = queues.findByName(entry.name) ?? queues.create(entry.name);
  const messages = Array.from({ length: entry.messages ?? 0 }, (_, n) => ({
    body: { n },
    contentType: 'json' as const,
  }));
  queues.send(queue, messages);
}

const MESSAGES = 5;

/** A slot's queue as preview-gc's slot config expands it (the fields the seed reads). */
export interface QueueSlotResource {
  name: string;
}

export function queueSeedFor(resource: QueueSlotResource): QueueSeed[] {
  return [{ name: resource.name, messages: MESSAGES }];
}

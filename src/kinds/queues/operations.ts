// What the Queues kind does at Cloudflare: find the queue by name in the run's one listing, purge it.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { defineOperations } from '../kind.ts';
import { createQueue, listQueues } from './api.ts';
import type { QueueTemplate } from './config.ts';
import { eraseQueue } from './erase.ts';
import { queueInventory } from './inventory.ts';

const queueList = (resolver: NameResolver) => resolver.listing('queues', listQueues);

export const queuesOperations = defineOperations<QueueTemplate>()({
  probe: queueList,
  /** The queue's id. */
  find: async (resolver, queue) =>
    (await queueList(resolver)).find((candidate) => candidate.queue_name === queue.name)?.queue_id,
  idOf: (_queue, queueId) => queueId,
  bindsIt: (binding, queue) => binding.type === 'queue' && binding.queue_name === queue.name,
  create: (context, queue) => createQueue(context.api, queue.name),
  erase: (context, _queue, queueId) => eraseQueue(context, queueId),
  inventory: (context, _queue, queueId) => queueInventory(context, queueId),
});

// Queues: the erase purges every message of the slot's queue and waits for the purge to finish.
import { eraseQueue } from '../cloudflare/erase-queues.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import { NAME_CHARSET, nameTemplate } from '../config/name-template.ts';
import * as z from '../zod.ts';
import { defineKind, type Origin } from './kind.ts';

export interface QueueTemplate {
  name: string;
}
export type SlotQueue = QueueTemplate & Origin;

const queueList = (resolver: NameResolver) => resolver.listing('queues', (account) => account.listQueues());

export const queues = defineKind({
  key: 'queues',
  step: 'queues',
  nameKey: 'name',
  noun: 'Queue',
  entry: z.strictObject({ name: nameTemplate('name: app-{slot}-jobs', NAME_CHARSET) }),
  examples: {
    '': 'queues: [{ name: "app-{slot}-jobs" }]',
    '[]': '- name: app-{slot}-jobs',
    '[].name': 'name: app-{slot}-jobs',
  },
  template: (entry): QueueTemplate => entry,
  permission: {
    resources: 'queues',
    dashboard: 'Queues: Edit',
    apiName: 'Queues Write',
    use: "lists queues; purges every message of a slot's queue and reads the purge's status",
  },
  probe: queueList,
  /** The queue's id. */
  find: async (resolver, queue) =>
    (await queueList(resolver)).find((candidate) => candidate.queue_name === queue.name)?.queue_id,
  erase: (context, _queue, queueId) => eraseQueue(context, queueId),
});

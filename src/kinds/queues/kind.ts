// Queues: the erase purges every message of the slot's queue and waits for the purge to finish.
import { defineKind } from '../kind.ts';
import { type QueueTemplate, queueEntry } from './config.ts';
import { queuesWrangler } from './wrangler.ts';

export const queues = defineKind({
  key: 'queues',
  step: 'queues',
  nameKey: 'name',
  noun: 'Queue',
  entry: queueEntry,
  examples: {
    '': 'queues: [{ name: "app-{slot}-jobs" }]',
    '[]': '- name: app-{slot}-jobs',
    '[].name': 'name: app-{slot}-jobs',
  },
  template: (entry): QueueTemplate => entry,
  provisionUse: "creates a slot's missing queue",
  permission: {
    resources: 'queues',
    dashboard: 'Queues: Edit',
    apiName: 'Queues Write',
    use: "lists queues; purges every message of a slot's queue and reads the purge's status",
  },
  wrangler: queuesWrangler,
});

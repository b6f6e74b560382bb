// Workers: the slot's compute. The erase parks the Worker (uploads the parked code over it) and
// tombstones its Durable Object classes, so no request reaches the last pull request's code or state.
import type { WorkerScriptSummary } from '../cloudflare/account.ts';
import { eraseCompute } from '../cloudflare/erase-compute.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import { NAME_CHARSET, nameTemplate } from '../config/name-template.ts';
import * as z from '../zod.ts';
import { defineKind, type Origin } from './kind.ts';

export interface WorkerTemplate {
  name: string;
  durableObjects: 'park' | 'keep';
}
export type SlotWorker = WorkerTemplate & Origin;

const scripts = (resolver: NameResolver) =>
  resolver.listing('workers', (account) => account.listWorkerScripts());

export const workers = defineKind({
  key: 'workers',
  step: 'compute',
  nameKey: 'name',
  noun: 'Worker',
  entry: z.strictObject({
    name: nameTemplate('name: app-{slot}', NAME_CHARSET),
    'durable-objects': z.enum(['park', 'keep']).default('park'),
  }),
  examples: {
    '': 'workers: [{ name: "app-{slot}", durable-objects: park }]',
    '[]': '- name: app-{slot}',
    '[].name': 'name: app-{slot}',
    '[].durable-objects': 'durable-objects: park',
  },
  template: (entry): WorkerTemplate => ({ name: entry.name, durableObjects: entry['durable-objects'] }),
  permission: {
    resources: 'Workers',
    dashboard: 'Workers Scripts: Edit',
    apiName: 'Workers Scripts Write',
    use: "lists Workers and their Durable Object namespaces; uploads the parked Worker over a slot's Worker",
  },
  probe: scripts,
  find: async (resolver, worker): Promise<WorkerScriptSummary | undefined> =>
    (await scripts(resolver)).find((script) => script.name === worker.name),
  erase: eraseCompute,
});

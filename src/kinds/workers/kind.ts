// Workers: the slot's compute. The erase parks the Worker (uploads the parked code over it) and
// tombstones its Durable Object classes, so no request reaches the last pull request's code or state.
import { defineKind } from '../kind.ts';
import { type WorkerTemplate, workerEntry } from './config.ts';
import { workersWrangler } from './wrangler.ts';

export const workers = defineKind({
  key: 'workers',
  step: 'compute',
  nameKey: 'name',
  noun: 'Worker',
  entry: workerEntry,
  examples: {
    '': 'workers: [{ name: "app-{slot}", durable-objects: park }]',
    '[]': '- name: app-{slot}',
    '[].name': 'name: app-{slot}',
    '[].durable-objects': 'durable-objects: park',
  },
  template: (entry): WorkerTemplate => ({
    name: entry.name,
    durableObjects: entry['durable-objects'],
    binding: entry.binding,
  }),
  provisionUse: "uploads a minimal shell for a slot's missing Worker",
  permission: {
    resources: 'Workers',
    dashboard: 'Workers Scripts: Edit',
    apiName: 'Workers Scripts Write',
    use: "lists Workers and their Durable Object namespaces; uploads the parked Worker over a slot's Worker",
  },
  conditionalPermissions: [
    {
      kind: 'containers',
      resources: 'container applications',
      dashboard: 'Workers Containers: Read',
      apiName: 'Workers Containers Read',
      use: 'lists container applications, so a class that backs a container is kept, not tombstoned',
      onlyWhen: "a slot's Worker has Durable Object classes",
    },
  ],
  wrangler: workersWrangler,
});

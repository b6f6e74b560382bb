// Workers: the slot's compute. The erase parks the Worker (uploads the parked code over it),
// tombstones its Durable Object classes, turns its preview URLs off and deletes its old versions and
// Worker Previews, so no request reaches the last pull request's code or state.
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
    '[].crons': 'crons: drop',
  },
  template: (entry): WorkerTemplate => ({
    name: entry.name,
    durableObjects: entry['durable-objects'],
    crons: entry.crons,
    binding: entry.binding,
  }),
  provisionUse: "uploads a minimal shell for a slot's missing Worker",
  permission: {
    resources: 'Workers',
    dashboard: 'Workers Scripts: Edit',
    apiName: 'Workers Scripts Write',
    use: "lists Workers and their Durable Object namespaces; uploads the parked Worker over a slot's Worker; turns its preview URLs off; reads its deployments and versions and deletes the old ones that have a preview URL; lists and deletes its Worker Previews",
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
    {
      kind: 'containers-retire',
      resources: 'container applications',
      dashboard: 'Workers Containers: Edit',
      apiName: 'Workers Containers Write',
      use: 'deletes the container application of a class the incoming branch no longer declares, so the class can be tombstoned',
      onlyWhen:
        "an acquire erases a slot for a branch whose wrangler config drops a container class the slot's Worker has",
    },
  ],
  wrangler: workersWrangler,
});

// What the Workers kind does at Cloudflare: find the script in the run's one listing, park it.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { defineOperations } from '../kind.ts';
import { createWorkerShell, listWorkerScripts } from './api.ts';
import type { WorkerTemplate } from './config.ts';
import { eraseCompute } from './erase.ts';

const scripts = (resolver: NameResolver) => resolver.listing('workers', listWorkerScripts);

export const workersOperations = defineOperations<WorkerTemplate>()({
  probe: scripts,
  find: async (resolver, worker) => (await scripts(resolver)).find((script) => script.name === worker.name),
  create: (context, worker) => createWorkerShell(context.api, worker.name),
  erase: eraseCompute,
});

// What the Workers kind does at Cloudflare: find the script in the run's one listing, park it, and
// read back what is left.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { defineOperations } from '../kind.ts';
import { createWorkerShell, listWorkerScripts } from './api.ts';
import type { WorkerTemplate } from './config.ts';
import { eraseCompute } from './erase.ts';
import { computeInventory } from './inventory.ts';
import { describeOldCode } from './old-code.ts';

const scripts = (resolver: NameResolver) => resolver.listing('workers', listWorkerScripts);

export const workersOperations = defineOperations<WorkerTemplate>()({
  probe: scripts,
  find: async (resolver, worker) => (await scripts(resolver)).find((script) => script.name === worker.name),
  create: (context, worker) => createWorkerShell(context.api, worker.name),
  erase: eraseCompute,
  inventory: computeInventory,
  doneBefore: (details) => {
    const parts = [
      ...details.retired.map((retired) => `deleted container application ${retired.application}`),
      ...(details.uploaded ? ['parked the Worker'] : []),
      ...(details.oldCode === undefined ? [] : [describeOldCode(details.oldCode, false)]),
    ].filter((part) => part !== undefined);
    return parts.length > 0 ? parts.join('; ') : undefined;
  },
});

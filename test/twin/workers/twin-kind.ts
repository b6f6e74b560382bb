// The Workers kind of the twin: scripts and their Durable Object classes, the DO namespaces (previews'
// included) and container applications, with everything `wrangler deploy` calls.
import { defineTwinKind } from '../twin-kind.ts';
import { deployRoutes } from './deploy-routes.ts';
import { containerRoutes, durableObjectRoutes } from './durable-object-routes.ts';
import { workersRoutes } from './routes.ts';
import { seedWorker, workerSeedFor, workerSeedSchema } from './seed.ts';
import { type NamespaceRow, WorkersStore } from './store.ts';

export interface WorkersState {
  workers: {
    name: string;
    migrationTag: string | null;
    exportsMode: boolean;
    liveClasses: string[];
    tombstonedClasses: string[];
    /** Live classes the last upload attached a container to. */
    containerClasses: string[];
    tags: string[];
    bindings: Record<string, unknown>[];
    mainModule: string;
    modules: { name: string; contentType: string; size: number }[];
  }[];
  durableObjectNamespaces: (NamespaceRow & { objects: number })[];
  containers: { id: string; name: string; namespaceId: string | null }[];
}

function stateOf(workers: WorkersStore): WorkersState {
  return {
    workers: [...workers.scripts.values()].map((s) => {
      const classes = [...s.classes.values()];
      return {
        name: s.name,
        migrationTag: s.migrationTag ?? null,
        exportsMode: s.exportsMode,
        liveClasses: classes.filter((c) => c.state === 'live').map((c) => c.name),
        tombstonedClasses: classes.filter((c) => c.state === 'deleted').map((c) => c.name),
        containerClasses: classes.filter((c) => c.container !== undefined).map((c) => c.name),
        tags: s.tags,
        bindings: s.bindings,
        mainModule: s.mainModule,
        modules: s.modules.map((m) => ({ name: m.name, contentType: m.contentType, size: m.text.length })),
      };
    }),
    durableObjectNamespaces: workers.namespaces().map((ns) => ({
      ...ns,
      objects: workers.findNamespace(ns.id)?.objectIds.length ?? 0,
    })),
    containers: [...workers.containers.values()].map((app) => ({
      id: app.id,
      name: app.name,
      namespaceId: app.namespaceId ?? null,
    })),
  };
}

export const workersKind = defineTwinKind({
  key: 'workers',
  seedSchema: workerSeedSchema,
  createStore: () => new WorkersStore(),
  seed: seedWorker,
  routes: (workers, account) => [
    ...workersRoutes(workers, account),
    ...deployRoutes(workers, account),
    ...durableObjectRoutes(workers, account),
    ...containerRoutes(workers, account),
  ],
  state: stateOf,
  seedFor: workerSeedFor,
});

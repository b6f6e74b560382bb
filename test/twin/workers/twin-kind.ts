// The Workers kind of the twin: scripts and their Durable Object classes, their versions,
// deployments, workers.dev switches and Worker Previews, the DO namespaces (previews' included) and
// container applications, with everything `wrangler deploy`, `versions` and `preview` call.
import type { AccountCore } from '../account-core.ts';
import { defineTwinKind } from '../twin-kind.ts';
import { deployRoutes } from './deploy-routes.ts';
import { containerRoutes, durableObjectRoutes } from './durable-object-routes.ts';
import { previewRoutes } from './preview-routes.ts';
import { type ReachableUrl, reachableUrls } from './reachability.ts';
import { workersRoutes } from './routes.ts';
import { scheduleRoutes } from './schedule-routes.ts';
import { seedWorker, workerSeedFor, workerSeedSchema } from './seed.ts';
import { activeDeployment, type NamespaceRow, WorkersStore } from './store.ts';
import { subdomainRoutes } from './subdomain-routes.ts';
import { versionRoutes } from './version-routes.ts';

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
    /** Every version, oldest first, with its alias and whether it has a preview URL. */
    versions: { id: string; number: number; alias: string | null; hasPreview: boolean }[];
    /** The versions the active deployment serves, with their share. */
    deployed: { version_id: string; percentage: number }[];
    /** How many deployments the Worker keeps (the active one included). */
    deployments: number;
    subdomain: { enabled: boolean; previews_enabled: boolean };
    /** Worker Previews by slug. */
    previews: string[];
    /** Its cron triggers. */
    crons: string[];
    /** Every workers.dev URL that answers, and what answers it (the twin's routing model). */
    reachable: ReachableUrl[];
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
        versions: s.versions.map((v) => ({
          id: v.id,
          number: v.number,
          alias: v.annotations['workers/alias'] ?? null,
          hasPreview: v.hasPreview,
        })),
        deployed: activeDeployment(s)?.versions ?? [],
        deployments: s.deployments.length,
        subdomain: { ...s.subdomain },
        previews: s.previews.map((p) => p.slug),
        crons: s.schedules.map((schedule) => schedule.cron),
        reachable: reachableUrls(workers, s),
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
  routes: (workers, account) => {
    account.scriptsBinding = (binding) => workers.scriptsBinding(binding);
    return routes(workers, account);
  },
  state: stateOf,
  seedFor: workerSeedFor,
});

function routes(workers: WorkersStore, account: AccountCore) {
  return [
    ...workersRoutes(workers, account),
    ...deployRoutes(workers, account),
    ...versionRoutes(workers, account),
    ...subdomainRoutes(workers, account),
    ...scheduleRoutes(workers, account),
    ...previewRoutes(workers, account),
    ...durableObjectRoutes(workers, account),
    ...containerRoutes(workers, account),
  ];
}

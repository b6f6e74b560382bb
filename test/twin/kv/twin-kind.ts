// The Workers KV kind of the twin: namespaces, keys listed by cursor, values, bulk writes and deletes.
import { defineTwinKind, type StoreContext } from '../twin-kind.ts';
import { kvRoutes } from './routes.ts';
import { kvSeedFor, kvSeedSchema, seedKv } from './seed.ts';
import { KvStore } from './store.ts';

export interface KvOptions {
  /** How long deleted keys keep appearing in listings (KV's eventual consistency); default 0. */
  kvListingLagMs?: number;
}

export const kvKind = defineTwinKind({
  key: 'kv',
  seedSchema: kvSeedSchema,
  createStore: ({ options }: StoreContext<KvOptions>) => new KvStore(options.kvListingLagMs ?? 0),
  seed: seedKv,
  routes: kvRoutes,
  state: (namespaces) => ({
    kv: [...namespaces.values()].map((ns) => ({
      id: ns.id,
      title: ns.title,
      keyCount: ns.size,
      sampleKeys: ns.names().slice(0, 20),
    })),
  }),
  seedFor: kvSeedFor,
});

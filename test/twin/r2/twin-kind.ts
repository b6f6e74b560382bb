// The R2 kind of the twin: buckets per jurisdiction, their lifecycle rules and their objects.
import { defineTwinKind } from '../twin-kind.ts';
import { r2Routes } from './routes.ts';
import { r2SeedFor, r2SeedSchema, seedR2 } from './seed.ts';
import { R2Store } from './store.ts';

export const r2Kind = defineTwinKind({
  key: 'r2',
  seedSchema: r2SeedSchema,
  createStore: ({ now }) => new R2Store(now),
  seed: seedR2,
  routes: r2Routes,
  state: (buckets) => ({
    r2: [...buckets.values()].map((b) => ({
      name: b.name,
      jurisdiction: b.jurisdiction,
      rules: b.rules,
      ...(b.dataCatalog ? { dataCatalog: true as const } : {}),
      objectCount: b.objects.size,
    })),
  }),
  seedFor: r2SeedFor,
});

// The D1 kind of the twin: databases in real SQLite, listed, created, deleted and queried.
import { defineTwinKind } from '../twin-kind.ts';
import { d1Routes } from './routes.ts';
import { d1SeedFor, d1SeedSchema, seedD1 } from './seed.ts';
import { D1Store } from './store.ts';

export const d1Kind = defineTwinKind({
  key: 'd1',
  seedSchema: d1SeedSchema,
  createStore: () => new D1Store(),
  seed: seedD1,
  routes: d1Routes,
  state: (databases) => ({
    d1: [...databases.values()].map((db) => ({
      uuid: db.uuid,
      name: db.name,
      jurisdiction: db.jurisdiction,
      readReplication: db.readReplication,
      objects: db.describe(),
    })),
  }),
  seedFor: d1SeedFor,
});

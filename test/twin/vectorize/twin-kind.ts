// The Vectorize kind of the twin: v2 indexes and their vectors, written by asynchronous mutations.
import { defineTwinKind } from '../twin-kind.ts';
import { vectorizeRoutes } from './routes.ts';
import { seedVectorIndex, vectorIndexSeedFor, vectorIndexSeedSchema } from './seed.ts';
import { VectorizeStore } from './store.ts';

export const vectorizeKind = defineTwinKind({
  key: 'vectorize',
  seedSchema: vectorIndexSeedSchema,
  createStore: ({ now }) => new VectorizeStore(now),
  seed: seedVectorIndex,
  routes: vectorizeRoutes,
  state: (indexes) => ({
    vectorize: indexes.all().map((index) => ({
      name: index.name,
      dimensions: index.dimensions,
      metric: index.metric,
      vectors: index.vectors.size,
      pendingMutations: index.pending.length,
    })),
  }),
  seedFor: vectorIndexSeedFor,
});

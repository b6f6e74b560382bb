// What the Vectorize kind does at Cloudflare: find the index by name in the run's one listing, delete its vectors.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { plural } from '../../text/words.ts';
import { defineOperations } from '../kind.ts';
import { StepError } from '../step.ts';
import { createVectorizeIndex, listVectorizeIndexes } from './api.ts';
import type { VectorizeTemplate } from './config.ts';
import { eraseVectorize } from './erase.ts';
import { vectorizeInventory } from './inventory.ts';

/** Index names (indexes are addressed by name). */
const indexNames = (resolver: NameResolver) => resolver.listing('vectorize', listVectorizeIndexes);

export const vectorizeOperations = defineOperations<VectorizeTemplate>()({
  probe: indexNames,
  find: async (resolver, index) => ((await indexNames(resolver)).includes(index.name) ? true : undefined),
  /** An index is addressed by its name, which is its id. */
  idOf: (index) => index.name,
  bindsIt: (binding, index) => binding.type === 'vectorize' && binding.index_name === index.name,
  create: (context, index) => {
    const { dimensions, metric } = index;
    if (dimensions === undefined || metric === undefined)
      throw new StepError(
        'refused',
        `cannot create Vectorize index '${index.name}' without its dimensions and metric; give them at ${index.path.replace(/\.name$/, '')} (e.g. dimensions: 768, metric: cosine)`,
      );
    return createVectorizeIndex(context.api, index.name, { dimensions, metric });
  },
  erase: (context, index) => eraseVectorize(context, index),
  inventory: (context, index) => vectorizeInventory(context, index.name),
  doneBefore: (details) =>
    details.vectorsDeleted > 0 ? `deleted ${plural(details.vectorsDeleted, 'vector')}` : undefined,
});

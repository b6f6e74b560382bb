// A Vectorize index in a seed: its dimensions, metric and how many vectors it holds; and the seed that
// makes a slot's index exist with vectors in it, as a preview's embeddings would fill it.
import { z } from 'zod';
import { INDEX_NAME, MAX_DIMENSIONS, VECTORIZE_METRICS, type VectorizeStore } from './store.ts';

export const vectorIndexSeedSchema = z.strictObject({
  name: z.string().regex(INDEX_NAME, 'an index name: a-z, 0-9, - and _'),
  dimensions: z.number().int().min(1).max(MAX_DIMENSIONS),
  /** Default `cosine`. */
  metric: z.enum(VECTORIZE_METRICS).optional(),
  /** That many vectors, ids `v<n>` (n zero-padded), upserted at seed time. */
  vectors: z.number().int().nonnegative().max(100_000).optional(),
});
export type VectorIndexSeed = z.infer<typeof vectorIndexSeedSchema>;

/** An index of the same name is reused (its dimensions kept); the vectors are upserted into it. */
export function seedVectorIndex(indexes: VectorizeStore, entry: VectorIndexSeed): void {
  const index =
    indexes.get(entry.name) ??
    indexes.create(entry.name, { dimensions: entry.dimensions, metric: entry.metric ?? 'cosine' });
  const count = entry.vectors ?? 0;
  const width = String(count).length;
  const vectors = Array.from({ length: count }, (_, n) => ({
    id: `v${String(n).padStart(width, '0')}`,
    values: Array.from({ length: index.dimensions }, (_, i) => ((n + i) % 10) / 10),
  }));
  indexes.write(index, vectors, 'upsert');
}

const DIMENSIONS = 32;
const VECTORS = 20;

/** A slot's Vectorize index as preview-gc's slot config expands it (the fields the seed reads). */
export interface VectorIndexSlotResource {
  name: string;
}

export function vectorIndexSeedFor(resource: VectorIndexSlotResource): VectorIndexSeed[] {
  return [{ name: resource.name, dimensions: DIMENSIONS, vectors: VECTORS }];
}

// What the slot config says of a Vectorize index: its name template.
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { NAME_CHARSET, nameTemplate } from '../name-template.ts';
import { bindingKey } from '../wrangler-binding.ts';

export type VectorizeMetric = 'cosine' | 'euclidean' | 'dot-product';

export interface VectorizeTemplate {
  /** The index's dimensions and metric: only `slots provision` reads them, to create it. */
  dimensions?: number | undefined;
  metric?: VectorizeMetric | undefined;
  /** What the app's wrangler config calls it (docs/config.md#the-slots-wrangler-config). */
  binding?: string | undefined;
  name: string;
}
export type SlotVectorIndex = VectorizeTemplate & Origin;

export const vectorizeEntry = z.strictObject({
  name: nameTemplate('name: app-{slot}-embeddings', NAME_CHARSET),
  dimensions: z.int().min(1).max(1536).optional(),
  metric: z.enum(['cosine', 'euclidean', 'dot-product']).optional(),
  binding: bindingKey,
});

// A Vectorize index in an app's wrangler config: an entry of `vectorize`, pointed at the slot's index
// by its name (wrangler binds Vectorize by `index_name`).
import * as z from '../../zod.ts';
import { bindingList, bindingSchema, type KindWrangler } from '../wrangler-binding.ts';
import type { SlotVectorIndex } from './config.ts';

const entry = bindingSchema({ index_name: z.string().optional() });

export const vectorizeWrangler: KindWrangler<SlotVectorIndex> = {
  read: (top) => bindingList(top, 'vectorize', entry, (binding) => binding.index_name),
  point: (_reference, index) => ({ index_name: index.name }),
};

// A KV namespace in an app's wrangler config: an entry of `kv_namespaces`, pointed at the slot's
// namespace by its id (wrangler binds KV by `id` alone).
import * as z from '../../zod.ts';
import { bindingList, bindingSchema, type KindWrangler } from '../wrangler-binding.ts';
import type { SlotKv } from './config.ts';

const entry = bindingSchema({ id: z.string().optional() });

export const kvWrangler: KindWrangler<SlotKv> = {
  read: (top) => bindingList(top, 'kv_namespaces', entry, (binding) => binding.id),
  point: (_reference, _namespace, id) => ({ id }),
};

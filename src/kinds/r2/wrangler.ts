// An R2 bucket in an app's wrangler config: an entry of `r2_buckets`, pointed at the slot's bucket by
// its name and jurisdiction (wrangler binds R2 by `bucket_name`; a bucket outside the default
// jurisdiction needs `jurisdiction` too).
import * as z from '../../zod.ts';
import { bindingList, bindingSchema, type KindWrangler } from '../wrangler-binding.ts';
import type { SlotR2 } from './config.ts';

const entry = bindingSchema({ bucket_name: z.string().optional(), jurisdiction: z.string().optional() });

export const r2Wrangler: KindWrangler<SlotR2> = {
  read: (top) => bindingList(top, 'r2_buckets', entry, (binding) => binding.bucket_name),
  point: (_reference, bucket) => ({
    bucket_name: bucket.bucket,
    jurisdiction: bucket.jurisdiction === 'default' ? undefined : bucket.jurisdiction,
  }),
};

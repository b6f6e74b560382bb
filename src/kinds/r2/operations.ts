// What the R2 kind does at Cloudflare: find the bucket in its jurisdiction's listing, put its rule in place.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { defineOperations } from '../kind.ts';
import { createR2Bucket, listR2Buckets } from './api.ts';
import type { R2Jurisdiction, R2Template } from './config.ts';
import { eraseR2 } from './erase.ts';
import { r2Inventory } from './inventory.ts';

/** Buckets are listed per jurisdiction (and addressed by name): one listing per jurisdiction and run. */
const bucketNames = (resolver: NameResolver, jurisdiction: R2Jurisdiction) =>
  resolver.listing(`r2:${jurisdiction}`, (api) => listR2Buckets(api, jurisdiction));

export const r2Operations = defineOperations<R2Template>()({
  probe: (resolver, buckets) => {
    const jurisdictions = new Set(buckets.map((bucket) => bucket.jurisdiction));
    return Promise.all([...jurisdictions].map((jurisdiction) => bucketNames(resolver, jurisdiction)));
  },
  find: async (resolver, bucket) =>
    (await bucketNames(resolver, bucket.jurisdiction)).includes(bucket.bucket) ? true : undefined,
  // By name, whatever the binding's jurisdiction: a bucket of the same name elsewhere is guarded too.
  bindsIt: (binding, bucket) => binding.type === 'r2_bucket' && binding.bucket_name === bucket.bucket,
  /** The bucket, then its managed lifecycle rule, as the erase puts it in place. */
  create: async (context, bucket) => {
    await createR2Bucket(context.api, bucket.bucket, bucket.jurisdiction);
    await eraseR2(context, bucket);
  },
  erase: (context, bucket) => eraseR2(context, bucket),
  inventory: (context, bucket) => r2Inventory(context, bucket),
});

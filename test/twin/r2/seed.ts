// An R2 bucket in a seed: its jurisdiction, its lifecycle rules and whether R2 Data Catalog is on; and
// the seed that makes a slot's bucket exist, with the default rule a new bucket carries.
import { z } from 'zod';
import { type Jurisdiction, jurisdictionSchema, lifecycleRuleSchema, type R2Store } from './store.ts';

export const r2SeedSchema = z.strictObject({
  bucket: z.string().min(3),
  jurisdiction: jurisdictionSchema.optional(),
  /** Omitted: the default multipart-abort rule every new bucket carries. */
  rules: z.array(lifecycleRuleSchema).max(1000).optional(),
  /** R2 Data Catalog is enabled: a lifecycle PUT with `cf-r2-data-catalog-check: true` is refused. */
  dataCatalog: z.boolean().optional(),
});
export type R2Seed = z.infer<typeof r2SeedSchema>;

/** A bucket of the same name and jurisdiction is replaced. */
export function seedR2(buckets: R2Store, entry: R2Seed): void {
  buckets.create(entry.bucket, entry.jurisdiction ?? 'default', entry.rules, entry.dataCatalog ?? false);
}

/** A slot's R2 bucket as preview-gc's slot config expands it (the fields the seed reads). */
export interface R2SlotResource {
  bucket: string;
  jurisdiction: Jurisdiction;
}

export function r2SeedFor(resource: R2SlotResource): R2Seed[] {
  return [{ bucket: resource.bucket, jurisdiction: resource.jurisdiction }];
}

// An R2 bucket in a seed: its jurisdiction, its lifecycle rules, whether R2 Data Catalog is on and its
// objects; and
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
  /** Objects in the bucket, each written `ageSeconds` ago (default now). */
  objects: z
    .array(
      z.strictObject({
        key: z.string().min(1).max(1024),
        size: z.number().int().nonnegative().optional(),
        ageSeconds: z.number().int().nonnegative().optional(),
      }),
    )
    .max(100_000)
    .optional(),
});
export type R2Seed = z.infer<typeof r2SeedSchema>;

/** A bucket of the same name and jurisdiction is replaced. */
export function seedR2(buckets: R2Store, entry: R2Seed): void {
  const bucket = buckets.create(
    entry.bucket,
    entry.jurisdiction ?? 'default',
    entry.rules,
    entry.dataCatalog ?? false,
  );
  for (const object of entry.objects ?? [])
    buckets.putObject(bucket, object.key, object.size ?? 0, (object.ageSeconds ?? 0) * 1000);
}

/** A slot's R2 bucket as preview-gc's slot config expands it (the fields the seed reads). */
export interface R2SlotResource {
  bucket: string;
  jurisdiction: Jurisdiction;
}

/** The bucket with a few objects, as a slot in use for a while holds (an hour old). */
export function r2SeedFor(resource: R2SlotResource): R2Seed[] {
  const objects = ['uploads/a.png', 'uploads/b.png', 'exports/report.csv'].map((key) => ({
    key,
    size: 1024,
    ageSeconds: 3600,
  }));
  return [{ bucket: resource.bucket, jurisdiction: resource.jurisdiction, objects }];
}

// The account's R2 buckets, by jurisdiction and name, with their lifecycle rules (stored, not executed)
// and their objects, and the shapes the API takes for a rule and a jurisdiction.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

const lifecycleCondition = z.union([
  z.object({ type: z.literal('Age'), maxAge: z.number().int().nonnegative() }),
  z.object({ type: z.literal('Date'), date: z.string().min(1) }),
]);

/** One R2 lifecycle rule as the API stores it (docs/cloudflare.md#r2-lifecycle-rules). */
export const lifecycleRuleSchema = z.looseObject({
  id: z.string().min(1, 'every rule needs a non-empty id'),
  enabled: z.boolean(),
  conditions: z.looseObject({ prefix: z.string().optional() }),
  deleteObjectsTransition: z.object({ condition: lifecycleCondition }).optional(),
  abortMultipartUploadsTransition: z
    .object({ condition: z.object({ type: z.literal('Age'), maxAge: z.number().int().nonnegative() }) })
    .optional(),
  storageClassTransitions: z
    .array(z.object({ condition: lifecycleCondition, storageClass: z.literal('InfrequentAccess') }))
    .optional(),
});
export type LifecycleRule = z.infer<typeof lifecycleRuleSchema>;

export const jurisdictionSchema = z.enum(['default', 'eu', 'us', 'fedramp', 'fedramp-high']);
export type Jurisdiction = z.infer<typeof jurisdictionSchema>;

/** One object of a bucket, as the API's object listing describes it. */
export interface R2Object {
  key: string;
  size: number;
  /** When it was written (ms since the epoch, the twin's clock). */
  uploadedAt: number;
  etag: string;
}

export interface R2Bucket {
  name: string;
  jurisdiction: Jurisdiction;
  createdAt: string;
  location: 'eeur' | 'enam';
  storageClass: 'Standard';
  rules: LifecycleRule[];
  /** R2 Data Catalog is enabled on the bucket. */
  dataCatalog: boolean;
  /**
   * The bucket's objects by key. Lifecycle rules are stored, not executed: objects stay until a test
   * removes them (docs/twin.md, What it models), as Cloudflare takes up to a day to.
   */
  objects: Map<string, R2Object>;
}

const DEFAULT_MULTIPART_RULE: LifecycleRule = {
  id: 'Default Multipart Abort Rule',
  enabled: true,
  conditions: { prefix: '' },
  abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 604800 } },
};

function defaultRules(): LifecycleRule[] {
  return [structuredClone(DEFAULT_MULTIPART_RULE)];
}

function bucketKey(name: string, jurisdiction: Jurisdiction): string {
  return `${jurisdiction}/${name}`;
}

/** A bucket is found only with the jurisdiction it was created in (docs/cloudflare.md#r2-jurisdictions). */
export class R2Store {
  private readonly buckets = new Map<string, R2Bucket>();
  readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  /** Writes an object now (or `ageMs` ago), replacing one of the same key. */
  putObject(bucket: R2Bucket, key: string, size: number, ageMs = 0): R2Object {
    const object = { key, size, uploadedAt: this.now() - ageMs, etag: randomUUID().replaceAll('-', '') };
    bucket.objects.set(key, object);
    return object;
  }

  create(name: string, jurisdiction: Jurisdiction, rules?: LifecycleRule[], dataCatalog = false): R2Bucket {
    const bucket: R2Bucket = {
      name,
      jurisdiction,
      createdAt: new Date().toISOString(),
      location: jurisdiction === 'eu' ? 'eeur' : 'enam',
      storageClass: 'Standard',
      rules: rules ? structuredClone(rules) : defaultRules(),
      dataCatalog,
      objects: new Map(),
    };
    this.buckets.set(bucketKey(name, jurisdiction), bucket);
    return bucket;
  }

  find(name: string, jurisdiction: Jurisdiction): R2Bucket | undefined {
    return this.buckets.get(bucketKey(name, jurisdiction));
  }

  delete(bucket: R2Bucket): void {
    this.buckets.delete(bucketKey(bucket.name, bucket.jurisdiction));
  }

  values(): IterableIterator<R2Bucket> {
    return this.buckets.values();
  }
}

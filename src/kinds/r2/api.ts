// The R2 calls preview-gc makes: list buckets (per jurisdiction), read and write lifecycle rules.
// biome-ignore lint/style/noRestrictedImports: types only (the rule's parameter types), erased from the bundle.
import type Cloudflare from 'cloudflare';
import { BaseBuckets } from 'cloudflare/resources/r2/buckets/buckets';
import { BaseLifecycle } from 'cloudflare/resources/r2/buckets/lifecycle';
import { BaseObjects } from 'cloudflare/resources/r2/buckets/objects';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';
import type { R2Jurisdiction } from './config.ts';

const RESOURCES = [BaseBuckets, BaseLifecycle, BaseObjects] as const;
const cursorInfoSchema = z.looseObject({ cursor: z.string().nullish() }).nullish();

const lifecycleRuleSchema = z.looseObject({
  id: z.string(),
  enabled: z.boolean(),
  conditions: z.looseObject({ prefix: z.string().optional() }).optional(),
});
/** A lifecycle rule as the API returns it; fields preview-gc does not manage are kept as they are. */
export type LifecycleRule = z.infer<typeof lifecycleRuleSchema>;

/** The header that asks R2 to refuse a write a bucket's Data Catalog could not follow (wrangler sends it). */
const DATA_CATALOG_CHECK = 'cf-r2-data-catalog-check';

/** The default jurisdiction is the absence of the header. */
function jurisdictionHeader(jurisdiction: R2Jurisdiction): { 'cf-r2-jurisdiction'?: R2Jurisdiction } {
  return jurisdiction === 'default' ? {} : { 'cf-r2-jurisdiction': jurisdiction };
}

/** Names of every bucket in one jurisdiction. */
export function listR2Buckets(api: CloudflareApi, jurisdiction: R2Jurisdiction): Promise<string[]> {
  return api.allContinued(async (cursor) => {
    const { result, info } = await api.send(
      'r2.buckets.list',
      (options) =>
        api
          .sdk(RESOURCES)
          .r2.buckets.list(
            {
              account_id: api.accountId,
              per_page: 1000,
              ...(cursor ? { cursor } : {}),
              ...jurisdictionHeader(jurisdiction),
            },
            options,
          )
          .asResponse(),
      z.looseObject({ buckets: z.array(z.looseObject({ name: z.string() })).nullish() }),
      cursorInfoSchema,
    );
    return { items: (result.buckets ?? []).map((bucket) => bucket.name), next: info?.cursor ?? undefined };
  });
}

export async function getR2Lifecycle(
  api: CloudflareApi,
  bucket: string,
  jurisdiction: R2Jurisdiction,
): Promise<LifecycleRule[]> {
  const { result } = await api.send(
    'r2.lifecycle.get',
    (options) =>
      api
        .sdk(RESOURCES)
        .r2.buckets.lifecycle.get(
          bucket,
          { account_id: api.accountId, ...jurisdictionHeader(jurisdiction) },
          options,
        )
        .asResponse(),
    z.looseObject({ rules: z.array(lifecycleRuleSchema).nullish() }),
  );
  return result.rules ?? [];
}

/**
 * Replaces every rule of the bucket (a PUT replaces the whole set). Like wrangler without
 * `--force`, it asks for R2 Data Catalog's check: a bucket with the catalog enabled answers 409
 * code 10081 instead of taking rules that could leave the catalog invalid.
 */
export async function putR2Lifecycle(
  api: CloudflareApi,
  bucket: string,
  jurisdiction: R2Jurisdiction,
  rules: LifecycleRule[],
): Promise<void> {
  await api.send(
    'r2.lifecycle.put',
    (options) =>
      api
        .sdk(RESOURCES)
        .r2.buckets.lifecycle.update(
          bucket,
          {
            account_id: api.accountId,
            ...jurisdictionHeader(jurisdiction),
            rules: rules as Cloudflare.R2.Buckets.LifecycleUpdateParams.Rule[],
          },
          { ...options, headers: { [DATA_CATALOG_CHECK]: 'true' } },
        )
        .asResponse(),
    z.unknown(),
  );
}

/** The first page (up to 1,000) of the bucket's objects under `prefix`, and whether there are more. */
export async function listR2Objects(
  api: CloudflareApi,
  bucket: string,
  jurisdiction: R2Jurisdiction,
  prefix: string,
): Promise<{ objects: { key: string; lastModified: string | undefined }[]; more: boolean }> {
  const { result, info } = await api.send(
    'r2.objects.list',
    (options) =>
      api
        .sdk(RESOURCES)
        .r2.buckets.objects.list(
          bucket,
          {
            account_id: api.accountId,
            per_page: 1000,
            ...(prefix === '' ? {} : { prefix }),
            ...jurisdictionHeader(jurisdiction),
          },
          options,
        )
        .asResponse(),
    z.array(z.looseObject({ key: z.string().nullish(), last_modified: z.string().nullish() })),
    cursorInfoSchema,
  );
  return {
    objects: result.map((object) => ({
      key: object.key ?? '',
      lastModified: object.last_modified ?? undefined,
    })),
    more: Boolean(info?.cursor),
  };
}

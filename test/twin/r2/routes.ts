// R2 routes (docs/cloudflare.md#r2-lifecycle-rules): buckets per jurisdiction (the cf-r2-jurisdiction
// header), lifecycle GET/PUT, and objects: listed by cursor, uploaded and deleted (the SDK's
// r2/buckets/objects types).
// A lifecycle PUT with `cf-r2-data-catalog-check: true` on a bucket with R2 Data Catalog enabled is
// refused with 409 code 10081 (wrangler sends the header unless forced, and on 10081 asks before
// sending again without it: wrangler's r2/helpers/bucket.ts putLifecycleRules, r2/lifecycle.ts and
// r2/helpers/misc.ts isDataCatalogConflict).
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { ApiFailure, badRequest, jsonBody, notFound, ok } from '../envelope.ts';
import { type RouteContext, route } from '../gate.ts';
import {
  type Jurisdiction,
  jurisdictionSchema,
  type LifecycleRule,
  lifecycleRuleSchema,
  type R2Bucket,
  type R2Object,
  type R2Store,
} from './store.ts';

const BASE = '/accounts/:account/r2/buckets';
const MAX_RULES = 1000;

const createSchema = z.looseObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/),
  locationHint: z.string().optional(),
  storageClass: z.string().optional(),
});
const lifecycleSchema = z.strictObject({ rules: z.array(lifecycleRuleSchema) });

function jurisdictionOf(request: Request): Jurisdiction {
  const header = request.headers.get('cf-r2-jurisdiction');
  if (header === null || header === '') return 'default';
  const parsed = jurisdictionSchema.safeParse(header);
  if (!parsed.success) throw badRequest(10041, `Invalid jurisdiction "${header}"`);
  return parsed.data;
}

type Bucket = Cloudflare.R2.Buckets.Bucket;
type Rule = Cloudflare.R2.Buckets.LifecycleGetResponse.Rule;
export const DATA_CATALOG_CONFLICT = 10081;

function view(bucket: R2Bucket): Bucket {
  return {
    name: bucket.name,
    creation_date: bucket.createdAt,
    location: bucket.location,
    storage_class: bucket.storageClass,
    ...(bucket.jurisdiction === 'default' ? {} : { jurisdiction: bucket.jurisdiction }),
  };
}

/** A rule as stored; `conditions.prefix` is required in the answer (the SDK's Rule.Conditions). */
function ruleView(rule: LifecycleRule): Rule {
  const { deleteObjectsTransition, abortMultipartUploadsTransition, storageClassTransitions } = rule;
  return {
    id: rule.id,
    enabled: rule.enabled,
    conditions: { prefix: rule.conditions.prefix ?? '' },
    ...(deleteObjectsTransition ? { deleteObjectsTransition } : {}),
    ...(abortMultipartUploadsTransition ? { abortMultipartUploadsTransition } : {}),
    ...(storageClassTransitions ? { storageClassTransitions } : {}),
  };
}

function bucket(buckets: R2Store, { params, request }: RouteContext): R2Bucket {
  const found = buckets.find(params.bucket ?? '', jurisdictionOf(request));
  if (!found) throw notFound(10006, 'The specified bucket does not exist.');
  return found;
}

function validateRules(body: unknown) {
  const parsed = lifecycleSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(
      10040,
      `The lifecycle configuration is not valid: ${issue?.path.join('.')}: ${issue?.message}`,
    );
  }
  const { rules } = parsed.data;
  if (rules.length > MAX_RULES)
    throw badRequest(10040, `A bucket can have at most ${MAX_RULES} lifecycle rules`);
  const ids = new Set<string>();
  for (const rule of rules) {
    if (ids.has(rule.id)) throw badRequest(10040, `Duplicate lifecycle rule id "${rule.id}"`);
    ids.add(rule.id);
    if (
      !rule.deleteObjectsTransition &&
      !rule.abortMultipartUploadsTransition &&
      !rule.storageClassTransitions
    ) {
      throw badRequest(10040, `Lifecycle rule "${rule.id}" has no action`);
    }
  }
  return rules;
}

/** The listing's page size when the request names none, and the most it may ask for (stand-ins). */
const OBJECTS_PER_PAGE = 1000;

type ObjectListing = Cloudflare.R2.Buckets.ObjectListResponse;

function objectView(object: R2Object): ObjectListing {
  return {
    key: object.key,
    size: object.size,
    etag: object.etag,
    last_modified: new Date(object.uploadedAt).toISOString(),
    storage_class: 'Standard',
  };
}

/**
 * One page of the bucket's objects in key order, from after the cursor (the last key of the page
 * before), as the SDK's CursorPagination reads it: `result_info.cursor` empty on the last page.
 */
function objectPage(found: R2Bucket, url: URL) {
  const prefix = url.searchParams.get('prefix') ?? '';
  const after = url.searchParams.get('cursor') ?? url.searchParams.get('start_after') ?? '';
  const perPage = Math.min(
    Number(url.searchParams.get('per_page') ?? OBJECTS_PER_PAGE) || OBJECTS_PER_PAGE,
    OBJECTS_PER_PAGE,
  );
  const keys = [...found.objects.keys()].filter((key) => key.startsWith(prefix) && key > after).sort();
  const page = keys.slice(0, perPage);
  const more = keys.length > page.length;
  return ok<ObjectListing[]>(
    page.map((key) => objectView(found.objects.get(key) as R2Object)),
    { cursor: more ? (page.at(-1) ?? '') : '', per_page: perPage },
  );
}

/** The object's key: everything after `/objects/`, slashes included (wrangler sends them unescaped). */
function objectKey(url: URL): string {
  const [, key = ''] = url.pathname.split(/\/objects\//);
  return decodeURIComponent(key);
}

export function r2Routes(buckets: R2Store, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', BASE, ({ request }) => {
      const jurisdiction = jurisdictionOf(request);
      const listed = [...buckets.values()]
        .filter((b) => b.jurisdiction === jurisdiction)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map(view);
      return ok<Cloudflare.R2.Buckets.BucketListResponse>(
        { buckets: listed },
        { cursor: '', per_page: 1000 },
      );
    }),
    route(account, 'POST', BASE, async ({ request }) => {
      const jurisdiction = jurisdictionOf(request);
      const parsed = createSchema.safeParse(await jsonBody(request));
      if (!parsed.success) throw badRequest(10005, 'The specified bucket name is not valid.');
      if (buckets.find(parsed.data.name, jurisdiction)) {
        throw new ApiFailure(409, 10004, 'The bucket you tried to create already exists, and you own it.');
      }
      return ok<Bucket>(view(buckets.create(parsed.data.name, jurisdiction)));
    }),
    route(account, 'GET', `${BASE}/:bucket`, (ctx) => ok<Bucket>(view(bucket(buckets, ctx)))),
    route(account, 'DELETE', `${BASE}/:bucket`, (ctx) => {
      buckets.delete(bucket(buckets, ctx));
      return ok<Cloudflare.R2.Buckets.BucketDeleteResponse>({});
    }),
    route(account, 'GET', `${BASE}/:bucket/objects`, (ctx) => objectPage(bucket(buckets, ctx), ctx.url)),
    route(account, 'PUT', `${BASE}/:bucket/objects/*`, async (ctx) => {
      const found = bucket(buckets, ctx);
      const body = new Uint8Array(await ctx.request.arrayBuffer());
      const object = buckets.putObject(found, objectKey(ctx.url), body.byteLength);
      return ok<Cloudflare.R2.Buckets.ObjectUploadResponse>({
        key: object.key,
        size: String(object.size),
        etag: object.etag,
        uploaded: new Date(object.uploadedAt).toISOString(),
        storage_class: 'Standard',
      });
    }),
    route(account, 'DELETE', `${BASE}/:bucket/objects/*`, (ctx) => {
      const found = bucket(buckets, ctx);
      const key = objectKey(ctx.url);
      if (!found.objects.delete(key)) throw notFound(10007, 'The specified key does not exist.');
      return ok<Cloudflare.R2.Buckets.ObjectDeleteResponse>({ key });
    }),
    route(account, 'GET', `${BASE}/:bucket/lifecycle`, (ctx) =>
      ok<Cloudflare.R2.Buckets.LifecycleGetResponse>({ rules: bucket(buckets, ctx).rules.map(ruleView) }),
    ),
    route(account, 'PUT', `${BASE}/:bucket/lifecycle`, async (ctx) => {
      const found = bucket(buckets, ctx);
      const rules = validateRules(await jsonBody(ctx.request));
      if (found.dataCatalog && ctx.request.headers.get('cf-r2-data-catalog-check') === 'true') {
        throw new ApiFailure(
          409,
          DATA_CATALOG_CONFLICT,
          "Data Catalog is enabled for this bucket. This operation could leave the bucket's Data Catalog in an invalid state.",
        );
      }
      found.rules = rules;
      return ok<Cloudflare.R2.Buckets.LifecycleUpdateResponse>({});
    }),
  ];
}

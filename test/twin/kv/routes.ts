// Workers KV routes (docs/cloudflare.md#workers-kv): namespaces, key listing with cursor, values, bulk put
// and both bulk deletes.
import type Cloudflare from 'cloudflare';
import { type HttpHandler, HttpResponse } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { badRequest, cursorPageOf, fail, jsonBody, notFound, ok, pageOf } from '../envelope.ts';
import { type RouteContext, route } from '../gate.ts';
import type { KvEntry, KvNamespace, KvStore } from './store.ts';

const BASE = '/accounts/:account/storage/kv/namespaces';
export const BULK_LIMIT = 10_000;
const MAX_KEY_BYTES = 512;

const titleSchema = z.looseObject({ title: z.string().min(1).max(512) });
const bulkPutSchema = z.array(
  z.looseObject({
    key: z.string(),
    value: z.string(),
    base64: z.boolean().optional(),
    expiration: z.number().optional(),
    expiration_ttl: z.number().optional(),
    metadata: z.unknown().optional(),
  }),
);
const bulkDeleteSchema = z.array(z.string());

type Namespace = Cloudflare.KV.Namespaces.Namespace;
type BulkAnswer = Cloudflare.KV.Namespaces.NamespaceBulkDeleteResponse;

function view(ns: KvNamespace): Namespace {
  return { id: ns.id, title: ns.title, supports_url_encoding: true };
}

function namespace(namespaces: KvStore, { params }: RouteContext): KvNamespace {
  const ns = namespaces.get(params.ns ?? '');
  if (!ns) throw notFound(10013, 'namespace not found');
  return ns;
}

function checkKeyName(name: string, operation: string): void {
  if (name === '' || name === '.' || name === '..')
    throw badRequest(10019, `${operation}: 'Illegal key name'`);
  if (Buffer.byteLength(name) > MAX_KEY_BYTES) {
    throw badRequest(10017, `${operation}: 'Key name is longer than the limit of ${MAX_KEY_BYTES} bytes'`);
  }
}

function expirationOf(nowMs: number, expiration: unknown, ttl: unknown): number | undefined {
  if (expiration !== undefined && expiration !== null && expiration !== '') return Number(expiration);
  if (ttl !== undefined && ttl !== null && ttl !== '') return Math.floor(nowMs / 1000) + Number(ttl);
  return undefined;
}

async function valueFromRequest(request: Request): Promise<{ value: Uint8Array; metadata?: unknown }> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.startsWith('multipart/form-data')) return { value: new Uint8Array(await request.arrayBuffer()) };
  const form = await request.formData();
  const part = form.get('value');
  if (part === null) throw badRequest(10021, "put: 'multipart body needs a value part'");
  const value =
    typeof part === 'string' ? new TextEncoder().encode(part) : new Uint8Array(await part.arrayBuffer());
  const rawMetadata = form.get('metadata');
  if (rawMetadata === null) return { value };
  const text = typeof rawMetadata === 'string' ? rawMetadata : await rawMetadata.text();
  try {
    return { value, metadata: JSON.parse(text) };
  } catch {
    throw badRequest(10023, "put: 'metadata is not valid JSON'");
  }
}

async function bulkDelete(namespaces: KvStore, ctx: RouteContext): Promise<Response> {
  const ns = namespace(namespaces, ctx);
  const parsed = bulkDeleteSchema.safeParse(await jsonBody(ctx.request));
  if (!parsed.success) throw badRequest(10026, "bulk delete: 'the body must be a JSON array of key names'");
  if (parsed.data.length > BULK_LIMIT) {
    throw badRequest(
      10026,
      `bulk delete: 'request contains ${parsed.data.length} keys, the limit is ${BULK_LIMIT}'`,
    );
  }
  const now = ctx.account.now();
  const unsuccessful = parsed.data.slice(0, ctx.fault?.unsuccessfulKeys ?? 0);
  const deleted = parsed.data.slice(unsuccessful.length);
  for (const name of deleted) ns.delete(name, now);
  namespaces.afterBulkDelete?.(ns, deleted);
  return ok<BulkAnswer>({
    successful_key_count: parsed.data.length - unsuccessful.length,
    unsuccessful_keys: unsuccessful,
  });
}

export function kvRoutes(namespaces: KvStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', BASE, ({ url }) => {
      const all = [...namespaces.values()].map(view);
      const { result, resultInfo } = pageOf(all, url, { defaultPerPage: 20, maxPerPage: 1000, totals: true });
      return ok<Namespace[]>(result, resultInfo);
    }),
    route(account, 'POST', BASE, async ({ request }) => {
      const parsed = titleSchema.safeParse(await jsonBody(request));
      if (!parsed.success)
        throw badRequest(10019, 'create namespace: a title of 1-512 characters is required');
      if (namespaces.findByTitle(parsed.data.title)) {
        throw badRequest(
          10014,
          'create namespace: a namespace with this account ID and title already exists',
        );
      }
      return ok<Namespace>(view(namespaces.create(parsed.data.title)));
    }),
    route(account, 'GET', `${BASE}/:ns`, (ctx) => ok<Namespace>(view(namespace(namespaces, ctx)))),
    route(account, 'PUT', `${BASE}/:ns`, async (ctx) => {
      const ns = namespace(namespaces, ctx);
      const parsed = titleSchema.safeParse(await jsonBody(ctx.request));
      if (!parsed.success)
        throw badRequest(10019, 'rename namespace: a title of 1-512 characters is required');
      ns.title = parsed.data.title;
      return ok<Namespace>(view(ns));
    }),
    route(account, 'DELETE', `${BASE}/:ns`, (ctx) => {
      const { id } = namespace(namespaces, ctx);
      // Cloudflare refuses to delete a namespace a script binds
      // (docs/twin.md#fidelity-where-each-behaviour-comes-from).
      const scripts = account.scriptsBinding({ type: 'kv_namespace', idField: 'namespace_id', id });
      if (scripts.length > 0)
        throw badRequest(10052, `namespace has associated scripts: ${scripts.join(', ')}`);
      namespaces.delete(id);
      return ok<Cloudflare.KV.Namespaces.NamespaceDeleteResponse | null>(null);
    }),
    route(account, 'GET', `${BASE}/:ns/keys`, (ctx) => {
      const ns = namespace(namespaces, ctx);
      const prefix = ctx.url.searchParams.get('prefix') ?? '';
      const keys = ns.list(prefix, account.now(), namespaces.listingLagMs);
      const { result, resultInfo } = cursorPageOf(keys, (k) => k.name, ctx.url, {
        defaultLimit: 1000,
        minLimit: 10,
        maxLimit: 1000,
      });
      return ok<Cloudflare.KV.Namespaces.Key[]>(result, resultInfo);
    }),
    route(account, 'GET', `${BASE}/:ns/values/:key`, (ctx) => {
      const entry = namespace(namespaces, ctx).get(ctx.params.key ?? '', account.now());
      if (!entry) return fail(404, 10009, "get: 'key not found'");
      const headers: Record<string, string> = { 'Content-Type': 'application/octet-stream' };
      if (entry.expiration !== undefined) headers.Expiration = String(entry.expiration);
      return new HttpResponse(entry.value, { status: 200, headers });
    }),
    route(account, 'GET', `${BASE}/:ns/metadata/:key`, (ctx) => {
      const entry = namespace(namespaces, ctx).get(ctx.params.key ?? '', account.now());
      if (!entry) return fail(404, 10009, "get: 'key not found'");
      return ok<Cloudflare.KV.Namespaces.MetadataGetResponse>(entry.metadata ?? null);
    }),
    route(account, 'PUT', `${BASE}/:ns/values/:key`, async (ctx) => {
      const ns = namespace(namespaces, ctx);
      const name = ctx.params.key ?? '';
      checkKeyName(name, 'put');
      const { value, metadata } = await valueFromRequest(ctx.request);
      const q = ctx.url.searchParams;
      const entry: KvEntry = { value };
      if (metadata !== undefined) entry.metadata = metadata;
      const expiration = expirationOf(
        account.now(),
        q.get('expiration') ?? undefined,
        q.get('expiration_ttl') ?? undefined,
      );
      if (expiration !== undefined) entry.expiration = expiration;
      ns.put(name, entry);
      return ok<Cloudflare.KV.Namespaces.ValueUpdateResponse>({});
    }),
    route(account, 'DELETE', `${BASE}/:ns/values/:key`, (ctx) => {
      namespace(namespaces, ctx).delete(ctx.params.key ?? '', account.now());
      return ok<Cloudflare.KV.Namespaces.ValueDeleteResponse>({});
    }),
    route(account, 'PUT', `${BASE}/:ns/bulk`, async (ctx) => {
      const ns = namespace(namespaces, ctx);
      const parsed = bulkPutSchema.safeParse(await jsonBody(ctx.request));
      if (!parsed.success)
        throw badRequest(10026, "bulk put: 'the body must be a JSON array of {key, value}'");
      if (parsed.data.length > BULK_LIMIT) {
        throw badRequest(
          10026,
          `bulk put: 'request contains ${parsed.data.length} keys, the limit is ${BULK_LIMIT}'`,
        );
      }
      for (const item of parsed.data) {
        checkKeyName(item.key, 'bulk put');
        const value = item.base64 ? Buffer.from(item.value, 'base64') : new TextEncoder().encode(item.value);
        const entry: KvEntry = { value: new Uint8Array(value) };
        if (item.metadata !== undefined) entry.metadata = item.metadata;
        const expiration = expirationOf(account.now(), item.expiration, item.expiration_ttl);
        if (expiration !== undefined) entry.expiration = expiration;
        ns.put(item.key, entry);
      }
      return ok<Cloudflare.KV.Namespaces.NamespaceBulkUpdateResponse>({
        successful_key_count: parsed.data.length,
        unsuccessful_keys: [],
      });
    }),
    route(account, 'POST', `${BASE}/:ns/bulk/delete`, (ctx) => bulkDelete(namespaces, ctx)),
    route(account, 'DELETE', `${BASE}/:ns/bulk`, (ctx) => bulkDelete(namespaces, ctx)),
  ];
}

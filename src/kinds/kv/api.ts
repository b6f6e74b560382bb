// The Workers KV calls preview-gc makes: list namespaces and keys, bulk-delete keys.
import { BaseKeys } from 'cloudflare/resources/kv/namespaces/keys';
import { BaseNamespaces } from 'cloudflare/resources/kv/namespaces/namespaces';
import { BaseValues } from 'cloudflare/resources/kv/namespaces/values';
import { toCallError, withAttemptSignal } from '../../cloudflare/answer.ts';
import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';

const RESOURCES = [BaseNamespaces, BaseKeys, BaseValues] as const;
const cursorInfoSchema = z.looseObject({ cursor: z.string().nullish() }).nullish();

export function listKvNamespaces(api: CloudflareApi): Promise<{ id: string; title: string }[]> {
  return api.allPages(
    'kv.namespaces.list',
    (page, options) =>
      api
        .sdk(RESOURCES)
        .kv.namespaces.list({ account_id: api.accountId, page, per_page: 1000 }, options)
        .asResponse(),
    z.looseObject({ id: z.string(), title: z.string() }),
  );
}

/** One page of at most 1,000 key names; `cursor` '' means this was the last page. */
export async function listKvKeys(
  api: CloudflareApi,
  namespaceId: string,
  cursor: string | undefined,
): Promise<{ names: string[]; cursor: string }> {
  const { result, info } = await api.send(
    'kv.keys.list',
    (options) =>
      api
        .sdk(RESOURCES)
        .kv.namespaces.keys.list(
          namespaceId,
          { account_id: api.accountId, limit: 1000, ...(cursor ? { cursor } : {}) },
          options,
        )
        .asResponse(),
    z.array(z.looseObject({ name: z.string() })),
    cursorInfoSchema,
  );
  return { names: result.map((key) => key.name), cursor: info?.cursor ?? '' };
}

/** Deletes up to 10,000 keys; returns the keys Cloudflare says it could not delete. */
export async function bulkDeleteKvKeys(
  api: CloudflareApi,
  namespaceId: string,
  names: string[],
): Promise<{ unsuccessful: string[] }> {
  const { result } = await api.send(
    'kv.bulkDelete',
    (options) =>
      api
        .sdk(RESOURCES)
        .kv.namespaces.bulkDelete(namespaceId, { account_id: api.accountId, body: names }, options)
        .asResponse(),
    // Older API versions answer null or {} (docs/cloudflare.md#kv-bulk-delete).
    z.looseObject({ unsuccessful_keys: z.array(z.string()).nullish() }).nullish(),
  );
  return { unsuccessful: result?.unsuccessful_keys ?? [] };
}

/**
 * Whether the key has a value: a read of it answers 404 once it is deleted (a listing may still show
 * the key's name for a while, docs/cloudflare.md#kv-eventual-consistency). The body is not read.
 */
export function kvValueExists(api: CloudflareApi, namespaceId: string, key: string): Promise<boolean> {
  return api.pacer.call('kv.values.get', (context) =>
    withAttemptSignal(context, async (signal, timedOut) => {
      try {
        const response = await api
          .sdk(RESOURCES)
          .kv.namespaces.values.get(
            key,
            { account_id: api.accountId, namespace_id: namespaceId },
            { maxRetries: 0, timeout: context.timeoutMs, signal },
          )
          .asResponse();
        await response.body?.cancel();
        return true;
      } catch (error) {
        const failure = toCallError('kv.values.get', error, context, timedOut());
        if (failure instanceof CloudflareCallError && failure.reason === 'api' && failure.status === 404)
          return false;
        throw failure;
      }
    }),
  );
}

/** Creates a namespace; its id. */
export async function createKvNamespace(api: CloudflareApi, title: string): Promise<string> {
  const { result } = await api.send(
    'kv.namespaces.create',
    (options) =>
      api.sdk(RESOURCES).kv.namespaces.create({ account_id: api.accountId, title }, options).asResponse(),
    z.looseObject({ id: z.string() }),
  );
  return result.id;
}

/** Deletes a namespace and every key in it. */
export async function deleteKvNamespace(api: CloudflareApi, namespaceId: string): Promise<void> {
  await api.send(
    'kv.namespaces.delete',
    (options) =>
      api
        .sdk(RESOURCES)
        .kv.namespaces.delete(namespaceId, { account_id: api.accountId }, options)
        .asResponse(),
    z.unknown(),
  );
}

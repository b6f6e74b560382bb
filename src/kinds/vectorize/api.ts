// The Vectorize (v2) calls preview-gc makes: list indexes and vector ids, delete by id, read the count.
import { BaseIndexes } from 'cloudflare/resources/vectorize/indexes/indexes';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';

const RESOURCES = [BaseIndexes] as const;
const cursorInfoSchema = z.looseObject({ cursor: z.string().nullish() }).nullish();

/** Names of every Vectorize (v2) index; follows `result_info.cursor` if the API ever pages. */
export function listVectorizeIndexes(api: CloudflareApi): Promise<string[]> {
  return api.allContinued(async (cursor) => {
    const { result, info } = await api.send(
      'vectorize.indexes.list',
      (options) =>
        api
          .sdk(RESOURCES)
          .vectorize.indexes.list(
            { account_id: api.accountId },
            { ...options, ...(cursor ? { query: { cursor } } : {}) },
          )
          .asResponse(),
      z.array(z.looseObject({ name: z.string() })),
      cursorInfoSchema,
    );
    return { items: result.map((index) => index.name), next: info?.cursor ?? undefined };
  });
}

/** One page of at most 1,000 vector ids; `cursor` '' means this was the last page. */
export async function listVectorIds(
  api: CloudflareApi,
  indexName: string,
  cursor: string | undefined,
): Promise<{ ids: string[]; cursor: string; totalCount: number }> {
  const { result } = await api.send(
    'vectorize.vectors.list',
    (options) =>
      api
        .sdk(RESOURCES)
        .vectorize.indexes.listVectors(
          indexName,
          { account_id: api.accountId, count: 1000, ...(cursor ? { cursor } : {}) },
          options,
        )
        .asResponse(),
    z.looseObject({
      vectors: z.array(z.looseObject({ id: z.string() })),
      isTruncated: z.boolean(),
      totalCount: z.number(),
      nextCursor: z.string().nullish(),
    }),
  );
  const next = result.isTruncated ? (result.nextCursor ?? '') : '';
  return { ids: result.vectors.map((vector) => vector.id), cursor: next, totalCount: result.totalCount };
}

/** Enqueues the deletion of these vectors; Vectorize applies it later (docs/cloudflare.md#vectorize). */
export async function deleteVectorsByIds(
  api: CloudflareApi,
  indexName: string,
  ids: string[],
): Promise<void> {
  await api.send(
    'vectorize.vectors.delete',
    (options) =>
      api
        .sdk(RESOURCES)
        .vectorize.indexes.deleteByIDs(indexName, { account_id: api.accountId, ids }, options)
        .asResponse(),
    z.looseObject({ mutationId: z.string().nullish() }).nullish(),
  );
}

/** How many vectors the index holds, as far as Vectorize has applied its mutations. */
export async function vectorCount(api: CloudflareApi, indexName: string): Promise<number> {
  const { result } = await api.send(
    'vectorize.info',
    (options) =>
      api
        .sdk(RESOURCES)
        .vectorize.indexes.info(indexName, { account_id: api.accountId }, options)
        .asResponse(),
    z.looseObject({ vectorCount: z.number() }),
  );
  return result.vectorCount;
}

/** Creates a (v2) index with the dimensions and metric it will always have. */
export async function createVectorizeIndex(
  api: CloudflareApi,
  name: string,
  config: { dimensions: number; metric: 'cosine' | 'euclidean' | 'dot-product' },
): Promise<void> {
  await api.send(
    'vectorize.indexes.create',
    (options) =>
      api
        .sdk(RESOURCES)
        .vectorize.indexes.create({ account_id: api.accountId, name, config }, options)
        .asResponse(),
    z.unknown(),
  );
}

// Vectorize (v2) routes (docs/twin.md#vectorize): indexes create, list, get and info; vectors insert and
// upsert (ndjson, raw or as wrangler's multipart `vectors` file), list by cursor and delete by ids.
// Every answer has the SDK's type.
import type {
  CreateIndex,
  IndexDeleteByIDsResponse,
  IndexInfoResponse,
  IndexInsertResponse,
  IndexListVectorsResponse,
} from 'cloudflare/resources/vectorize/indexes/indexes';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { ApiFailure, badRequest, decodeCursor, encodeCursor, jsonBody, notFound, ok } from '../envelope.ts';
import { type RouteContext, route } from '../gate.ts';
import {
  INDEX_NAME,
  MAX_DIMENSIONS,
  type TwinVector,
  type TwinVectorIndex,
  VECTORIZE_METRICS,
  type VectorizeStore,
} from './store.ts';

const BASE = '/accounts/:account/vectorize/v2/indexes';
/** Vectorize's limits page: id length and the list-vectors page. */
const MAX_ID_BYTES = 64;
const MAX_LIST_COUNT = 1000;

const createSchema = z.looseObject({
  name: z.string().regex(INDEX_NAME),
  description: z.string().optional(),
  config: z.looseObject({
    dimensions: z.number().int().min(1).max(MAX_DIMENSIONS),
    metric: z.enum(VECTORIZE_METRICS),
  }),
});
const deleteSchema = z.looseObject({ ids: z.array(z.string()) });

function view(index: TwinVectorIndex): CreateIndex {
  return {
    name: index.name,
    description: index.description,
    config: { dimensions: index.dimensions, metric: index.metric },
    created_on: index.createdOn,
    modified_on: index.modifiedOn,
  };
}

function indexOf(indexes: VectorizeStore, { params }: RouteContext): TwinVectorIndex {
  const index = indexes.get(params.index ?? '');
  if (!index) throw notFound(3000, 'vectorize.index.not_found');
  return index;
}

async function ndjsonOf(request: Request): Promise<string> {
  if (!(request.headers.get('content-type') ?? '').startsWith('multipart/form-data')) return request.text();
  const part = (await request.formData()).get('vectors');
  if (part === null) throw badRequest(4000, 'a multipart upload needs a vectors part');
  return typeof part === 'string' ? part : part.text();
}

const vectorSchema = (dimensions: number) =>
  z.looseObject({
    id: z.string().refine((id) => id !== '' && Buffer.byteLength(id) <= MAX_ID_BYTES),
    values: z.array(z.number()).length(dimensions),
    metadata: z.unknown().optional(),
    namespace: z.string().optional(),
  });

/** The vectors of an ndjson body; with `unparsable-behavior=discard`, lines that are not vectors are skipped. */
async function vectorsOf(ctx: RouteContext, index: TwinVectorIndex): Promise<TwinVector[]> {
  const discard = ctx.url.searchParams.get('unparsable-behavior') === 'discard';
  const schema = vectorSchema(index.dimensions);
  const lines = (await ndjsonOf(ctx.request)).split('\n').filter((line) => line.trim() !== '');
  return lines.flatMap((line, number) => {
    let parsed: ReturnType<typeof schema.safeParse>;
    try {
      parsed = schema.safeParse(JSON.parse(line));
    } catch {
      parsed = schema.safeParse(undefined);
    }
    if (parsed.success) return [parsed.data as TwinVector];
    if (discard) return [];
    throw badRequest(4000, `line ${number + 1} is not a vector with an id and ${index.dimensions} values`);
  });
}

function listPage(
  indexes: VectorizeStore,
  ctx: RouteContext,
  index: TwinVectorIndex,
): IndexListVectorsResponse {
  const raw = ctx.url.searchParams.get('count');
  const count = raw === null ? 100 : Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > MAX_LIST_COUNT)
    throw badRequest(4000, `count must be 1-${MAX_LIST_COUNT}, got "${raw}"`);
  const ids = indexes.ids(index);
  const after = decodeCursor(ctx.url.searchParams.get('cursor'));
  const start = after === null ? 0 : ids.findIndex((id) => id > after);
  const page = start === -1 ? [] : ids.slice(start, start + count);
  const last = page.at(-1);
  const truncated = start !== -1 && start + count < ids.length && last !== undefined;
  return {
    count: page.length,
    isTruncated: truncated,
    totalCount: ids.length,
    vectors: page.map((id) => ({ id })),
    nextCursor: truncated ? encodeCursor(last) : null,
    cursorExpirationTimestamp: truncated ? new Date(ctx.account.now() + 3_600_000).toISOString() : null,
  };
}

export function vectorizeRoutes(indexes: VectorizeStore, account: AccountCore): HttpHandler[] {
  const write = (mode: 'insert' | 'upsert') => async (ctx: RouteContext) => {
    const index = indexOf(indexes, ctx);
    const mutationId = indexes.write(index, await vectorsOf(ctx, index), mode);
    return ok<IndexInsertResponse>({ mutationId });
  };
  return [
    route(account, 'GET', BASE, () => ok<CreateIndex[]>(indexes.all().map(view))),
    route(account, 'POST', BASE, async ({ request }) => {
      const parsed = createSchema.safeParse(await jsonBody(request));
      if (!parsed.success) {
        throw badRequest(
          4000,
          `an index needs a name and config { dimensions: 1-${MAX_DIMENSIONS}, metric } (presets are not modelled)`,
        );
      }
      const { name, description, config } = parsed.data;
      if (indexes.get(name)) throw new ApiFailure(409, 3002, 'vectorize.index.duplicate_name');
      return ok<CreateIndex>(view(indexes.create(name, config, description)));
    }),
    route(account, 'GET', `${BASE}/:index`, (ctx) => ok<CreateIndex>(view(indexOf(indexes, ctx)))),
    route(account, 'GET', `${BASE}/:index/info`, (ctx) => {
      const index = indexOf(indexes, ctx);
      const info: IndexInfoResponse = {
        dimensions: index.dimensions,
        vectorCount: index.vectors.size,
        ...(index.processed
          ? { processedUpToMutation: index.processed.mutationId, processedUpToDatetime: index.processed.at }
          : {}),
      };
      return ok<IndexInfoResponse>(info);
    }),
    route(account, 'POST', `${BASE}/:index/insert`, write('insert')),
    route(account, 'POST', `${BASE}/:index/upsert`, write('upsert')),
    route(account, 'GET', `${BASE}/:index/list`, (ctx) =>
      ok<IndexListVectorsResponse>(listPage(indexes, ctx, indexOf(indexes, ctx))),
    ),
    route(account, 'POST', `${BASE}/:index/delete_by_ids`, async (ctx) => {
      const index = indexOf(indexes, ctx);
      const parsed = deleteSchema.safeParse(await jsonBody(ctx.request));
      if (!parsed.success) throw badRequest(4000, 'the body must be { ids: [...] }');
      const mutationId = indexes.deleteIds(index, parsed.data.ids);
      return ok<IndexDeleteByIDsResponse>({ mutationId });
    }),
  ];
}

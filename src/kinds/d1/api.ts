// The D1 calls preview-gc makes: list the databases, run statements in one request.
import { BaseDatabase } from 'cloudflare/resources/d1/database/database';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';

const RESOURCES = [BaseDatabase] as const;

export interface D1Statement {
  sql: string;
  params?: string[];
}
export interface D1StatementResult {
  results: Record<string, unknown>[];
  changes: number;
}

export function listD1Databases(api: CloudflareApi): Promise<{ uuid: string; name: string }[]> {
  return api.allPages(
    'd1.list',
    (page, options) =>
      api
        .sdk(RESOURCES)
        .d1.database.list({ account_id: api.accountId, page, per_page: 1000 }, options)
        .asResponse(),
    z.looseObject({ uuid: z.string(), name: z.string() }),
  );
}

/** Runs the statements as one request (one implicit transaction); one result per statement. */
export async function queryD1(
  api: CloudflareApi,
  databaseId: string,
  statements: D1Statement[],
): Promise<D1StatementResult[]> {
  const [only] = statements;
  const body = statements.length === 1 && only ? only : { batch: statements };
  const { result } = await api.send(
    'd1.query',
    (options) =>
      api
        .sdk(RESOURCES)
        .d1.database.query(databaseId, { account_id: api.accountId, ...body }, options)
        .asResponse(),
    z
      .array(
        z.looseObject({
          success: z.boolean().optional(),
          results: z.array(z.record(z.string(), z.unknown())).nullish(),
          meta: z.looseObject({ changes: z.number().optional() }).nullish(),
        }),
      )
      .length(statements.length, `one result per statement (${statements.length})`),
  );
  return result.map((entry) => ({ results: entry.results ?? [], changes: entry.meta?.changes ?? 0 }));
}

/** Creates a database; its uuid. */
export async function createD1Database(api: CloudflareApi, name: string): Promise<string> {
  const { result } = await api.send(
    'd1.create',
    (options) =>
      api.sdk(RESOURCES).d1.database.create({ account_id: api.accountId, name }, options).asResponse(),
    z.looseObject({ uuid: z.string() }),
  );
  return result.uuid;
}

/** Deletes a database and everything in it. */
export async function deleteD1Database(api: CloudflareApi, databaseId: string): Promise<void> {
  await api.send(
    'd1.delete',
    (options) =>
      api.sdk(RESOURCES).d1.database.delete(databaseId, { account_id: api.accountId }, options).asResponse(),
    z.unknown(),
  );
}

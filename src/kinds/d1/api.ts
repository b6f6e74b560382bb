// The D1 calls preview-gc makes: list the databases, run statements in one request.
import { BaseDatabase, type DatabaseCreateParams } from 'cloudflare/resources/d1/database/database';
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

/** What a database was created with that Cloudflare reports back (the SDK's `D1` type). */
export interface D1Settings {
  /** null: none. A string the SDK does not know is passed on as read, for the caller to judge. */
  jurisdiction: string | null;
  /** undefined: not reported. */
  readReplication: string | undefined;
}

/** Reads a database's jurisdiction and read replication mode. */
export async function getD1Settings(api: CloudflareApi, databaseId: string): Promise<D1Settings> {
  const { result } = await api.send(
    'd1.get',
    (options) =>
      api.sdk(RESOURCES).d1.database.get(databaseId, { account_id: api.accountId }, options).asResponse(),
    z.looseObject({
      jurisdiction: z.string().nullish(),
      read_replication: z.looseObject({ mode: z.string() }).nullish(),
    }),
  );
  return { jurisdiction: result.jurisdiction ?? null, readReplication: result.read_replication?.mode };
}

/** What a create may set beyond the name (the SDK's DatabaseCreateParams). */
export type D1CreateSettings = Omit<DatabaseCreateParams, 'account_id' | 'name'>;

/** Creates a database; its uuid. */
export async function createD1Database(
  api: CloudflareApi,
  name: string,
  settings: D1CreateSettings = {},
): Promise<string> {
  const { result } = await api.send(
    'd1.create',
    (options) =>
      api
        .sdk(RESOURCES)
        .d1.database.create({ account_id: api.accountId, name, ...settings }, options)
        .asResponse(),
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

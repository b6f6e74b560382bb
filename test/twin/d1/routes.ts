// D1 routes (docs/cloudflare.md#d1): list, get (by uuid or name), create, delete, query and raw.
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { ApiFailure, badRequest, jsonBody, notFound, ok, pageOf } from '../envelope.ts';
import { type RouteContext, route } from '../gate.ts';
import type { D1Database, D1Statement, D1StatementResult } from './engine.ts';
import { D1Error } from './engine.ts';
import type { D1Store } from './store.ts';

const BASE = '/accounts/:account/d1/database';

const statementSchema = z.object({ sql: z.string(), params: z.array(z.unknown()).optional() });
const queryBodySchema = z.union([
  statementSchema.strict(),
  z.strictObject({ batch: z.array(statementSchema).min(1) }),
]);
const createBodySchema = z.looseObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-_]{0,63}$/, 'lowercase letters, digits, - and _ (at most 64)'),
  primary_location_hint: z.enum(['wnam', 'enam', 'weur', 'eeur', 'apac', 'oc']).optional(),
  jurisdiction: z.enum(['eu', 'fedramp', 'us']).optional(),
  read_replication: z.strictObject({ mode: z.enum(['auto', 'disabled']) }).optional(),
});

type D1 = Cloudflare.D1Resource.D1;
type ListedDatabase = Cloudflare.D1Resource.Database.DatabaseListResponse;

function listed(db: D1Database): ListedDatabase {
  return {
    uuid: db.uuid,
    name: db.name,
    created_at: db.createdAt,
    version: 'production',
    // Kept from the create and answered as given (the SDK's D1 and DatabaseListResponse types).
    jurisdiction: (db.jurisdiction as ListedDatabase['jurisdiction']) ?? null,
  };
}

function summary(db: D1Database): D1 {
  return {
    ...listed(db),
    num_tables: db.tableCount(),
    file_size: db.sizeBytes(),
    read_replication: { mode: db.readReplication },
  };
}

function database(databases: D1Store, { params }: RouteContext): D1Database {
  const db = databases.find(params.id ?? '');
  if (!db) throw notFound(7404, `The database ${params.id} could not be found`);
  return db;
}

async function statementsOf(request: Request): Promise<D1Statement[]> {
  const parsed = queryBodySchema.safeParse(await jsonBody(request));
  if (!parsed.success) {
    throw badRequest(7400, 'The request body must be {"sql": string, "params"?: [...]} or {"batch": [...]}');
  }
  return 'batch' in parsed.data ? parsed.data.batch : [parsed.data];
}

async function execute(databases: D1Store, ctx: RouteContext): Promise<D1StatementResult[]> {
  const db = database(databases, ctx);
  const statements = await statementsOf(ctx.request);
  try {
    return db.execute(statements);
  } catch (error) {
    if (error instanceof D1Error) throw new ApiFailure(error.status, 7500, error.message);
    throw error;
  }
}

function rowObject(columns: string[], row: unknown[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((c, i) => [c, row[i]]));
}

export function d1Routes(databases: D1Store, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', BASE, ({ url }) => {
      const filter = url.searchParams.get('name') ?? '';
      const all = [...databases.values()].filter((db) => db.name.includes(filter)).map(listed);
      const { result, resultInfo } = pageOf(all, url, {
        defaultPerPage: 1000,
        maxPerPage: 10000,
        totals: true,
      });
      return ok<ListedDatabase[]>(result, resultInfo);
    }),
    route(account, 'POST', BASE, async ({ request }) => {
      const parsed = createBodySchema.safeParse(await jsonBody(request));
      if (!parsed.success) {
        const [issue] = parsed.error.issues;
        const field = issue?.path[0] === 'name' ? 'database name' : issue?.path.join('.');
        throw badRequest(7400, `Invalid ${field}: ${issue?.message}`);
      }
      if (databases.find(parsed.data.name))
        throw badRequest(7502, 'A database with that name already exists');
      const { name, jurisdiction, read_replication } = parsed.data;
      return ok<D1>(
        summary(databases.create(name, { jurisdiction, readReplication: read_replication?.mode })),
      );
    }),
    route(account, 'GET', `${BASE}/:id`, (ctx) => ok<D1>(summary(database(databases, ctx)))),
    route(account, 'DELETE', `${BASE}/:id`, (ctx) => {
      const db = database(databases, ctx);
      databases.delete(db.uuid);
      db.close();
      return ok<Cloudflare.D1Resource.Database.DatabaseDeleteResponse>(null);
    }),
    route(account, 'POST', `${BASE}/:id/query`, async (ctx) => {
      const results = await execute(databases, ctx);
      return ok<Cloudflare.D1Resource.Database.QueryResult[]>(
        results.map((r) => ({
          results: r.rows.map((row) => rowObject(r.columns, row)),
          success: true,
          meta: r.meta,
        })),
      );
    }),
    route(account, 'POST', `${BASE}/:id/raw`, async (ctx) => {
      const results = await execute(databases, ctx);
      return ok<Cloudflare.D1Resource.Database.DatabaseRawResponse[]>(
        results.map((r) => ({ results: { columns: r.columns, rows: r.rows }, success: true, meta: r.meta })),
      );
    }),
  ];
}

// One D1 database: an in-memory SQLite file run by node:sqlite with D1's rules (docs/cloudflare.md#d1):
// foreign keys always on, one transaction per request, `_cf_*` tables and transaction control refused
// with SQLITE_AUTH.
import { randomUUID } from 'node:crypto';
import { constants, DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type Cloudflare from 'cloudflare';
import { splitStatements } from './sql-split.ts';

export interface D1Statement {
  sql: string;
  params?: unknown[];
}

export interface D1StatementResult {
  columns: string[];
  rows: unknown[][];
  meta: Cloudflare.D1Resource.Database.QueryResult.Meta;
}

/** An SQL failure; the request answers 400 with code 7500 and this message. */
export class D1Error extends Error {}

const PRIMARY_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  4: 'SQLITE_ABORT',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  23: 'SQLITE_AUTH',
  25: 'SQLITE_RANGE',
};

const MAX_STATEMENT_BYTES = 100_000;
const MAX_PARAMS = 100;

const REFUSED_ACTIONS = new Set<number>([
  constants.SQLITE_TRANSACTION,
  constants.SQLITE_SAVEPOINT,
  constants.SQLITE_ATTACH,
  constants.SQLITE_DETACH,
]);

function isCloudflareInternal(name: string | null): boolean {
  return name?.toLowerCase().startsWith('_cf_') === true;
}

function sqliteMessage(error: unknown): string {
  if (error instanceof D1Error) return error.message;
  if (error instanceof Error && 'errcode' in error && typeof error.errcode === 'number') {
    const name = PRIMARY_CODES[error.errcode & 0xff] ?? 'SQLITE_ERROR';
    const text = name === 'SQLITE_AUTH' ? 'not authorized' : error.message;
    return `${text}: ${name}`;
  }
  return `${error instanceof Error ? error.message : String(error)}: SQLITE_ERROR`;
}

function toSqlValue(value: unknown, index: number): SQLInputValue {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value) && value.every((b) => Number.isInteger(b))) return Uint8Array.from(value);
  throw new D1Error(`Wrong type for parameter ${index + 1}: ${JSON.stringify(value)}: SQLITE_MISMATCH`);
}

function toJsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Array.from(value);
  if (typeof value === 'bigint') return Number(value);
  return value;
}

export class D1Database {
  readonly uuid: string;
  readonly name: string;
  readonly createdAt: string;
  private readonly db: DatabaseSync;
  /** True while user SQL is prepared: the authorizer then applies D1's restrictions. */
  private userMode = false;

  constructor(name: string, uuid: string = randomUUID()) {
    this.name = name;
    this.uuid = uuid;
    this.createdAt = new Date().toISOString();
    this.db = new DatabaseSync(':memory:');
    this.db.exec('PRAGMA foreign_keys = ON');
    // Every real D1 database carries this internal table; listings must learn to skip it.
    this.db.exec('CREATE TABLE _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID');
    this.db.setAuthorizer((action, arg1, arg2) => this.authorize(action, arg1, arg2));
  }

  private authorize(action: number, arg1: string | null, arg2: string | null): number {
    if (!this.userMode) return constants.SQLITE_OK;
    if (REFUSED_ACTIONS.has(action)) return constants.SQLITE_DENY;
    if (isCloudflareInternal(arg1) || isCloudflareInternal(arg2)) return constants.SQLITE_DENY;
    // D1 refuses table-valued pragma functions inside a SELECT (docs/cloudflare.md#d1-what-not-to-touch).
    if (action === constants.SQLITE_READ && arg1?.toLowerCase().startsWith('pragma_')) {
      return constants.SQLITE_DENY;
    }
    return constants.SQLITE_OK;
  }

  /** Seed SQL runs as one script, outside D1's restrictions but with foreign keys enforced. */
  seed(sql: string): void {
    this.db.exec(sql);
  }

  /** Runs every statement in one transaction; any failure rolls all of them back. */
  execute(statements: D1Statement[]): D1StatementResult[] {
    const expanded = statements.flatMap((s) => {
      const parts = splitStatements(s.sql);
      if (parts.length > 1 && s.params?.length) {
        throw new D1Error('A query with several statements cannot take params: SQLITE_ERROR');
      }
      return parts.map((sql) => ({ sql, params: s.params ?? [] }));
    });
    if (expanded.length === 0) throw new D1Error('No SQL statements detected.: SQLITE_ERROR');
    this.db.exec('BEGIN');
    try {
      const results = expanded.map((s) => this.runOne(s.sql, s.params));
      this.db.exec('COMMIT');
      return results;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw new D1Error(sqliteMessage(error));
    }
  }

  private runOne(sql: string, params: unknown[]): D1StatementResult {
    if (Buffer.byteLength(sql) > MAX_STATEMENT_BYTES) throw new D1Error('statement too long: SQLITE_TOOBIG');
    if (params.length > MAX_PARAMS) throw new D1Error('too many SQL variables: SQLITE_ERROR');
    const started = performance.now();
    this.userMode = true;
    let statement: ReturnType<DatabaseSync['prepare']>;
    try {
      statement = this.db.prepare(sql);
    } finally {
      this.userMode = false;
    }
    const values = params.map(toSqlValue);
    const columns = statement.columns().map((c) => c.name);
    let rows: unknown[][] = [];
    let changes = 0;
    let lastRowId = 0;
    if (columns.length > 0) {
      statement.setReturnArrays(true);
      rows = (statement.all(...values) as unknown as unknown[][]).map((row) => row.map(toJsonValue));
    } else {
      const run = statement.run(...values);
      changes = Number(run.changes);
      lastRowId = Number(run.lastInsertRowid);
    }
    const duration = performance.now() - started;
    const schemaChange = /^\s*(CREATE|DROP|ALTER)\b/i.test(sql);
    return {
      columns,
      rows,
      meta: {
        served_by_primary: true,
        timings: { sql_duration_ms: duration },
        duration,
        changes,
        last_row_id: lastRowId,
        changed_db: changes > 0 || schemaChange,
        size_after: this.sizeBytes(),
        rows_read: columns.length > 0 ? rows.length : changes,
        rows_written: changes,
      },
    };
  }

  sizeBytes(): number {
    const row = this.db
      .prepare('SELECT page_count * page_size AS size FROM pragma_page_count(), pragma_page_size()')
      .get();
    return Number(row?.size ?? 0);
  }

  /** Schema objects with row counts of tables, for GET /__twin/state. */
  describe(): { name: string; type: string; rows?: number }[] {
    const objects = this.db
      .prepare(
        "SELECT name, type FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name",
      )
      .all() as { name: string; type: string }[];
    return objects.map((o) => {
      if (o.type !== 'table') return { name: o.name, type: o.type };
      const count = this.db.prepare(`SELECT count(*) AS n FROM "${o.name.replaceAll('"', '""')}"`).get();
      return { name: o.name, type: o.type, rows: Number(count?.n ?? 0) };
    });
  }

  /** Direct read access for tests (no D1 restrictions, no transaction). */
  select(sql: string, ...params: SQLInputValue[]): Record<string, unknown>[] {
    return this.db.prepare(sql).all(...params) as Record<string, unknown>[];
  }

  tableCount(): number {
    return this.describe().filter((o) => o.type === 'table').length;
  }

  close(): void {
    this.db.close();
  }
}

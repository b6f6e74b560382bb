// One D1 database: an in-memory SQLite file run by node:sqlite with D1's rules (docs/twin.md#d1):
// foreign keys always on, one transaction per request, workerd's authorizer and limits, `meta.changes`
// as D1 counts it, and the twin's stand-ins for the limits D1 enforces by time (30 s a request) and
// by the instance's CPU and memory.
import { randomUUID } from 'node:crypto';
import { constants, DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type Cloudflare from 'cloudflare';
import { d1Allows, moduleAllowed } from './authorizer.ts';
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

/** An SQL failure; the request answers `status` (400 unless said) with code 7500 and this message. */
export class D1Error extends Error {
  readonly status: number;
  constructor(message: string, status = 400) {
    super(message);
    this.status = status;
  }
}

const PRIMARY_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  4: 'SQLITE_ABORT',
  6: 'SQLITE_LOCKED',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  23: 'SQLITE_AUTH',
  25: 'SQLITE_RANGE',
};

const MAX_STATEMENT_BYTES = 100_000;
const MAX_PARAMS = 100;

/**
 * The twin's stand-ins for D1's limits that no number documents (docs/twin.md#d1): D1's docs advise
 * chunks of about 10,000 rows because a bigger UPDATE or DELETE "can exceed the database's CPU or
 * memory limit and reset the instance", and its 30 s limit covers the whole request, batch included.
 */
export const D1_STAND_IN_LIMITS = {
  /** Rows one statement may insert, update or delete itself (its triggers' and cascades' writes aside). */
  rowsPerStatement: 10_000,
  /** The same, summed over the statements of one request. */
  rowsPerRequest: 100_000,
  /** Statements in one request. */
  statementsPerRequest: 1_000,
} as const;

/** workerd's run-time limits of D1's SQLite (`setupSecurity()` in src/workerd/util/sqlite.c++). */
const WORKERD_LIMITS = {
  length: 4 * 1024 * 1024,
  sqlLength: 100_000,
  column: 100,
  exprDepth: 100,
  compoundSelect: 5,
  vdbeOp: 25_000,
  functionArg: 127,
  attach: 0,
  likePatternLength: 50,
  variableNumber: 100,
  triggerDepth: 10,
} as const;
type Limits = { -readonly [Key in keyof typeof WORKERD_LIMITS]: number };

function sqliteMessage(error: unknown): D1Error {
  if (error instanceof D1Error) return error;
  if (error instanceof Error && 'errcode' in error && typeof error.errcode === 'number') {
    const name = PRIMARY_CODES[error.errcode & 0xff] ?? 'SQLITE_ERROR';
    const text = name === 'SQLITE_AUTH' ? 'not authorized' : error.message;
    return new D1Error(`${text}: ${name}`);
  }
  return new D1Error(`${error instanceof Error ? error.message : String(error)}: SQLITE_ERROR`);
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

const rowsLimitMessage = (what: string, rows: number, limit: number) =>
  `internal error: ${what} changed ${rows} rows, more than the ${limit} the twin allows (its stand-in for D1's CPU and memory limit; D1's docs say to chunk bulk mutations)`;

export class D1Database {
  readonly uuid: string;
  readonly name: string;
  readonly createdAt: string;
  /** Where Cloudflare keeps the database's data, fixed at create (null: no jurisdiction). */
  jurisdiction: string | null = null;
  /** Its read replication mode ('disabled' unless created or updated with 'auto'). */
  readReplication: 'auto' | 'disabled' = 'disabled';
  private readonly db: DatabaseSync;
  /** True while a request's statements are prepared and run: the authorizer then applies D1's rules. */
  private userMode = false;
  private readonly totalChanges;
  private readonly size;

  constructor(name: string, uuid: string = randomUUID()) {
    this.name = name;
    this.uuid = uuid;
    this.createdAt = new Date().toISOString();
    // Defensive (node's default, and workerd's SQLITE_DBCONFIG_DEFENSIVE): shadow tables are read-only.
    this.db = new DatabaseSync(':memory:', { defensive: true });
    this.db.exec('PRAGMA foreign_keys = ON');
    // Every real D1 database carries this internal table; listings must learn to skip it.
    this.db.exec('CREATE TABLE _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID');
    this.db.setAuthorizer((action, first, second, database) =>
      this.authorize(action, first, second, database),
    );
    this.totalChanges = this.db.prepare('SELECT total_changes() AS n');
    this.size = this.db.prepare(
      'SELECT page_count * page_size AS size FROM pragma_page_count(), pragma_page_size()',
    );
  }

  private authorize(
    action: number,
    first: string | null,
    second: string | null,
    database: string | null,
  ): number {
    if (!this.userMode) {
      // A seed is trusted, but builds only what D1 could hold: no virtual table of another module.
      const vtable = action === constants.SQLITE_CREATE_VTABLE;
      return vtable && !moduleAllowed(second) ? constants.SQLITE_DENY : constants.SQLITE_OK;
    }
    return d1Allows(action, first, second, database) ? constants.SQLITE_OK : constants.SQLITE_DENY;
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
    const { statementsPerRequest, rowsPerRequest } = D1_STAND_IN_LIMITS;
    if (expanded.length > statementsPerRequest) {
      throw new D1Error(
        `a request of ${expanded.length} statements, more than the ${statementsPerRequest} the twin allows (its stand-in for D1's 30 s limit on a request): SQLITE_TOOBIG`,
      );
    }
    this.db.exec('BEGIN');
    const limits = this.applyLimits(WORKERD_LIMITS);
    try {
      let rowsChanged = 0;
      const results = expanded.map((s) => {
        const { result, ownChanges } = this.runOne(s.sql, s.params);
        rowsChanged += ownChanges;
        if (rowsChanged > rowsPerRequest)
          throw new D1Error(rowsLimitMessage('this request', rowsChanged, rowsPerRequest), 500);
        return result;
      });
      this.applyLimits(limits);
      this.db.exec('COMMIT');
      return results;
    } catch (error) {
      this.applyLimits(limits);
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw sqliteMessage(error);
    }
  }

  /** Sets the limits, returning the ones they replace. */
  private applyLimits(limits: Readonly<Limits>): Limits {
    const before = { ...this.db.limits } as Limits;
    Object.assign(this.db.limits, limits);
    return before;
  }

  private changesSoFar(): number {
    return Number(this.totalChanges.get()?.n ?? 0);
  }

  private runOne(sql: string, params: unknown[]): { result: D1StatementResult; ownChanges: number } {
    if (Buffer.byteLength(sql) > MAX_STATEMENT_BYTES) throw new D1Error('statement too long: SQLITE_TOOBIG');
    if (params.length > MAX_PARAMS) throw new D1Error('too many SQL variables: SQLITE_ERROR');
    const started = performance.now();
    const changesBefore = this.changesSoFar();
    const values = params.map(toSqlValue);
    let columns: string[];
    let rows: unknown[][] = [];
    let reportedChanges = 0;
    let lastRowId = 0;
    this.userMode = true;
    try {
      const statement = this.db.prepare(sql);
      columns = statement.columns().map((c) => c.name);
      if (columns.length > 0) {
        statement.setReturnArrays(true);
        rows = (statement.all(...values) as unknown as unknown[][]).map((row) => row.map(toJsonValue));
      } else {
        const run = statement.run(...values);
        reportedChanges = Number(run.changes);
        lastRowId = Number(run.lastInsertRowid);
      }
    } finally {
      this.userMode = false;
    }
    // D1's meta.changes is sqlite3_total_changes() after minus before: trigger and cascade writes
    // count (SDK QueryResult.Meta.changes; miniflare's D1DatabaseObject computes it so).
    const changes = this.changesSoFar() - changesBefore;
    // sqlite3_changes() keeps the last INSERT/UPDATE/DELETE's count through other statements, so a
    // statement that changed nothing at all changed no rows itself.
    const ownChanges = changes === 0 ? 0 : Math.min(reportedChanges, changes);
    const { rowsPerStatement } = D1_STAND_IN_LIMITS;
    if (ownChanges > rowsPerStatement)
      throw new D1Error(rowsLimitMessage('one statement', ownChanges, rowsPerStatement), 500);
    const duration = performance.now() - started;
    const schemaChange = /^\s*(CREATE|DROP|ALTER)\b/i.test(sql);
    const result: D1StatementResult = {
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
    return { result, ownChanges };
  }

  sizeBytes(): number {
    return Number(this.size.get()?.size ?? 0);
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
      try {
        const count = this.db.prepare(`SELECT count(*) AS n FROM "${o.name.replaceAll('"', '""')}"`).get();
        return { name: o.name, type: o.type, rows: Number(count?.n ?? 0) };
      } catch {
        // A virtual table that cannot be scanned (contentless FTS5 without columnsize) has no count.
        return { name: o.name, type: o.type };
      }
    });
  }

  /** Direct read access for tests (no D1 restrictions, no transaction). */
  select(sql: string, ...params: SQLInputValue[]): Record<string, unknown>[] {
    return this.db.prepare(sql).all(...params) as Record<string, unknown>[];
  }

  /** A copy of the whole database in a file, for tests that read it with their own SQLite connection. */
  copyTo(path: string): void {
    this.db.prepare('VACUUM INTO ?').run(path);
  }

  tableCount(): number {
    return this.describe().filter((o) => o.type === 'table').length;
  }

  close(): void {
    this.db.close();
  }
}

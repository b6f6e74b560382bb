// The rehearsal's seed of your own app: a slot's Worker holds the Durable Object classes your
// wrangler config declares (its migrations, or its declarative exports, and the containers it
// declares), and a slot's D1 database your migrations, applied as `wrangler d1 migrations apply`
// applies them (each file, then its row in d1_migrations), with a few rows in every table they make.
// Everything is worked out in a scratch SQLite database first, so a migration that fails is named,
// with its file, before the twin holds anything.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { AppWranglerConfig } from '../src/config/wrangler/app-config.ts';

/** The rows each table of the app's schema gets, so the rehearsal's erase has something to erase. */
const ROWS_PER_TABLE = 3;

/** wrangler's d1_migrations table (wrangler's d1/migrations/helpers.ts, getCreateMigrationsTableQuery). */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS d1_migrations(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`;

export interface AppWorkerClass {
  name: string;
  sqlite: boolean;
  container: boolean;
}

export interface AppWorker {
  migrationTag: string | undefined;
  exportsMode: boolean;
  classes: AppWorkerClass[];
}

/** A step of the app's `migrations`, as wrangler reads it. */
interface MigrationStep {
  tag?: unknown;
  new_classes?: unknown;
  new_sqlite_classes?: unknown;
  deleted_classes?: unknown;
  renamed_classes?: unknown;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

/** The classes the config declares containers for (`containers[].class_name`). */
function containerClasses(top: Readonly<Record<string, unknown>>): Set<string> {
  const containers: unknown[] = Array.isArray(top.containers) ? top.containers : [];
  return new Set(
    containers.flatMap((container) => {
      const className = (container as { class_name?: unknown } | null)?.class_name;
      return typeof className === 'string' ? [className] : [];
    }),
  );
}

/** One migration step applied to the live classes (name → sqlite). */
function applyStep(live: Map<string, boolean>, step: MigrationStep): void {
  for (const name of strings(step.new_classes)) live.set(name, false);
  for (const name of strings(step.new_sqlite_classes)) live.set(name, true);
  for (const name of strings(step.deleted_classes)) live.delete(name);
  for (const rename of Array.isArray(step.renamed_classes) ? step.renamed_classes : []) {
    const { from, to } = rename as { from?: unknown; to?: unknown };
    if (typeof from !== 'string' || typeof to !== 'string') continue;
    live.set(to, live.get(from) ?? true);
    live.delete(from);
  }
}

/** The Durable Object classes the app's Worker has once its config is deployed, and its migration tag. */
export function appWorker(app: AppWranglerConfig): AppWorker {
  const top = app.top;
  const containers = containerClasses(top);
  const live = new Map<string, boolean>();
  const exportsMap = top.exports;
  if (exportsMap !== null && typeof exportsMap === 'object' && !Array.isArray(exportsMap)) {
    for (const [name, entry] of Object.entries(
      exportsMap as Record<string, { type?: unknown; storage?: unknown }>,
    ))
      if (entry?.type === 'durable-object') live.set(name, entry.storage !== 'legacy-kv');
    return { migrationTag: undefined, exportsMode: true, classes: classesOf(live, containers) };
  }
  let migrationTag: string | undefined;
  for (const step of (Array.isArray(top.migrations) ? top.migrations : []) as MigrationStep[]) {
    applyStep(live, step);
    if (typeof step.tag === 'string') migrationTag = step.tag;
  }
  return { migrationTag, exportsMode: false, classes: classesOf(live, containers) };
}

function classesOf(live: ReadonlyMap<string, boolean>, containers: ReadonlySet<string>): AppWorkerClass[] {
  return [...live].map(([name, sqlite]) => ({ name, sqlite, container: containers.has(name) }));
}

/** One migration file: its name as wrangler records it (the file name) and its SQL. */
export interface Migration {
  name: string;
  sql: string;
}

/** The `.sql` files of `directory`, in name order, as `wrangler d1 migrations apply` takes them. */
export async function readMigrations(directory: string): Promise<Migration[]> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.sql')).sort();
  return Promise.all(
    names.map(async (name) => ({ name, sql: await readFile(join(directory, name), 'utf8') })),
  );
}

/** A migration that does not apply: which file, and SQLite's words. */
export class MigrationError extends Error {
  constructor(migration: string, message: string) {
    super(`migration ${migration} failed: ${message}`);
    this.name = 'MigrationError';
  }
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

interface Column {
  name: string;
  type: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
  hidden: number;
}

interface ForeignKey {
  table: string;
  from: string;
  to: string | null;
}

/** A value for a column of declared type `type`, for row `n` of a table: unique, so UNIQUE holds. */
function valueFor(column: Column, n: number, table: string): string {
  const type = column.type.toUpperCase();
  if (/INT/.test(type)) return String(n);
  if (/REAL|FLOA|DOUB|NUM|DEC/.test(type)) return `${n}.5`;
  if (/BLOB/.test(type)) return `x'${n.toString(16).padStart(2, '0')}'`;
  return literal(`${table} ${column.name} ${n}`);
}

/**
 * INSERTs of a few rows into every table of `db` (a database the migrations were applied to): parent
 * tables first, each foreign key pointing at the parent's row of the same number. A table whose rows
 * its constraints refuse (a CHECK, a trigger) is left empty; the rehearsal says which.
 */
function rowsFor(db: DatabaseSync): { sql: string[]; empty: string[] } {
  const tables = (
    db
      .prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name <> 'd1_migrations' AND sql NOT LIKE 'CREATE VIRTUAL%'",
      )
      .all() as { name: string }[]
  ).map((row) => row.name);
  const virtualShadows = (
    db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")
      .all() as {
      name: string;
    }[]
  ).map((row) => `${row.name}_`);
  const ordinary = tables.filter((name) => !virtualShadows.some((prefix) => name.startsWith(prefix)));
  const parents = new Map(
    ordinary.map((name) => [
      name,
      db
        .prepare(`SELECT "table", "from", "to" FROM pragma_foreign_key_list(${literal(name)})`)
        .all() as unknown as ForeignKey[],
    ]),
  );
  const ordered: string[] = [];
  const visit = (name: string, seen: Set<string>) => {
    if (ordered.includes(name) || seen.has(name)) return;
    seen.add(name);
    for (const key of parents.get(name) ?? [])
      if (key.table !== name && parents.has(key.table)) visit(key.table, seen);
    ordered.push(name);
  };
  for (const name of ordinary) visit(name, new Set());

  const sql: string[] = [];
  const empty: string[] = [];
  for (const table of ordered) {
    const columns = (
      db.prepare(`SELECT * FROM pragma_table_xinfo(${literal(table)})`).all() as unknown as Column[]
    ).filter((column) => column.hidden === 0);
    const keys = parents.get(table) ?? [];
    const inserts = Array.from({ length: ROWS_PER_TABLE }, (_, i) => {
      const n = i + 1;
      const values = columns.map((column) => {
        const key = keys.find((candidate) => candidate.from === column.name);
        if (key !== undefined)
          return key.table === table && n === 1 ? 'NULL' : String(key.table === table ? n - 1 : n);
        return valueFor(column, n, table);
      });
      return `INSERT INTO ${quote(table)} (${columns.map((column) => quote(column.name)).join(', ')}) VALUES (${values.join(', ')});`;
    });
    try {
      db.exec('SAVEPOINT rows');
      for (const insert of inserts) db.exec(insert);
      db.exec('RELEASE rows');
      sql.push(...inserts);
    } catch {
      db.exec('ROLLBACK TO rows');
      db.exec('RELEASE rows');
      empty.push(table);
    }
  }
  return { sql, empty };
}

export interface AppDatabase {
  /** The script that makes a slot's database: the migrations, their d1_migrations rows, the rows. */
  sql: string;
  /** Tables left without rows, because their constraints refused the rows the rehearsal wrote. */
  empty: string[];
}

/**
 * The app's database, worked out once in a scratch SQLite database with foreign keys on (as D1 has
 * them): every migration applied in order, as wrangler applies it, then a few rows in every table.
 */
export function appDatabase(migrations: readonly Migration[]): AppDatabase {
  const db = new DatabaseSync(':memory:');
  try {
    db.exec('PRAGMA foreign_keys = ON');
    db.exec(MIGRATIONS_TABLE);
    const script = [MIGRATIONS_TABLE];
    for (const migration of migrations) {
      const record = `INSERT INTO d1_migrations (name) values (${literal(migration.name)});`;
      try {
        db.exec(migration.sql);
        db.exec(record);
      } catch (error) {
        throw new MigrationError(migration.name, error instanceof Error ? error.message : String(error));
      }
      script.push(migration.sql, record);
    }
    const rows = rowsFor(db);
    return { sql: [...script, ...rows.sql].join('\n'), empty: rows.empty };
  } finally {
    db.close();
  }
}

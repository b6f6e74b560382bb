// What the D1 erase reads of a database before it changes anything: every object of `sqlite_schema`,
// and `PRAGMA table_list`, which alone tells a shadow table (FTS5's `docs_data`, R*Tree's
// `places_node`) from a user table (`docs_meta`) and marks WITHOUT ROWID tables. Each table the erase
// empties gets a shape: an ordinary table, an FTS5 index (regular, contentless or external content:
// each is emptied its own way), an R*Tree, or a virtual table that holds nothing of its own. The
// inventory (inventory.ts) reads the schema again with code of its own.
import { StepError } from '../step.ts';
import type { D1Statement, D1StatementResult } from './api.ts';

/** `"na""me"`: an identifier quoted for SQLite, whatever it contains. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A name as SQLite compares it: only ASCII letters fold ("Orders" is "orders", "Ä" is not "ä"), where
 * JavaScript's toLowerCase() folds every script and would take two tables for one.
 */
export const foldName = (name: string): string => name.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** SQLite compares names without regard to ASCII case. */
export const sameName = (a: string, b: string): boolean => foldName(a) === foldName(b);

export const SCHEMA_READS: readonly D1Statement[] = [
  { sql: 'SELECT type, name, tbl_name, sql FROM sqlite_schema' },
  { sql: 'PRAGMA table_list' },
];

export type TableShape =
  | { kind: 'table'; withoutRowid: boolean }
  | { kind: 'fts5'; content: 'regular' | 'contentless' }
  | { kind: 'fts5'; content: 'external'; contentTable: string }
  | { kind: 'rtree' }
  /** fts5vocab: a view of another FTS5 index, nothing of its own to delete. */
  | { kind: 'no-data' }
  | { kind: 'unknown-virtual'; module: string };

export interface SchemaTable {
  name: string;
  shape: TableShape;
  /** The CREATE statement, as sqlite_schema keeps it. */
  sql: string;
}

interface SchemaTrigger {
  name: string;
  /** The CREATE TRIGGER statement, as sqlite_schema keeps it: the rows erase makes it again from this. */
  sql: string;
}

export interface D1Schema {
  /** Tables the erase empties or drops: not SQLite's, not D1's, not a shadow table. */
  tables: SchemaTable[];
  /** The shadow tables `PRAGMA table_list` names (folded): a virtual table keeps its data there. */
  shadows: ReadonlySet<string>;
  views: string[];
  triggers: SchemaTrigger[];
  /** `d1_migrations`, kept by rows mode (wrangler's record of applied migrations). */
  migrationsTable: string | undefined;
  /**
   * SQLite's tables that keep a tenant's values after its rows are gone, where the database has them:
   * `sqlite_sequence` (table names, counters), `sqlite_stat1` and `sqlite_stat4` (statistics, sample rows).
   */
  statistics: SchemaTable[];
}

/** SQLite's own tables that hold values of the tenant's: emptied by the rows erase. */
const STATISTICS = new Set(['sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4']);

/** wrangler's default `migrations_table`. */
const MIGRATIONS_TABLE = 'd1_migrations';

function isInternal(name: string): boolean {
  const lower = foldName(name);
  return lower.startsWith('sqlite_') || lower.startsWith('_cf_');
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function rowsOf(result: D1StatementResult | undefined, what: string): Record<string, unknown>[] {
  if (result === undefined) throw new StepError('invalid-answer', `D1 answered no result for ${what}`);
  return result.results;
}

/** Parses the answers to SCHEMA_READS. */
export function readSchema(results: readonly D1StatementResult[]): D1Schema {
  const objects = rowsOf(results[0], 'sqlite_schema');
  const listed = rowsOf(results[1], 'PRAGMA table_list').filter((row) => text(row.schema) === 'main');
  const sqlOf = new Map(
    objects.filter((row) => row.type === 'table').map((row) => [foldName(text(row.name)), text(row.sql)]),
  );
  const tables: SchemaTable[] = [];
  const views: string[] = [];
  const shadows = new Set<string>();
  const statistics: SchemaTable[] = [];
  let migrationsTable: string | undefined;
  for (const row of listed) {
    const name = text(row.name);
    const type = text(row.type);
    if (type === 'shadow') shadows.add(foldName(name));
    if (type === 'table' && STATISTICS.has(foldName(name)))
      statistics.push({
        name,
        shape: { kind: 'table', withoutRowid: false },
        sql: sqlOf.get(foldName(name)) ?? '',
      });
    if (isInternal(name) || type === 'shadow') continue;
    if (type === 'view') {
      views.push(name);
      continue;
    }
    if (sameName(name, MIGRATIONS_TABLE)) migrationsTable = name;
    const sql = sqlOf.get(foldName(name)) ?? '';
    const shape: TableShape =
      type === 'virtual' ? virtualShape(sql) : { kind: 'table', withoutRowid: Number(row.wr) === 1 };
    tables.push({ name, shape, sql });
  }
  const triggers = objects
    .filter((row) => row.type === 'trigger' && !isInternal(text(row.name)))
    .map((row) => ({ name: text(row.name), sql: text(row.sql) }));
  return { tables, shadows, views, triggers, migrationsTable, statistics };
}

/** An identifier as written, without its quotes. */
function unquote(identifier: string): string {
  const first = identifier[0];
  const last = identifier.at(-1);
  if (first === '"' && last === '"') return identifier.slice(1, -1).replaceAll('""', '"');
  if (first === '`' && last === '`') return identifier.slice(1, -1).replaceAll('``', '`');
  if (first === "'" && last === "'") return identifier.slice(1, -1).replaceAll("''", "'");
  if (first === '[' && last === ']') return identifier.slice(1, -1);
  return identifier;
}

/** The module's arguments, split at the commas outside quotes and brackets. */
function moduleArguments(sql: string): { module: string; args: string[] } {
  const using = /\bUSING\s+([\w$]+)\s*(\(([\s\S]*)\))?\s*;?\s*$/i.exec(sql);
  if (!using) return { module: '', args: [] };
  const body = using[3] ?? '';
  const args: string[] = [];
  let current = '';
  let quote: string | undefined;
  let depth = 0;
  for (const char of body) {
    if (quote !== undefined) {
      current += char;
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') {
      quote = char;
      current += char;
    } else if (char === '[') {
      quote = ']';
      current += char;
    } else if (char === '(') {
      depth++;
      current += char;
    } else if (char === ')') {
      depth--;
      current += char;
    } else if (char === ',' && depth === 0) {
      args.push(current.trim());
      current = '';
    } else current += char;
  }
  if (current.trim() !== '') args.push(current.trim());
  return { module: (using[1] ?? '').toLowerCase(), args };
}

/** The shape of a virtual table, from its CREATE VIRTUAL TABLE statement (D1 allows only these modules). */
function virtualShape(sql: string): TableShape {
  const { module, args } = moduleArguments(sql);
  if (module === 'rtree' || module === 'rtree_i32') return { kind: 'rtree' };
  if (module === 'fts5vocab') return { kind: 'no-data' };
  if (module !== 'fts5') return { kind: 'unknown-virtual', module: module || 'unknown' };
  for (const arg of args) {
    const option = /^([\w$]+)\s*=\s*([\s\S]*)$/.exec(arg);
    if (option?.[1]?.toLowerCase() !== 'content') continue;
    const value = unquote((option[2] ?? '').trim());
    return value === ''
      ? { kind: 'fts5', content: 'contentless' }
      : { kind: 'fts5', content: 'external', contentTable: value };
  }
  return { kind: 'fts5', content: 'regular' };
}

// How the rows erase goes about one database: what it reads of each table (its columns and foreign
// keys, its rows, its FTS5 index), the order tables are emptied in, and the statements that empty
// them a chunk at a time.
//
// The order: a table comes before the tables its foreign keys reference (children first: a chunk's
// request may be the last one of a run, and `defer_foreign_keys` only helps inside one request), and
// an external-content FTS5 index comes after its content table. Triggers set no order: none of the
// tenant's runs during the erase (wipe.ts).
import { StepError } from '../step.ts';
import type { D1Statement, D1StatementResult } from './api.ts';
import { type D1Schema, foldName, quoteIdentifier, type SchemaTable } from './schema.ts';

/** Rows one statement deletes at most: D1's docs advise chunks of about 10,000 (docs/cloudflare.md#d1-limits). */
export const CHUNK_ROWS = 10_000;
/** Rows one request deletes at most (its chunks' limits added up), well inside D1's 30 s a request. */
export const REQUEST_ROWS = 50_000;
/** Statements one request carries at most. */
export const MAX_STATEMENTS = 500;

/** How a chunk's subquery names a table's rows: the rowid, or the primary key of a WITHOUT ROWID table. */
interface RowKey {
  columns: string;
  order: string;
}

/**
 * A foreign key of a table on itself whose delete action makes chunks unsafe in any order: RESTRICT
 * refuses a parent at once, deferred or not, and CASCADE counts as a level of triggers (D1 allows 10),
 * so a chunk may only take rows no other row references: the leaves.
 */
interface SelfReference {
  /** The referencing columns, quoted. */
  from: string[];
  /** The referenced columns, quoted. */
  to: string[];
}

/** What is in a table now, as the erase last read it. */
export interface Measure {
  /** Rows (ordinary tables, R*Trees, regular FTS5 indexes). */
  rows: number;
  /** FTS5 index entries (rows of its `_idx` and `_docsize` shadow tables); an R*Tree's nodes that hold anything. */
  index: number;
}

export interface TablePlan {
  table: SchemaTable;
  /** How chunks name its rows; undefined when no rowid and no primary key reaches them. */
  key: RowKey | undefined;
  /** Tables its foreign keys reference (folded as SQLite folds names). */
  references: string[];
  /** Its foreign keys on itself that let a chunk delete only leaves. */
  leavesOnly: SelfReference[];
}

/** Names keyed as SQLite compares them (ASCII case only). */
const lower = foldName;

function numberIn(result: D1StatementResult | undefined, what: string): number {
  const value = Number(result?.results[0]?.n);
  if (!Number.isFinite(value))
    throw new StepError('invalid-answer', `D1 answered ${what} that is not a number`);
  return value;
}

const count = (table: string): D1Statement => ({
  sql: `SELECT count(*) AS n FROM ${quoteIdentifier(table)}`,
});

/** An R*Tree's nodes that hold anything: every node but an all-zero root (what a new R*Tree has). */
const rtreeNodes = (table: SchemaTable): D1Statement => ({
  sql: `SELECT count(*) AS n FROM ${quoteIdentifier(`${table.name}_node`)} WHERE nodeno <> 1 OR data <> zeroblob(length(data))`,
});

/** The reads that measure a table: how many rows, and for FTS5 and R*Tree how much index. */
export function measureReads(table: SchemaTable, schema: D1Schema): D1Statement[] {
  const { shape } = table;
  if (shape.kind === 'table') return [count(table.name)];
  if (shape.kind === 'rtree')
    return [
      count(table.name),
      ...(schema.shadows.has(lower(`${table.name}_node`)) ? [rtreeNodes(table)] : []),
    ];
  if (shape.kind !== 'fts5') return [];
  const shadows = ['idx', 'docsize']
    .map((suffix) => `${table.name}_${suffix}`)
    .filter((name) => schema.shadows.has(lower(name)));
  return [...(shape.content === 'regular' ? [count(table.name)] : []), ...shadows.map(count)];
}

export function readMeasure(table: SchemaTable, results: readonly D1StatementResult[]): Measure {
  const numbers = results.map((result) => numberIn(result, `a row count of ${table.name}`));
  const { shape } = table;
  if (shape.kind === 'fts5' || shape.kind === 'rtree') {
    const [rows, ...index] =
      shape.kind === 'rtree' || shape.content === 'regular' ? numbers : [0, ...numbers];
    return { rows: rows ?? 0, index: index.reduce((sum, n) => sum + n, 0) };
  }
  return { rows: numbers[0] ?? 0, index: 0 };
}

/** The reads that tell how chunks name an ordinary table's rows and what it references. */
export function structureReads(table: SchemaTable): D1Statement[] {
  if (table.shape.kind !== 'table') return [];
  const name = quoteIdentifier(table.name);
  return [{ sql: `PRAGMA table_xinfo(${name})` }, { sql: `PRAGMA foreign_key_list(${name})` }];
}

/** A rowid table's rowid is reachable as `rowid`, `_rowid_` or `oid`, unless a column takes the name. */
const ROWID_NAMES = ['rowid', '_rowid_', 'oid'];

function rowKey(
  table: SchemaTable,
  taken: ReadonlySet<string>,
  primary: readonly string[],
): RowKey | undefined {
  const rowid = ROWID_NAMES.find((name) => !taken.has(name));
  if (table.shape.kind === 'table' && !table.shape.withoutRowid && rowid !== undefined)
    return { columns: rowid, order: `${rowid} DESC` };
  if (primary.length === 0) return undefined;
  return {
    columns: primary.length === 1 ? (primary[0] as string) : `(${primary.join(', ')})`,
    order: primary.map((column) => `${column} DESC`).join(', '),
  };
}

const LEAVES_ONLY_ACTIONS = new Set(['CASCADE', 'RESTRICT']);

/** The self-references among `PRAGMA foreign_key_list` rows (one row per column, grouped by `id`). */
function selfReferences(
  table: SchemaTable,
  keys: readonly Record<string, unknown>[],
  primary: readonly string[],
): SelfReference[] {
  const byId = new Map<string, Record<string, unknown>[]>();
  for (const key of keys) {
    if (lower(String(key.table)) !== lower(table.name)) continue;
    if (!LEAVES_ONLY_ACTIONS.has(String(key.on_delete).toUpperCase())) continue;
    byId.set(String(key.id), [...(byId.get(String(key.id)) ?? []), key]);
  }
  return [...byId.values()].map((columns) => {
    const ordered = [...columns].sort((a, b) => Number(a.seq) - Number(b.seq));
    const from = ordered.map((column) => quoteIdentifier(String(column.from)));
    // A key that names no parent columns references the primary key.
    const to = ordered.every((column) => typeof column.to === 'string' && column.to !== '')
      ? ordered.map((column) => quoteIdentifier(String(column.to)))
      : [...primary];
    return { from, to };
  });
}

export function readStructure(table: SchemaTable, results: readonly D1StatementResult[]): TablePlan {
  // Virtual tables have a rowid and no foreign keys.
  if (table.shape.kind !== 'table')
    return { table, key: { columns: 'rowid', order: 'rowid DESC' }, references: [], leavesOnly: [] };
  const columns = results[0]?.results ?? [];
  const keys = results[1]?.results ?? [];
  const taken = new Set(columns.map((column) => lower(String(column.name))));
  const primary = columns
    .filter((column) => Number(column.pk) > 0)
    .sort((a, b) => Number(a.pk) - Number(b.pk))
    .map((column) => quoteIdentifier(String(column.name)));
  return {
    table,
    key: rowKey(table, taken, primary),
    references: [...new Set(keys.map((key) => lower(String(key.table))))],
    leavesOnly: selfReferences(table, keys, primary),
  };
}

/**
 * Deletes up to `limit` rows, the highest keys first: rows added later (a comment's replies, a tree's
 * leaves) usually reference earlier ones, so a self-referencing table loses its children first, and
 * where its keys cascade or restrict (`leavesOnly`) only rows no other row references. `ORDER BY`
 * also makes the subquery a sorted copy, which R*Tree needs to delete from itself.
 */
export function chunkDelete(plan: TablePlan, limit: number): D1Statement {
  const table = quoteIdentifier(plan.table.name);
  if (plan.key === undefined) return { sql: `DELETE FROM ${table}` };
  const { columns, order } = plan.key;
  const selected = columns.startsWith('(') ? columns.slice(1, -1) : columns;
  const leaves = plan.leavesOnly.map(({ from, to }) => {
    const joined = from.map((column, index) => `referencing.${column} = candidate.${to[index] ?? column}`);
    return `NOT EXISTS (SELECT 1 FROM ${table} AS referencing WHERE ${joined.join(' AND ')})`;
  });
  const where = leaves.length === 0 ? '' : ` WHERE ${leaves.join(' AND ')}`;
  return {
    sql: `DELETE FROM ${table} WHERE ${columns} IN (SELECT ${selected} FROM ${table} AS candidate${where} ORDER BY ${order} LIMIT ${limit})`,
  };
}

/** An FTS5 command: `delete-all` (contentless, external content) or `rebuild` (regular, once empty). */
export function ftsCommand(table: SchemaTable, command: 'delete-all' | 'rebuild'): D1Statement {
  const name = quoteIdentifier(table.name);
  return { sql: `INSERT INTO ${name}(${name}) VALUES('${command}')` };
}

/** "delete X before Y": for every table Y, the set of X (lower-cased names). */
export type Before = Map<string, Set<string>>;

/**
 * What must come before what: the foreign keys (a parent emptied before its children fails the
 * request) and an external index's content table.
 */
export function predecessors(plans: readonly TablePlan[]): Before {
  const known = new Set(plans.map((plan) => lower(plan.table.name)));
  const before: Before = new Map([...known].map((name) => [name, new Set<string>()]));
  const edge = (first: string, then: string) => {
    if (first !== then && known.has(first) && known.has(then)) before.get(then)?.add(first);
  };
  for (const plan of plans) {
    const name = lower(plan.table.name);
    for (const parent of plan.references) edge(name, parent);
    const { shape } = plan.table;
    if (shape.kind === 'fts5' && shape.content === 'external') edge(lower(shape.contentTable), name);
  }
  return before;
}

/**
 * The tables in an order that keeps every "before" it can (Kahn's algorithm, name order among
 * equals). A cycle (tables that reference each other) is broken at the first of its tables by name;
 * the read-back after each request tells whether rows came back.
 */
export function eraseOrder(
  plans: readonly TablePlan[],
  before: ReadonlyMap<string, ReadonlySet<string>>,
): TablePlan[] {
  const remaining = [...plans].sort((a, b) => (a.table.name < b.table.name ? -1 : 1));
  const ordered: TablePlan[] = [];
  const placed = new Set<string>();
  while (remaining.length > 0) {
    const ready = remaining.findIndex((plan) =>
      [...(before.get(lower(plan.table.name)) ?? [])].every((first) => placed.has(first)),
    );
    const [next] = remaining.splice(Math.max(0, ready), 1);
    if (next === undefined) break;
    ordered.push(next);
    placed.add(lower(next.table.name));
  }
  return ordered;
}

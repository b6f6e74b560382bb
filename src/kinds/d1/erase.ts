// Step 2: empty the slot's D1 database.
//
// rows: read the user tables (skipping sqlite_*, _cf_* and d1_migrations), count their rows in one
//   batch, and only when something has rows send ONE batch: `PRAGMA defer_foreign_keys = on`, a
//   DELETE per table, then the counts again to verify. Tables are deleted children first, because
//   `ON DELETE RESTRICT` fires at once even while foreign-key checks are deferred.
// drop: drop triggers, views and tables (d1_migrations included) in one batch, children first, and
//   verify that nothing is left.
// Either batch is one request and one transaction: it wipes everything or nothing.

import { formatCount, plural } from '../../text/words.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import { type D1Statement, queryD1 } from './api.ts';
import type { SlotD1 } from './config.ts';

const SCHEMA_FILTER = `name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`;
const LIST_SCHEMA = `SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view', 'trigger') AND ${SCHEMA_FILTER} ORDER BY name`;
const COUNT_SCHEMA = `SELECT COUNT(*) AS n FROM sqlite_master WHERE type IN ('table', 'view', 'trigger') AND ${SCHEMA_FILTER}`;
const MIGRATIONS_TABLE = 'd1_migrations';
const DEFER_FOREIGN_KEYS: D1Statement = { sql: 'PRAGMA defer_foreign_keys = on' };

export interface D1Details {
  mode: 'rows' | 'drop';
  /** Rows per table before the wipe (rows mode). */
  rowsByTable: Record<string, number>;
  /** Objects dropped (drop mode), e.g. `table orders`. */
  dropped: string[];
}

export interface SchemaObject {
  type: 'table' | 'view' | 'trigger';
  name: string;
  sql: string;
}

/** `"na""me"`: an identifier quoted for SQLite, whatever it contains. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

const IDENTIFIER = String.raw`("(?:[^"]|"")+"|\x60(?:[^\x60]|\x60\x60)+\x60|\[[^\]]+\]|[\w$]+)`;
const REFERENCES = new RegExp(String.raw`\bREFERENCES\s+(?:${IDENTIFIER}\s*\.\s*)?${IDENTIFIER}`, 'gi');

function unquote(identifier: string): string {
  const first = identifier[0];
  if (first === '"') return identifier.slice(1, -1).replaceAll('""', '"');
  if (first === '`') return identifier.slice(1, -1).replaceAll('``', '`');
  if (first === '[') return identifier.slice(1, -1);
  return identifier;
}

/** Tables a CREATE TABLE statement references with foreign keys (lower-cased, as SQLite compares them). */
export function referencedTables(createSql: string): Set<string> {
  return new Set([...createSql.matchAll(REFERENCES)].map((match) => unquote(match[2] ?? '').toLowerCase()));
}

/**
 * Tables ordered so that every table comes before the tables it references (children first).
 * Cycles cannot be ordered; their tables follow in name order and a RESTRICT among them fails
 * the batch (rolled back), which the step reports.
 */
export function childrenFirst(tables: readonly SchemaObject[]): SchemaObject[] {
  const parents = new Map(tables.map((table) => [table.name, referencedTables(table.sql)]));
  const remaining = [...tables].sort((a, b) => a.name.localeCompare(b.name));
  const ordered: SchemaObject[] = [];
  while (remaining.length > 0) {
    const isReferenced = (table: SchemaObject) =>
      remaining.some(
        (other) => other !== table && parents.get(other.name)?.has(table.name.toLowerCase()) === true,
      );
    const index = Math.max(
      0,
      remaining.findIndex((table) => !isReferenced(table)),
    );
    ordered.push(...remaining.splice(index, 1));
  }
  return ordered;
}

function isVirtual(object: SchemaObject): boolean {
  return /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(object.sql);
}

/** Tables, without the shadow tables of virtual tables (dropped or emptied through their virtual table). */
function tablesOf(objects: readonly SchemaObject[]): SchemaObject[] {
  const virtualPrefixes = objects.filter(isVirtual).map((object) => `${object.name}_`);
  return objects.filter(
    (object) => object.type === 'table' && !virtualPrefixes.some((prefix) => object.name.startsWith(prefix)),
  );
}

function numberOf(row: Record<string, unknown> | undefined): number {
  const value = Number(row?.n);
  if (!Number.isFinite(value))
    throw new StepError('invalid-answer', 'D1 answered a row count that is not a number');
  return value;
}

async function readSchema(context: EraseContext, databaseId: string): Promise<SchemaObject[]> {
  const [listing] = await queryD1(context.api, databaseId, [{ sql: LIST_SCHEMA }]);
  return (listing?.results ?? []).map((row) => ({
    type: row.type as SchemaObject['type'],
    name: String(row.name),
    sql: typeof row.sql === 'string' ? row.sql : '',
  }));
}

const countRows = (table: SchemaObject): D1Statement => ({
  sql: `SELECT COUNT(*) AS n FROM ${quoteIdentifier(table.name)}`,
});

async function wipeRows(
  context: EraseContext,
  databaseId: string,
  schema: SchemaObject[],
): Promise<StepOutcome<D1Details>> {
  const tables = childrenFirst(tablesOf(schema).filter((table) => table.name !== MIGRATIONS_TABLE));
  const details: D1Details = { mode: 'rows', rowsByTable: {}, dropped: [] };
  if (tables.length === 0) return { status: 'unchanged', summary: 'no tables', details };

  const counts = await queryD1(context.api, databaseId, tables.map(countRows));
  tables.forEach((table, index) => {
    details.rowsByTable[table.name] = numberOf(counts[index]?.results[0]);
  });
  const withRows = Object.values(details.rowsByTable).filter((rows) => rows > 0);
  const total = withRows.reduce((sum, rows) => sum + rows, 0);
  const scope = `${plural(total, 'row')} in ${plural(withRows.length, 'table')}`;
  if (total === 0)
    return { status: 'unchanged', summary: `no rows in ${plural(tables.length, 'table')}`, details };
  if (context.dryRun) return { status: 'would-change', summary: `would delete ${scope}`, details };

  const results = await queryD1(context.api, databaseId, [
    DEFER_FOREIGN_KEYS,
    ...tables.map((table) => ({ sql: `DELETE FROM ${quoteIdentifier(table.name)}` })),
    ...tables.map(countRows),
  ]);
  const left = tables.filter((_, index) => numberOf(results[1 + tables.length + index]?.results[0]) > 0);
  if (left.length > 0) {
    throw new StepError(
      'refused',
      `rows came back in ${left.map((table) => table.name).join(', ')} within the wipe (a trigger?); erase them by hand`,
      details,
    );
  }
  return { status: 'done', summary: `deleted ${scope}`, details };
}

async function dropSchema(
  context: EraseContext,
  databaseId: string,
  schema: SchemaObject[],
): Promise<StepOutcome<D1Details>> {
  const tables = childrenFirst(tablesOf(schema));
  const triggers = schema.filter((object) => object.type === 'trigger');
  const views = schema.filter((object) => object.type === 'view');
  const statements = [
    ...triggers.map((trigger) => `DROP TRIGGER IF EXISTS ${quoteIdentifier(trigger.name)}`),
    ...views.map((view) => `DROP VIEW IF EXISTS ${quoteIdentifier(view.name)}`),
    ...tables.map((table) => `DROP TABLE IF EXISTS ${quoteIdentifier(table.name)}`),
  ];
  const details: D1Details = {
    mode: 'drop',
    rowsByTable: {},
    dropped: [...triggers, ...views, ...tables].map((object) => `${object.type} ${object.name}`),
  };
  if (statements.length === 0)
    return { status: 'unchanged', summary: 'no tables, views or triggers', details };
  const scope = [
    plural(tables.length, 'table'),
    ...(views.length > 0 ? [plural(views.length, 'view')] : []),
    ...(triggers.length > 0 ? [plural(triggers.length, 'trigger')] : []),
  ].join(', ');
  if (context.dryRun) return { status: 'would-change', summary: `would drop ${scope}`, details };

  const results = await queryD1(context.api, databaseId, [
    DEFER_FOREIGN_KEYS,
    ...statements.map((sql) => ({ sql })),
    { sql: COUNT_SCHEMA },
  ]);
  const left = numberOf(results.at(-1)?.results[0]);
  if (left > 0)
    throw new StepError('refused', `${formatCount(left)} schema objects were left after the drop`, details);
  return { status: 'done', summary: `dropped ${scope}`, details };
}

/** Erases the database whose uuid is `databaseId` (kind.ts found it by name). */
export async function eraseD1(
  context: EraseContext,
  database: SlotD1,
  databaseId: string,
): Promise<StepOutcome<D1Details>> {
  const schema = await readSchema(context, databaseId);
  return database.erase === 'rows'
    ? wipeRows(context, databaseId, schema)
    : dropSchema(context, databaseId, schema);
}

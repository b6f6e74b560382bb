// Step 2: empty the slot's D1 database (docs/design.md#erasing-a-slot, docs/cloudflare.md#d1).
//
// The first request reads the schema: `sqlite_schema` and `PRAGMA table_list` (schema.ts).
// drop (the default): triggers, views and tables (`d1_migrations` included) are dropped in one
//   request, one transaction: all or nothing, children first where foreign keys say so (read in a
//   request before it, only when some table declares one). The next branch's `wrangler d1
//   migrations apply` builds its own schema and inserts its own reference rows.
// rows: every table's rows are deleted, the schema kept, `d1_migrations` kept with it (wipe.ts:
//   chunks, rounds, triggers, FTS5 indexes through their own commands).
// The inventory's reads ride along (send.ts); operations.ts takes what they found.
import { plural } from '../../text/words.ts';
import type { EraseContext, StepOutcome } from '../step.ts';
import type { D1Statement } from './api.ts';
import type { SlotD1 } from './config.ts';
import type { D1Details } from './details.ts';
import { eraseOrder, readStructure, structureReads, type TablePlan } from './plan.ts';
import { type D1Schema, foldName, quoteIdentifier, readSchema, SCHEMA_READS } from './schema.ts';
import { type Passenger, type Sender, senderFor } from './send.ts';
import { RowsWipe } from './wipe.ts';

const DEFER_FOREIGN_KEYS: D1Statement = { sql: 'PRAGMA defer_foreign_keys = on' };

async function dropSchema(
  context: EraseContext,
  send: Sender,
  schema: D1Schema,
): Promise<StepOutcome<D1Details>> {
  const tables = await dropOrder(send, schema);
  const { triggers, views } = schema;
  const statements = [
    ...triggers.map((trigger) => `DROP TRIGGER IF EXISTS ${quoteIdentifier(trigger.name)}`),
    ...views.map((view) => `DROP VIEW IF EXISTS ${quoteIdentifier(view)}`),
    ...tables.map((table) => `DROP TABLE IF EXISTS ${quoteIdentifier(table.table.name)}`),
  ];
  const details: D1Details = {
    mode: 'drop',
    rowsByTable: {},
    rowsLeft: {},
    indexesCleared: [],
    writeRequests: 0,
    dropped: [
      ...triggers.map((trigger) => `trigger ${trigger.name}`),
      ...views.map((view) => `view ${view}`),
      ...tables.map((table) => `table ${table.table.name}`),
    ],
  };
  if (statements.length === 0)
    return { status: 'unchanged', summary: 'no tables, views or triggers', details };
  const scope = [
    plural(tables.length, 'table'),
    ...(views.length > 0 ? [plural(views.length, 'view')] : []),
    ...(triggers.length > 0 ? [plural(triggers.length, 'trigger')] : []),
  ].join(', ');
  if (context.dryRun) return { status: 'would-change', summary: `would drop ${scope}`, details };

  await send([DEFER_FOREIGN_KEYS, ...statements.map((sql) => ({ sql }))], { writes: true, mayBeLast: true });
  details.writeRequests++;
  return { status: 'done', summary: `dropped ${scope}`, details };
}

/**
 * The tables children first. Their foreign keys are read only when one of them declares any (a
 * foreign key is declared with REFERENCES); a drop in the wrong order fails the request, which is
 * rolled back: the database stays as it was.
 */
async function dropOrder(send: Sender, schema: D1Schema): Promise<TablePlan[]> {
  const { tables } = schema;
  if (!tables.some((table) => /\bREFERENCES\b/i.test(table.sql)))
    return tables.map((table) => readStructure(table, []));
  const reads = tables.map(structureReads);
  const results = await send(reads.flat(), { writes: false, mayBeLast: false });
  let at = 0;
  const plans = tables.map((table, index) => {
    const length = reads[index]?.length ?? 0;
    const plan = readStructure(table, results.slice(at, at + length));
    at += length;
    return plan;
  });
  const known = new Set(plans.map((plan) => foldName(plan.table.name)));
  const before = new Map(plans.map((plan) => [foldName(plan.table.name), new Set<string>()] as const));
  for (const plan of plans)
    for (const parent of plan.references)
      if (known.has(parent) && parent !== foldName(plan.table.name))
        before.get(parent)?.add(foldName(plan.table.name));
  return eraseOrder(plans, before);
}

/** Erases the database whose uuid is `databaseId` (operations.ts found it by name). */
export async function eraseD1(
  context: EraseContext,
  database: SlotD1,
  databaseId: string,
  passenger?: Passenger,
): Promise<StepOutcome<D1Details>> {
  const send = senderFor(context, databaseId, context.dryRun ? undefined : passenger);
  const schema = readSchema(await send(SCHEMA_READS, { writes: false, mayBeLast: true }));
  if (database.erase === 'drop') return noteDefault(database, await dropSchema(context, send, schema));
  return noteKept(schema, await new RowsWipe(context, send, schema).run());
}

/** What rows mode kept, said after what it deleted: the next tenant finds this schema. */
function noteKept(schema: D1Schema, outcome: StepOutcome<D1Details>): StepOutcome<D1Details> {
  if (outcome.status !== 'done' && outcome.status !== 'would-change') return outcome;
  const { migrationsTable } = schema;
  const tables = schema.tables.filter((table) => table.name !== migrationsTable).length;
  const kept = [
    plural(tables, 'table'),
    ...(schema.views.length > 0 ? [plural(schema.views.length, 'view')] : []),
    ...(schema.triggers.length > 0 ? [plural(schema.triggers.length, 'trigger')] : []),
  ].join(', ');
  const keeps = outcome.status === 'done' ? 'kept' : 'would keep';
  const migrations = migrationsTable === undefined ? '' : ` and ${migrationsTable}`;
  return { ...outcome, summary: `${outcome.summary}; ${keeps} the schema (${kept})${migrations}` };
}

const MIGRATIONS_TABLE = /^table d1_migrations$/i;

/**
 * A slot config that does not say `erase` got `rows` before drop became the default: an erase that
 * drops wrangler's `d1_migrations` says what it does differently, and how to keep the old way.
 * Nothing between runs says which erase is the first after an upgrade, so every such erase says it.
 */
function noteDefault(database: SlotD1, outcome: StepOutcome<D1Details>): StepOutcome<D1Details> {
  if (!database.eraseDefaulted || !outcome.details?.dropped.some((object) => MIGRATIONS_TABLE.test(object)))
    return outcome;
  return {
    ...outcome,
    summary: `${outcome.summary}, d1_migrations among them (erase: drop is the default: the next deploy's migrations apply runs every migration; erase: rows keeps the schema and d1_migrations)`,
  };
}

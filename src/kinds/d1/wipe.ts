// The rows erase of one database, request by request (docs/design.md#erasing-a-slot, step 2).
//
// No trigger of the tenant's runs during the erase: every request that deletes drops the tenant's
// triggers first and makes them again from their own CREATE statements last, in the one transaction
// the request is, so an `AFTER DELETE` trigger copies nothing into a table the erase keeps
// (`d1_migrations`) or has already emptied, and the schema comes out as it went in.
//
// Rounds: a round walks the tables in their order (plan.ts) and empties each in turn, in chunks of at
// most 10,000 rows, as many chunks a request as fit in 50,000 rows; every request starts with
// `PRAGMA defer_foreign_keys = on` and ends by counting again what it touched and what its foreign
// keys may have changed. A table that got rows again behind the walk gets another round, three at
// most; then the erase refuses. A table that does not shrink under its own deletes is refused at
// once: something else is writing to the database. SQLite's `sqlite_sequence`, `sqlite_stat1` and
// `sqlite_stat4` are emptied like the tenant's tables: they keep its table names, counters and sample
// rows. The run's request budget bounds the whole: what was deleted stays deleted, the slot is
// deferred and the next run goes on from what it counts then.
//
// Rows are counted, never summed from `meta.changes`: D1 reports `sqlite3_total_changes()`, which
// adds trigger and cascade writes and an FTS5 index's own (docs/cloudflare.md#d1-changes).
import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import { listed, plural } from '../../text/words.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import type { D1Statement, D1StatementResult } from './api.ts';
import type { D1Details } from './details.ts';
import {
  CHUNK_ROWS,
  chunkDelete,
  eraseOrder,
  ftsCommand,
  MAX_STATEMENTS,
  type Measure,
  measureReads,
  predecessors,
  REQUEST_ROWS,
  readMeasure,
  readStructure,
  structureReads,
  type TablePlan,
} from './plan.ts';
import { type D1Schema, foldName, quoteIdentifier, type SchemaTable, sameName } from './schema.ts';
import type { Sender } from './send.ts';

/**
 * Triggers a request drops and makes again at most: twice this many statements beside its deletes
 * and counts, within MAX_STATEMENTS.
 */
const MAX_TRIGGERS = 100;
/** Rounds over the tables before rows that keep coming back are refused. */
const MAX_ROUNDS = 3;
/**
 * Statements a request spends at most on a table whose chunks take only leaves, each taking the
 * leaves there are then: a tree loses a level a statement, a chain of rows one row.
 */
const LEAF_STATEMENTS = 200;

const DEFER_FOREIGN_KEYS: D1Statement = { sql: 'PRAGMA defer_foreign_keys = on' };

/** Names keyed as SQLite compares them (ASCII case only). */
const lower = foldName;

function hasWork(measure: Measure | undefined): boolean {
  return measure !== undefined && (measure.rows > 0 || measure.index > 0);
}

/** What one delete request does, and what it expects of the tables it touches. */
interface PlannedRequest {
  statements: D1Statement[];
  /** Tables it deleted chunks from, with their rows before. */
  chunked: Map<string, number>;
  /** Tables it expects to leave empty: done for this round, whatever a trigger wrote back into them. */
  finished: Set<string>;
  /** Tables whose counts end the request, and where their reads start. */
  measured: { plan: TablePlan; start: number; reads: number }[];
  /** Nothing is left to do once this request did what it plans. */
  final: boolean;
}

export class RowsWipe {
  private readonly context: EraseContext;
  private readonly send: Sender;
  private readonly schema: D1Schema;
  private readonly order: TablePlan[] = [];
  private readonly before = new Map<string, Set<string>>();
  private readonly measures = new Map<string, Measure>();
  /** Where the round's walk is: the tables before it were emptied in this round. */
  private position = 0;
  private round = 1;
  readonly details: D1Details = {
    mode: 'rows',
    rowsByTable: {},
    rowsLeft: {},
    indexesCleared: [],
    writeRequests: 0,
    dropped: [],
  };

  constructor(context: EraseContext, send: Sender, schema: D1Schema) {
    this.context = context;
    this.send = send;
    this.schema = schema;
  }

  /** The tables the erase empties: not the migrations record, not an fts5vocab view; SQLite's statistics. */
  private tables(): SchemaTable[] {
    const { migrationsTable } = this.schema;
    const tenants = this.schema.tables.filter(
      (table) =>
        table.shape.kind !== 'no-data' &&
        (migrationsTable === undefined || !sameName(table.name, migrationsTable)),
    );
    return [...tenants, ...this.schema.statistics];
  }

  async run(): Promise<StepOutcome<D1Details>> {
    const tables = this.tables();
    if (tables.length === 0) return { status: 'unchanged', summary: 'no tables', details: this.details };
    const { triggers } = this.schema;
    if (triggers.length > MAX_TRIGGERS)
      throw new StepError(
        'refused',
        `the database has ${plural(triggers.length, 'trigger')}, more than the ${MAX_TRIGGERS} the rows erase sets aside in each of its requests so that none of them runs; set \`erase: drop\` for this database`,
        this.details,
      );
    await this.readTables(tables);
    const statistics = new Set(this.schema.statistics);
    const filled = this.order.filter((plan) => (this.measure(plan)?.rows ?? 0) > 0);
    const withRows = filled.filter((plan) => !statistics.has(plan.table));
    const rows = withRows.reduce((sum, plan) => sum + (this.measure(plan)?.rows ?? 0), 0);
    const kept = filled.filter((plan) => statistics.has(plan.table)).map((plan) => plan.table.name);
    const indexes = this.order.filter((plan) => (this.measure(plan)?.index ?? 0) > 0);
    const trees = indexes.filter((plan) => plan.table.shape.kind === 'rtree').length;
    const fts = indexes.length - trees;
    if (rows === 0 && indexes.length === 0 && kept.length === 0)
      return {
        status: 'unchanged',
        summary: `no rows in ${plural(tables.length - statistics.size, 'table')}`,
        details: this.details,
      };
    const deletes =
      rows > 0 ? `delete ${plural(rows, 'row')} in ${plural(withRows.length, 'table')}` : undefined;
    const empties = fts > 0 ? `empty ${plural(fts, 'FTS5 index', 'FTS5 indexes')}` : undefined;
    const remakes = trees > 0 ? `make ${plural(trees, 'R*Tree')} again` : undefined;
    const counters = kept.length > 0 ? `empty SQLite's ${listed(kept)}` : undefined;
    const scope = [deletes, empties, remakes, counters].filter((part) => part !== undefined);
    if (this.context.dryRun)
      return { status: 'would-change', summary: `would ${scope.join(' and ')}`, details: this.details };
    try {
      for (let request = this.nextRequest(); request !== undefined; request = this.nextRequest()) {
        const results = await this.send(request.statements, { writes: true, mayBeLast: request.final });
        this.details.writeRequests++;
        this.record(request, results);
      }
    } catch (error) {
      throw this.failure(error);
    }
    this.details.indexesCleared = indexes.map((plan) => plan.table.name);
    const done = [
      deletes?.replace(/^delete/, 'deleted'),
      empties?.replace(/^empty/, 'emptied'),
      remakes?.replace(/^make/, 'made'),
      counters?.replace(/^empty/, 'emptied'),
    ];
    return {
      status: 'done',
      summary: done.filter((part) => part !== undefined).join(', '),
      details: this.details,
    };
  }

  private measure(plan: TablePlan): Measure | undefined {
    return this.measures.get(lower(plan.table.name));
  }

  /** Reads every table's structure and measure, in as many requests as the statements need. */
  private async readTables(tables: readonly SchemaTable[]): Promise<void> {
    const reads = tables.map((table) => ({
      table,
      structure: structureReads(table),
      measure: measureReads(table, this.schema),
    }));
    const batches: (typeof reads)[] = [[]];
    let size = 0;
    for (const read of reads) {
      const length = read.structure.length + read.measure.length;
      if (size + length > MAX_STATEMENTS && size > 0) {
        batches.push([]);
        size = 0;
      }
      batches.at(-1)?.push(read);
      size += length;
    }
    const plans: TablePlan[] = [];
    for (const [index, batch] of batches.entries()) {
      const statements = batch.flatMap((read) => [...read.structure, ...read.measure]);
      const results = await this.send(statements, { writes: false, mayBeLast: index === batches.length - 1 });
      let at = 0;
      for (const read of batch) {
        const structure = results.slice(at, at + read.structure.length);
        at += read.structure.length;
        const measure = results.slice(at, at + read.measure.length);
        at += read.measure.length;
        const plan = readStructure(read.table, structure);
        plans.push(plan);
        const measured = readMeasure(read.table, measure);
        this.measures.set(lower(read.table.name), measured);
        const { shape } = read.table;
        // The tenant's rows: SQLite's counters and statistics are not what the report counts.
        if (
          (shape.kind !== 'fts5' || shape.content === 'regular') &&
          !this.schema.statistics.includes(read.table)
        )
          this.details.rowsByTable[read.table.name] = measured.rows;
      }
    }
    for (const [name, set] of predecessors(plans)) this.before.set(name, set);
    // SQLite's counters and statistics first: a few rows, never written by a delete, so they ride in
    // the first request rather than cost one after a table that fills the last.
    const order = eraseOrder(plans, this.before);
    const isStatistics = (plan: TablePlan) => this.schema.statistics.includes(plan.table);
    this.order.push(...order.filter(isStatistics), ...order.filter((plan) => !isStatistics(plan)));
  }

  /** Tables whose rows a delete from `plan` may change: its neighbours by foreign key and trigger. */
  private neighbours(plan: TablePlan): TablePlan[] {
    const name = lower(plan.table.name);
    return this.order.filter((other) => {
      const otherName = lower(other.table.name);
      return this.before.get(otherName)?.has(name) === true || this.before.get(name)?.has(otherName) === true;
    });
  }

  /** Whether `name` is an ordinary table of the schema (an external index's content may be a view, or missing). */
  private isTable(name: string): boolean {
    return this.order.some((plan) => plan.table.shape.kind === 'table' && sameName(plan.table.name, name));
  }

  /** Drops every trigger of the tenant's, to run none of them; `restore` makes them again as they were. */
  private quietTriggers(): { drop: D1Statement[]; restore: D1Statement[] } {
    const { triggers } = this.schema;
    return {
      drop: triggers.map((trigger) => ({ sql: `DROP TRIGGER IF EXISTS ${quoteIdentifier(trigger.name)}` })),
      restore: triggers.map((trigger) => ({ sql: trigger.sql })),
    };
  }

  /**
   * The chunks that delete up to `rows` rows of a table within `capacity`: how many rows they take at
   * most, and whether the table is then expected empty. A table whose chunks may take only leaves
   * gets many small ones, each taking the leaves there are by then, and is never expected empty
   * before its count says so.
   */
  private deletesOf(plan: TablePlan, rows: number, capacity: number, statementsLeft: number) {
    if (plan.key === undefined) {
      if (rows > CHUNK_ROWS) throw this.keyless(plan, rows);
      return { statements: [chunkDelete(plan, rows)], taken: rows, finished: true };
    }
    if (plan.leavesOnly.length > 0) {
      const count = Math.max(1, Math.min(LEAF_STATEMENTS, statementsLeft));
      const budget = Math.min(capacity, rows);
      const limit = Math.min(CHUNK_ROWS, Math.max(1, Math.ceil(budget / count)));
      const statements = Array.from({ length: count }, () => chunkDelete(plan, limit));
      return { statements, taken: budget, finished: false };
    }
    const statements: D1Statement[] = [];
    let left = rows;
    let room = capacity;
    while (left > 0 && room > 0) {
      const limit = Math.min(CHUNK_ROWS, room);
      statements.push(chunkDelete(plan, limit));
      const taken = Math.min(left, limit);
      left -= taken;
      room -= taken;
    }
    return { statements, taken: rows - left, finished: left === 0 };
  }

  /**
   * What a request does to one table: its chunks (an FTS5 index without rows of its own has none),
   * then, once they are expected to leave it empty, its FTS5 command.
   */
  private workOn(plan: TablePlan, rows: number, capacity: number, statementsLeft: number) {
    const { shape } = plan.table;
    if (shape.kind === 'rtree') {
      // Deleting an R*Tree's rows leaves their ids and coordinates in the bytes of its root node
      // (SQLite moves the cells left, and clears none): made again from its own statement, its root
      // is zeroes. No trigger can be on it, no foreign key reference it.
      const name = quoteIdentifier(plan.table.name);
      return {
        statements: [{ sql: `DROP TABLE ${name}` }, { sql: plan.table.sql }],
        taken: 0,
        finished: true,
      };
    }
    if (shape.kind === 'fts5' && shape.content === 'external' && this.isTable(shape.contentTable)) {
      // The rebuild indexes what the content table holds now (nothing, once it is empty): the index
      // never lacks a row its content has, whatever wrote into it, and the sync trigger's 'delete' of
      // that row, once the trigger is back, does not fail as a malformed index.
      const statements = [ftsCommand(plan.table, 'delete-all'), ftsCommand(plan.table, 'rebuild')];
      return { statements, taken: 0, finished: true };
    }
    if (shape.kind === 'fts5' && shape.content !== 'regular')
      return { statements: [ftsCommand(plan.table, 'delete-all')], taken: 0, finished: true };
    const deletes =
      rows > 0
        ? this.deletesOf(plan, rows, capacity, statementsLeft)
        : { statements: [], taken: 0, finished: true };
    if (shape.kind !== 'fts5' || !deletes.finished) return deletes;
    return { ...deletes, statements: [...deletes.statements, ftsCommand(plan.table, 'rebuild')] };
  }

  /** The next request of the round, or undefined when every table is empty. */
  private nextRequest(): PlannedRequest | undefined {
    if (this.position >= this.order.length) return undefined;
    const triggers = this.quietTriggers();
    const statements: D1Statement[] = [DEFER_FOREIGN_KEYS, ...triggers.drop];
    const chunked = new Map<string, number>();
    const finished = new Set<string>();
    const touched: TablePlan[] = [];
    let capacity = REQUEST_ROWS;
    let unfinished = false;
    for (const plan of this.order.slice(this.position)) {
      const name = lower(plan.table.name);
      const measured = this.measure(plan) ?? { rows: 0, index: 0 };
      const { rows } = measured;
      if (rows === 0 && measured.index === 0) continue;
      if (capacity <= 0 || statements.length >= MAX_STATEMENTS / 2) {
        unfinished = true;
        break;
      }
      touched.push(plan);
      // SQLite's counters and statistics hold a row an index or table at most (sample rows: a few
      // dozen an index): they take no share of the request's rows.
      const statistics = this.schema.statistics.includes(plan.table);
      const room = statistics ? CHUNK_ROWS : capacity;
      const work = this.workOn(plan, rows, room, MAX_STATEMENTS / 2 - statements.length);
      statements.push(...work.statements);
      if (!statistics) capacity -= work.taken;
      if (work.taken > 0) chunked.set(name, measured.rows);
      if (!work.finished) {
        unfinished = true;
        break;
      }
      finished.add(name);
    }
    if (touched.length === 0) return undefined;
    statements.push(...triggers.restore);
    const measured = this.measuredAfter(touched, statements);
    const restHasWork = this.order.slice(0, this.position).some((plan) => hasWork(this.measure(plan)));
    return { statements, chunked, finished, measured, final: !unfinished && !restHasWork };
  }

  /** Appends the counts of the tables a request touched and of their neighbours; where each starts. */
  private measuredAfter(
    touched: readonly TablePlan[],
    statements: D1Statement[],
  ): PlannedRequest['measured'] {
    const plans = new Map<string, TablePlan>();
    for (const plan of touched)
      for (const each of [plan, ...this.neighbours(plan)]) plans.set(lower(each.table.name), each);
    return [...plans.values()].map((plan) => {
      const reads = measureReads(plan.table, this.schema);
      const start = statements.length;
      statements.push(...reads);
      return { plan, start, reads: reads.length };
    });
  }

  /** Takes the counts that end a request: where the walk is now, and whether rows keep coming back. */
  private record(request: PlannedRequest, results: readonly D1StatementResult[]): void {
    for (const { plan, start, reads } of request.measured) {
      this.measures.set(lower(plan.table.name), readMeasure(plan.table, results.slice(start, start + reads)));
    }
    this.details.rowsLeft = Object.fromEntries(
      this.order
        .filter((plan) => !this.schema.statistics.includes(plan.table))
        .map((plan) => [plan.table.name, this.measure(plan)?.rows ?? 0] as const)
        .filter(([, rows]) => rows > 0),
    );
    const current = this.order[this.position];
    const currentRows = current === undefined ? undefined : request.chunked.get(lower(current.table.name));
    // The tables before it are done: a table that does not shrink under its own deletes, with no
    // trigger running, is written by something else, and every further request would only add to it.
    if (current !== undefined && currentRows !== undefined) {
      const now = this.measure(current)?.rows ?? 0;
      if (now > 0 && now >= currentRows)
        throw this.refill([current], 'does not shrink under its own deletes');
    }
    while (this.position < this.order.length) {
      const plan = this.order[this.position] as TablePlan;
      if (hasWork(this.measure(plan)) && !request.finished.has(lower(plan.table.name))) break;
      this.position++;
    }
    if (this.position < this.order.length) return;
    const back = this.order.filter((plan) => hasWork(this.measure(plan)));
    if (back.length === 0) return;
    if (this.round >= MAX_ROUNDS) {
      throw this.refill(back, `had rows again after ${plural(MAX_ROUNDS, 'round')} over the tables`);
    }
    this.round++;
    this.position = 0;
  }

  /** Rows that came back with no trigger running: a loop of rows, or something still writing. */
  private refill(tables: readonly TablePlan[], problem: string): StepError {
    const what = `${tables.length === 1 ? 'table' : 'tables'} ${listed(tables.map((plan) => plan.table.name))}`;
    const loop = tables.some((plan) => plan.leavesOnly.length > 0)
      ? ': its rows reference each other in a loop through a foreign key on itself (ON DELETE CASCADE or RESTRICT), so none is a leaf to delete first; set `erase: drop` for this database'
      : ' while no trigger of the database ran; is something still writing to the database?';
    return new StepError('refused', `rows keep coming back: ${what} ${problem}${loop}`, this.details);
  }

  private keyless(plan: TablePlan, rows: number): StepError {
    return new StepError(
      'refused',
      `table ${plan.table.name} has ${plural(rows, 'row')} and neither a rowid nor a primary key to delete them by in chunks of ${plural(CHUNK_ROWS, 'row')} (its columns take the names rowid, _rowid_ and oid); rename a column, or set \`erase: drop\` for this database`,
      this.details,
    );
  }

  /** A failed request, with what the erase had done before it and, for a refusal of D1's, the likely cause. */
  private failure(error: unknown): unknown {
    if (error instanceof StepError) return error;
    if (!(error instanceof CloudflareCallError)) return error;
    if (error.reason !== 'api' || !error.codes.includes(7500))
      return new StepError(error.reason, error.message, this.details);
    const hint = /FOREIGN KEY/i.test(error.message)
      ? '; a foreign key refuses the order the tables are emptied in (tables that reference each other): set `erase: drop` for this database'
      : '';
    const sqlite = /code 7500: (.*)$/s.exec(error.message)?.[1] ?? error.message;
    return new StepError('refused', `D1 refused the erase's delete (${sqlite})${hint}`, this.details);
  }
}

// What is left of a D1 database, read back by code that shares no table list and no filter with the
// erase (docs/design.md#what-is-left). It reads every object of `sqlite_schema` and every table of
// `PRAGMA table_list`, counts the rows of each table, and reads each FTS5 index's own storage: an
// external-content index answers `count(*)` from its content table, so 0 there says nothing of the
// tokens still in its index.
//
// Names are keyed as SQLite compares them: only ASCII letters fold, so "Ä" and "ä" are two tables.
//
// Exempt, and only these (docs/cloudflare.md#d1-what-not-to-touch): SQLite's own `sqlite_*` objects
// but `sqlite_sequence`, `sqlite_stat1` and `sqlite_stat4` (they keep a tenant's table names, counters
// and sample rows: counted like its tables), D1's own `_cf_*` tables, views
// (they hold no rows), fts5vocab tables (a view of another index), and shadow tables matched exactly to
// a virtual table of this database: FTS5's `_data`, `_idx`, `_content`, `_docsize`, `_config` and
// R*Tree's `_node`, `_parent`, `_rowid`, read with their virtual table (an R*Tree's root node keeps
// the bytes of deleted entries: it must be all zeroes). `d1_migrations` is kept in
// rows mode (wrangler's record of the schema) and read all the same: it is clean only with wrangler's
// columns (id, name, applied_at) and the very rows it had before the erase, read in a request that
// changed nothing; a row a tenant's trigger copied in, or a record that could not be compared, is left.
// In drop mode any object but SQLite's and D1's own is left.
//
// Its reads ride in the erase's own requests where they can (the erase carries them as a passenger,
// at the end of its first request and of a request after which it may be done), so an erase costs
// no request more; otherwise `readD1Inventory` reads in a request or two of its own.

import type { CloudflareApi } from '../../cloudflare/client.ts';
import { listed, plural } from '../../text/words.ts';
import { type Inventory, someItems } from '../inventory.ts';
import { StepError } from '../step.ts';
import { type D1Statement, type D1StatementResult, queryD1 } from './api.ts';

/** The statements one request carries at most (the erase keeps to the same). */
const MAX_STATEMENTS = 500;
/** Reads of the schema before the counts are believed: a schema that keeps changing is being written. */
const MAX_READS = 3;

const SCHEMA_STATEMENTS: readonly D1Statement[] = [
  { sql: 'SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name' },
  { sql: 'PRAGMA table_list' },
];

const FTS5_SHADOWS = ['data', 'idx', 'content', 'docsize', 'config'];
const RTREE_SHADOWS = ['node', 'parent', 'rowid'];
/** The `_data` rows every FTS5 index has, empty or not: its averages (id 1) and structure (id 10). */
const FTS5_FIXED_RECORDS = '(1, 10)';
/** SQLite's tables that keep a tenant's values: counted like its tables. */
const STATISTICS = new Set(['sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4']);
/** wrangler's record of applied migrations, and the columns wrangler makes it with (its d1/migrations). */
const MIGRATIONS = 'd1_migrations';
const MIGRATIONS_COLUMNS = ['id', 'name', 'applied_at'];

interface SchemaObject {
  type: string;
  name: string;
  sql: string;
}

interface Snapshot {
  objects: SchemaObject[];
  /** `PRAGMA table_list`'s rows: schema, name, type. */
  listed: { schema: string; name: string; type: string }[];
  /** The two reads' answers, to tell whether a later read saw the same schema. */
  fingerprint: string;
}

/** One count and what it means if it is not 0. */
interface Check {
  sql: string;
  what: (n: number) => string;
  /** 'rows' checks add up to the summary's rows; 'index' ones are tokens in an FTS5 index; 'statistics' SQLite's own. */
  counts: 'rows' | 'index' | 'statistics';
  /** The table or index it belongs to. */
  owner: string;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const field = (value: unknown) => (typeof value === 'string' ? value : value == null ? '' : String(value));
/** A name as SQLite compares it: ASCII letters only fold. */
const fold = (name: string) => name.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

function isSqlitesOrD1s(name: string): boolean {
  const folded = fold(name);
  return folded.startsWith('sqlite_') || folded.startsWith('_cf_');
}

function snapshotOf(results: readonly D1StatementResult[]): Snapshot {
  const [schema, list] = results;
  if (schema === undefined || list === undefined)
    throw new StepError('invalid-answer', 'D1 answered fewer results than the schema reads');
  const objects = schema.results.map((row) => ({
    type: field(row.type),
    name: field(row.name),
    sql: field(row.sql),
  }));
  const listed = list.results.map((row) => ({
    schema: field(row.schema),
    name: field(row.name),
    type: field(row.type),
  }));
  const fingerprint = JSON.stringify([
    objects.map((object) => [object.type, object.name, object.sql]),
    listed.map((table) => [table.schema, table.name, table.type]).sort(),
  ]);
  return { objects, listed, fingerprint };
}

/** `fts5` from `CREATE VIRTUAL TABLE x USING fts5(…)`, lower-cased. */
function moduleOf(sql: string): string {
  return (/\bUSING\s+([\w$]+)/i.exec(sql)?.[1] ?? '').toLowerCase();
}

/** What the inventory reads of the snapshot's tables, and what it finds left without reading. */
interface Reading {
  checks: Check[];
  /** Left whatever the counts say: a virtual table of a module the inventory cannot read. */
  unreadable: string[];
  /** `d1_migrations` as this database spells it, in rows mode: its columns and rows are read after the counts. */
  migrations: string | undefined;
  tables: number;
  indexes: number;
}

/** The tables of the snapshot, by folded name: table_list's, and any sqlite_schema has beside. */
function tablesOf(snapshot: Snapshot): Map<string, { name: string; type: string; module: string }> {
  const sqlOf = new Map(snapshot.objects.map((object) => [fold(object.name), object.sql]));
  const tables = new Map<string, { name: string; type: string; module: string }>();
  for (const { schema, name, type } of snapshot.listed) {
    if (schema !== 'main') continue;
    const module = type === 'virtual' ? moduleOf(sqlOf.get(fold(name)) ?? '') : '';
    tables.set(fold(name), { name, type, module });
  }
  // Tables sqlite_schema names that table_list left out are read all the same.
  for (const object of snapshot.objects) {
    const key = fold(object.name);
    if (object.type === 'table' && !tables.has(key))
      tables.set(key, { name: object.name, type: 'table', module: '' });
  }
  return tables;
}

function shadowSuffixes(module: string): readonly string[] {
  if (module === 'fts5') return FTS5_SHADOWS;
  return module === 'rtree' || module === 'rtree_i32' ? RTREE_SHADOWS : [];
}

const count = (
  table: string,
  owner: string,
  what: string,
  counts: Check['counts'],
  noun = 'row',
  many = `${noun}s`,
): Check => ({
  sql: `SELECT count(*) AS n FROM ${quote(table)}`,
  what: (n) => `${what}: ${plural(n, noun, many)}`,
  counts,
  owner,
});

/** An FTS5 index's own storage: pages of tokens, segment entries, and its documents where it keeps them. */
function indexChecks(name: string, isShadow: (name: string) => boolean): Check[] {
  const index = `FTS5 index ${name}`;
  const checks: Check[] = [
    {
      sql: `SELECT count(*) AS n FROM ${quote(`${name}_data`)} WHERE id NOT IN ${FTS5_FIXED_RECORDS}`,
      what: (n) => `${index}: ${plural(n, 'page')} of tokens`,
      counts: 'index',
      owner: name,
    },
    count(`${name}_idx`, name, index, 'index', 'segment entry', 'segment entries'),
  ];
  for (const [suffix, noun] of [
    ['docsize', 'indexed document'],
    ['content', 'stored document'],
  ] as const) {
    if (isShadow(`${name}_${suffix}`)) checks.push(count(`${name}_${suffix}`, name, index, 'index', noun));
  }
  return checks;
}

/** What the inventory reads of each table of the snapshot, and what it exempts. */
function readingOf(snapshot: Snapshot, mode: 'rows' | 'drop'): Reading {
  const tables = tablesOf(snapshot);
  const virtual = [...tables.values()].filter((table) => table.type === 'virtual');
  const ownedByVirtualTable = (shadow: string) =>
    virtual.some((table) =>
      shadowSuffixes(table.module).some((suffix) => fold(shadow) === `${fold(table.name)}_${suffix}`),
    );
  const isShadow = (name: string) => tables.get(fold(name))?.type === 'shadow';
  const exempt = (name: string, type: string) =>
    (isSqlitesOrD1s(name) && !STATISTICS.has(fold(name))) ||
    type === 'view' ||
    (type === 'shadow' && ownedByVirtualTable(name));

  const reading: Reading = { checks: [], unreadable: [], migrations: undefined, tables: 0, indexes: 0 };
  for (const { name, type, module } of tables.values()) {
    if (exempt(name, type) || module === 'fts5vocab') continue;
    if (mode === 'rows' && fold(name) === MIGRATIONS) {
      reading.migrations = name;
      continue;
    }
    if (STATISTICS.has(fold(name))) {
      reading.checks.push(count(name, name, `SQLite's ${name}`, 'statistics'));
    } else if (type !== 'virtual') {
      reading.tables++;
      reading.checks.push(count(name, name, `table ${name}`, 'rows'));
    } else if (module === 'rtree' || module === 'rtree_i32') {
      reading.tables++;
      reading.checks.push(
        count(name, name, `R*Tree ${name}`, 'rows'),
        count(`${name}_rowid`, name, `R*Tree ${name}`, 'rows', 'stored entry', 'stored entries'),
        count(`${name}_parent`, name, `R*Tree ${name}`, 'rows', 'inner node', 'inner nodes'),
      );
      // Deleted entries leave their ids and coordinates in the root's bytes: only a root of zeroes
      // (what a new R*Tree has) holds nothing.
      if (isShadow(`${name}_node`))
        reading.checks.push({
          sql: `SELECT count(*) AS n FROM ${quote(`${name}_node`)} WHERE nodeno <> 1 OR data <> zeroblob(length(data))`,
          what: (n) => `R*Tree ${name}: ${plural(n, 'node')} holding entries' bytes`,
          counts: 'rows',
          owner: name,
        });
    } else if (module === 'fts5') {
      reading.indexes++;
      reading.checks.push(...indexChecks(name, isShadow));
    } else {
      // D1 allows no other module; a table of one cannot be read back here.
      reading.unreadable.push(`virtual table ${name} (${module || 'unknown module'}): cannot be read back`);
    }
  }
  return reading;
}

function dropJudgement(snapshot: Snapshot): Inventory {
  const named = new Set(snapshot.objects.map((object) => fold(object.name)));
  const left = [
    ...snapshot.objects
      .filter((object) => !isSqlitesOrD1s(object.name))
      .map((object) => `${object.type} ${object.name}`),
    ...snapshot.listed
      .filter(
        (table) => table.schema === 'main' && !isSqlitesOrD1s(table.name) && !named.has(fold(table.name)),
      )
      .map((table) => `${table.type} ${table.name}`),
  ];
  if (left.length === 0) return { state: 'empty', summary: '0 schema objects' };
  return { state: 'left', summary: plural(left.length, 'schema object'), items: someItems(left) };
}

/** The reads of `d1_migrations`: its columns, then its rows (any columns, any order). */
function migrationsReads(table: string): D1Statement[] {
  return [{ sql: `PRAGMA table_info(${quote(table)})` }, { sql: `SELECT * FROM ${quote(table)}` }];
}

/** Its rows, one JSON text each, sorted: what is compared with the rows before the erase. */
function migrationsRows(result: D1StatementResult | undefined): string[] {
  return (result?.results ?? []).map((row) => JSON.stringify(Object.entries(row).sort())).sort();
}

/** What is wrong with `d1_migrations` now, against its rows before the erase (undefined: not read then). */
function migrationsFindings(
  table: string,
  results: readonly D1StatementResult[],
  before: readonly string[] | undefined,
): string[] {
  const columns = (results[0]?.results ?? []).map((column) => field(column.name));
  const findings: string[] = [];
  const foreign = columns.filter((column) => !MIGRATIONS_COLUMNS.includes(fold(column)));
  if (foreign.length > 0 || columns.length !== MIGRATIONS_COLUMNS.length)
    findings.push(
      `table ${table}: columns ${columns.join(', ')}, not wrangler's (${MIGRATIONS_COLUMNS.join(', ')})`,
    );
  const rows = migrationsRows(results[1]);
  if (before === undefined) {
    findings.push(`table ${table}: ${plural(rows.length, 'row')} not read before the erase to compare`);
    return findings;
  }
  const kept = new Set(before);
  const added = rows.filter((row) => !kept.has(row)).length;
  if (added > 0) findings.push(`table ${table}: ${plural(added, 'row')} not there before the erase`);
  else if (rows.length !== before.length) findings.push(`table ${table}: rows changed during the erase`);
  return findings;
}

function rowsJudgement(
  plan: Reading,
  results: readonly D1StatementResult[],
  migrations: readonly string[] = [],
): Inventory {
  const items: string[] = [...plan.unreadable, ...migrations];
  const tablesWithRows = new Set<string>();
  const indexesWithTokens = new Set<string>();
  const statistics: string[] = [];
  let rows = 0;
  plan.checks.forEach((check, index) => {
    const n = Number(results[index]?.results[0]?.n);
    if (!Number.isFinite(n))
      throw new StepError('invalid-answer', 'D1 answered a count that is not a number');
    if (n === 0) return;
    items.push(check.what(n));
    if (check.counts === 'statistics') statistics.push(check.owner);
    else if (check.counts === 'index') indexesWithTokens.add(check.owner);
    else {
      tablesWithRows.add(check.owner);
      rows += n;
    }
  });
  const tables = plural(plan.tables, 'table');
  const indexes =
    plan.indexes === 0
      ? ''
      : `, ${indexesWithTokens.size} of ${plural(plan.indexes, 'FTS5 index', 'FTS5 indexes')} with tokens`;
  if (items.length === 0)
    return {
      state: 'empty',
      summary: `0 rows in ${tables}${plan.indexes === 0 ? '' : `, 0 tokens in ${plural(plan.indexes, 'FTS5 index', 'FTS5 indexes')}`}`,
    };
  const record = migrations.length === 0 ? '' : ', d1_migrations not as wrangler wrote it';
  const counters = statistics.length === 0 ? '' : `, SQLite's ${listed(statistics)} not empty`;
  return {
    state: 'left',
    summary: `${plural(rows, 'row')} in ${tablesWithRows.size} of ${tables}${indexes}${record}${counters}`,
    items: someItems(items),
  };
}

/**
 * What is left of one database, read in two steps: the schema, then a count of everything it
 * holds with the schema read again (counts of a schema that changed meanwhile are not believed).
 * As a passenger of the erase, each step's reads ride at the end of one of the erase's requests.
 */
export class D1Inventory {
  private readonly mode: 'rows' | 'drop';
  private snapshot: Snapshot | undefined;
  private judgement: Inventory | undefined;
  /** `d1_migrations`' rows as read before the erase changed anything. */
  private migrationsBefore: string[] | undefined;
  /** The erase changed the database before the reads now boarded. */
  private boardedAfterWrites = false;
  /** The reads now boarded leave the counts out: only `d1_migrations` before the erase, and the schema. */
  private boardedBaselineOnly = false;

  constructor(mode: 'rows' | 'drop') {
    this.mode = mode;
  }

  /**
   * The reads to carry now, in a request that runs them after the erase changed the database or not,
   * with `room` statements left: the schema first, then (rows mode) the counts, `d1_migrations`, and
   * the schema again. Before the erase writes, where the counts do not fit, `d1_migrations` and the
   * schema alone: its rows must be read before the erase, its counts only after.
   */
  board(afterWrites: boolean, room = Number.POSITIVE_INFINITY): D1Statement[] {
    this.boardedAfterWrites ||= afterWrites;
    this.boardedBaselineOnly = false;
    if (this.mode === 'drop' || this.snapshot === undefined) return [...SCHEMA_STATEMENTS];
    const reading = readingOf(this.snapshot, this.mode);
    const migrations = reading.migrations === undefined ? [] : migrationsReads(reading.migrations);
    const counts = reading.checks.map(({ sql }) => ({ sql }));
    const needsBaseline = !this.boardedAfterWrites && this.migrationsBefore === undefined;
    if (
      needsBaseline &&
      migrations.length > 0 &&
      counts.length + migrations.length + SCHEMA_STATEMENTS.length > room
    ) {
      this.boardedBaselineOnly = true;
      return [...migrations, ...SCHEMA_STATEMENTS];
    }
    return [...counts, ...migrations, ...SCHEMA_STATEMENTS];
  }

  /** The answers to the reads `board()` gave, in their order. */
  alight(results: readonly D1StatementResult[]): void {
    if (this.mode === 'drop') {
      this.judgement = dropJudgement(snapshotOf(results));
      return;
    }
    if (this.snapshot === undefined) {
      this.snapshot = snapshotOf(results);
      const plan = readingOf(this.snapshot, this.mode);
      const nothingToRead = plan.checks.length === 0 && plan.migrations === undefined;
      this.judgement = nothingToRead ? rowsJudgement(plan, []) : undefined;
      return;
    }
    const plan = readingOf(this.snapshot, this.mode);
    const counts = this.boardedBaselineOnly ? 0 : plan.checks.length;
    const migrations = plan.migrations === undefined ? 0 : 2;
    const again = snapshotOf(results.slice(counts + migrations));
    const same = again.fingerprint === this.snapshot.fingerprint;
    this.snapshot = again;
    this.judgement = undefined;
    if (!same) return;
    let findings: string[] = [];
    if (plan.migrations !== undefined) {
      const read = results.slice(counts, counts + migrations);
      if (!this.boardedAfterWrites) this.migrationsBefore ??= migrationsRows(read[1]);
      findings = migrationsFindings(plan.migrations, read, this.migrationsBefore);
    }
    if (!this.boardedBaselineOnly) this.judgement = rowsJudgement(plan, results, findings);
  }

  /** A request changed the database without carrying the reads: what they said is out of date. */
  missed(): void {
    this.boardedAfterWrites = true;
    this.judgement = undefined;
  }

  /** What the last reads said, when nothing changed the database after them. */
  result(): Inventory | undefined {
    return this.judgement;
  }

  /** Reads what is left in requests of its own: one for the schema, then the counts (split if long). */
  async read(api: CloudflareApi, databaseId: string): Promise<Inventory> {
    for (let attempt = 1; attempt <= MAX_READS; attempt++) {
      const reads = this.board(this.boardedAfterWrites);
      const results: D1StatementResult[] = [];
      for (let start = 0; start < reads.length; start += MAX_STATEMENTS)
        results.push(...(await queryD1(api, databaseId, reads.slice(start, start + MAX_STATEMENTS))));
      this.alight(results);
      const judged = this.result();
      if (judged !== undefined) return judged;
    }
    return {
      state: 'left',
      summary: `the schema changed in each of ${MAX_READS} reads`,
      items: ['something is still writing to the database'],
    };
  }
}

/** What is left of the database whose uuid is `databaseId`, read on its own. */
export function readD1Inventory(
  api: CloudflareApi,
  databaseId: string,
  mode: 'rows' | 'drop',
): Promise<Inventory> {
  return new D1Inventory(mode).read(api, databaseId);
}

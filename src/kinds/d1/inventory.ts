// What is left of a D1 database, read back by code that shares no table list and no filter with the
// erase (docs/design.md#what-is-left). It reads every object of `sqlite_schema` and every table of
// `PRAGMA table_list`, counts the rows of each table, and reads each FTS5 index's own storage: an
// external-content index answers `count(*)` from its content table, so 0 there says nothing of the
// tokens still in its index.
//
// Exempt, and only these (docs/cloudflare.md#d1-what-not-to-touch): SQLite's own `sqlite_*` objects,
// D1's own `_cf_*` tables, `d1_migrations` in rows mode (the schema's record, kept with it), views
// (they hold no rows), fts5vocab tables (a view of another index), and shadow tables matched exactly to
// a virtual table of this database: FTS5's `_data`, `_idx`, `_content`, `_docsize`, `_config` and
// R*Tree's `_node`, `_parent`, `_rowid`, read through their virtual table. In drop mode any object
// but SQLite's and D1's own is left.
//
// Its reads ride in the erase's own requests where they can (the erase carries them as a passenger,
// at the end of its first request and of a request after which it may be done), so an erase costs
// no request more; otherwise `readD1Inventory` reads in a request or two of its own.

import type { CloudflareApi } from '../../cloudflare/client.ts';
import { plural } from '../../text/words.ts';
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
  /** 'rows' checks add up to the summary's rows; 'index' ones are tokens in an FTS5 index. */
  counts: 'rows' | 'index';
  /** The table or index it belongs to. */
  owner: string;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const field = (value: unknown) => (typeof value === 'string' ? value : value == null ? '' : String(value));

function isSqlitesOrD1s(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('sqlite_') || lower.startsWith('_cf_');
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
  tables: number;
  indexes: number;
}

/** The tables of the snapshot, by lower-cased name: table_list's, and any sqlite_schema has beside. */
function tablesOf(snapshot: Snapshot): Map<string, { name: string; type: string; module: string }> {
  const sqlOf = new Map(snapshot.objects.map((object) => [object.name.toLowerCase(), object.sql]));
  const tables = new Map<string, { name: string; type: string; module: string }>();
  for (const { schema, name, type } of snapshot.listed) {
    if (schema !== 'main') continue;
    const module = type === 'virtual' ? moduleOf(sqlOf.get(name.toLowerCase()) ?? '') : '';
    tables.set(name.toLowerCase(), { name, type, module });
  }
  // Tables sqlite_schema names that table_list left out are read all the same.
  for (const object of snapshot.objects) {
    const key = object.name.toLowerCase();
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
      shadowSuffixes(table.module).some(
        (suffix) => shadow.toLowerCase() === `${table.name.toLowerCase()}_${suffix}`,
      ),
    );
  const isShadow = (name: string) => tables.get(name.toLowerCase())?.type === 'shadow';
  const exempt = (name: string, type: string) =>
    isSqlitesOrD1s(name) ||
    type === 'view' ||
    (mode === 'rows' && name.toLowerCase() === 'd1_migrations') ||
    (type === 'shadow' && ownedByVirtualTable(name));

  const reading: Reading = { checks: [], unreadable: [], tables: 0, indexes: 0 };
  for (const { name, type, module } of tables.values()) {
    if (exempt(name, type) || module === 'fts5vocab') continue;
    if (type !== 'virtual') {
      reading.tables++;
      reading.checks.push(count(name, name, `table ${name}`, 'rows'));
    } else if (module === 'rtree' || module === 'rtree_i32') {
      reading.tables++;
      reading.checks.push(
        count(name, name, `R*Tree ${name}`, 'rows'),
        count(`${name}_rowid`, name, `R*Tree ${name}`, 'rows', 'stored entry', 'stored entries'),
      );
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
  const named = new Set(snapshot.objects.map((object) => object.name.toLowerCase()));
  const left = [
    ...snapshot.objects
      .filter((object) => !isSqlitesOrD1s(object.name))
      .map((object) => `${object.type} ${object.name}`),
    ...snapshot.listed
      .filter(
        (table) =>
          table.schema === 'main' && !isSqlitesOrD1s(table.name) && !named.has(table.name.toLowerCase()),
      )
      .map((table) => `${table.type} ${table.name}`),
  ];
  if (left.length === 0) return { state: 'empty', summary: '0 schema objects' };
  return { state: 'left', summary: plural(left.length, 'schema object'), items: someItems(left) };
}

function rowsJudgement(plan: Reading, results: readonly D1StatementResult[]): Inventory {
  const items: string[] = [...plan.unreadable];
  const tablesWithRows = new Set<string>();
  const indexesWithTokens = new Set<string>();
  let rows = 0;
  plan.checks.forEach((check, index) => {
    const n = Number(results[index]?.results[0]?.n);
    if (!Number.isFinite(n))
      throw new StepError('invalid-answer', 'D1 answered a count that is not a number');
    if (n === 0) return;
    items.push(check.what(n));
    if (check.counts === 'index') indexesWithTokens.add(check.owner);
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
  return {
    state: 'left',
    summary: `${plural(rows, 'row')} in ${tablesWithRows.size} of ${tables}${indexes}`,
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

  constructor(mode: 'rows' | 'drop') {
    this.mode = mode;
  }

  /** The reads to carry now: the schema first, then (rows mode) the counts and the schema again. */
  board(): D1Statement[] {
    if (this.mode === 'drop' || this.snapshot === undefined) return [...SCHEMA_STATEMENTS];
    return [...readingOf(this.snapshot, this.mode).checks.map(({ sql }) => ({ sql })), ...SCHEMA_STATEMENTS];
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
      this.judgement = plan.checks.length === 0 ? rowsJudgement(plan, []) : undefined;
      return;
    }
    const plan = readingOf(this.snapshot, this.mode);
    const again = snapshotOf(results.slice(plan.checks.length));
    const same = again.fingerprint === this.snapshot.fingerprint;
    this.judgement = same ? rowsJudgement(plan, results) : undefined;
    this.snapshot = again;
  }

  /** A request changed the database without carrying the reads: what they said is out of date. */
  missed(): void {
    this.judgement = undefined;
  }

  /** What the last reads said, when nothing changed the database after them. */
  result(): Inventory | undefined {
    return this.judgement;
  }

  /** Reads what is left in requests of its own: one for the schema, then the counts (split if long). */
  async read(api: CloudflareApi, databaseId: string): Promise<Inventory> {
    for (let attempt = 1; attempt <= MAX_READS; attempt++) {
      const reads = this.board();
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

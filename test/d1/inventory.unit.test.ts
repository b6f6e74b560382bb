// The D1 inventory on its own, against databases a tenant left something in: it names each table with
// rows and each FTS5 index with tokens, exempts only what docs/cloudflare.md#d1-what-not-to-touch
// says, sees the tokens of an external-content index whose table is empty, and does not believe
// counts of a schema that changed while it read them.
import { describe, expect, it } from 'vitest';
import { queryD1 } from '../../src/kinds/d1/api.ts';
import { D1Inventory, readD1Inventory } from '../../src/kinds/d1/inventory.ts';
import { inProcessTwin, newRun } from '../cloudflare/in-process-twin.ts';
import { seedDatabase } from './support.ts';
import { numbers, WRANGLER_MIGRATIONS } from './zoo.ts';

const LEFTOVERS = `${WRANGLER_MIGRATIONS}
CREATE VIRTUAL TABLE docs USING fts5(body);
CREATE TABLE docs_meta (doc_id INTEGER PRIMARY KEY, author TEXT);
${numbers(12, "INSERT INTO docs_meta SELECT i, 'ana' FROM n")}
CREATE TABLE posts (id INTEGER PRIMARY KEY, body TEXT);
CREATE VIRTUAL TABLE posts_fts USING fts5(body, content='posts', content_rowid='id');
${numbers(3, "INSERT INTO posts SELECT i, 'hello ' || i FROM n")}
INSERT INTO posts_fts(posts_fts) VALUES ('rebuild');
DELETE FROM posts;
CREATE VIEW authors AS SELECT DISTINCT author FROM docs_meta;
CREATE VIRTUAL TABLE places USING rtree(id, x0, x1);
CREATE VIRTUAL TABLE docs_terms USING fts5vocab(docs, 'row');`;

async function inventoryOf(sql: string, mode: 'rows' | 'drop' = 'rows') {
  const env = inProcessTwin();
  const name = seedDatabase(env, 'inv', sql);
  const run = newRun(env);
  env.twin.resetRequests();
  const id = env.twin.d1.find(name)?.uuid ?? '';
  const inventory = await readD1Inventory(run.api, id, mode);
  return { env, name, inventory, requests: env.twin.requests().length };
}

describe('the D1 inventory', () => {
  it('names each table with rows and each index with tokens, including an external-content index whose table is empty', async () => {
    const { inventory, requests } = await inventoryOf(LEFTOVERS);
    expect(inventory).toEqual({
      state: 'left',
      summary:
        "12 rows in 1 of 3 tables, 1 of 2 FTS5 indexes with tokens, SQLite's sqlite_sequence not empty",
      items: [
        'table docs_meta: 12 rows',
        // wrangler's AUTOINCREMENT counter of d1_migrations: the rows erase empties it too.
        "SQLite's sqlite_sequence: 1 row",
        'FTS5 index posts_fts: 1 page of tokens',
        'FTS5 index posts_fts: 1 segment entry',
        'FTS5 index posts_fts: 3 indexed documents',
      ],
    });
    // The schema, then the counts with the schema again.
    expect(requests).toBe(2);
  });

  it('says empty when nothing but the exempt objects hold rows', async () => {
    const { inventory } = await inventoryOf(`${WRANGLER_MIGRATIONS}
DELETE FROM sqlite_sequence;
CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER);
INSERT INTO orders (total) VALUES (1); DELETE FROM orders;
CREATE VIRTUAL TABLE docs USING fts5(body);
CREATE VIEW totals AS SELECT count(*) AS n FROM orders;`);
    // _cf_KV is D1's, d1_migrations the schema's (wrangler's columns, its rows as read); sqlite_sequence
    // is there, and empty.
    expect(inventory).toEqual({ state: 'empty', summary: '0 rows in 1 table, 0 tokens in 1 FTS5 index' });
  });

  it("reads SQLite's statistics and sequences: counters, table names and sample rows are left", async () => {
    const { inventory } =
      await inventoryOf(`CREATE TABLE payments (id INTEGER PRIMARY KEY AUTOINCREMENT, iban TEXT);
CREATE INDEX payments_by_iban ON payments (iban);
${numbers(20, "INSERT INTO payments (iban) SELECT 'DE-' || i FROM n")}
ANALYZE; DELETE FROM payments;`);
    expect(inventory).toEqual({
      state: 'left',
      summary: "0 rows in 0 of 1 table, SQLite's sqlite_stat1 and sqlite_sequence not empty",
      items: ["SQLite's sqlite_stat1: 1 row", "SQLite's sqlite_sequence: 1 row"],
    });
  });

  it('keys names as SQLite does: "Ä" and "ä" are two tables, whichever one has the rows', async () => {
    for (const [full, empty] of [
      ['Ä', 'ä'],
      ['é', 'É'],
    ]) {
      const { inventory } = await inventoryOf(`CREATE TABLE "${full}" (id INTEGER PRIMARY KEY);
CREATE TABLE "${empty}" (id INTEGER PRIMARY KEY);
${numbers(4, `INSERT INTO "${full}" SELECT i FROM n`)}`);
      expect(inventory).toEqual({
        state: 'left',
        summary: '4 rows in 1 of 2 tables',
        items: [`table ${full}: 4 rows`],
      });
    }
  });

  it('reads R*Tree entries and FTS5 tokens through their own tables', async () => {
    const { inventory } = await inventoryOf(`CREATE VIRTUAL TABLE places USING rtree(id, x0, x1);
CREATE VIRTUAL TABLE notes USING fts5(body, content='');
${numbers(5, 'INSERT INTO places SELECT i, i, i + 1 FROM n')}
INSERT INTO notes (rowid, body) VALUES (1, 'secret');`);
    expect(inventory).toEqual({
      state: 'left',
      summary: '11 rows in 1 of 1 table, 1 of 1 FTS5 index with tokens',
      items: [
        'FTS5 index notes: 1 page of tokens',
        'FTS5 index notes: 1 segment entry',
        'FTS5 index notes: 1 indexed document',
        'R*Tree places: 5 rows',
        'R*Tree places: 5 stored entries',
        "R*Tree places: 1 node holding entries' bytes",
      ],
    });
  });

  it("reads the bytes deleted entries leave in an R*Tree's root", async () => {
    const { inventory } = await inventoryOf(`CREATE VIRTUAL TABLE places USING rtree(id, x0, x1);
CREATE VIRTUAL TABLE fresh USING rtree(id, x0, x1);
INSERT INTO places VALUES (7, 1.5, 2.5); DELETE FROM places;`);
    expect(inventory).toEqual({
      state: 'left',
      summary: '1 row in 1 of 2 tables',
      items: ["R*Tree places: 1 node holding entries' bytes"],
    });
  });

  it("takes d1_migrations for wrangler's only with wrangler's columns", async () => {
    const { inventory } =
      await inventoryOf(`CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY, name TEXT, payload TEXT);
INSERT INTO d1_migrations (name, payload) VALUES ('0001_init.sql', 'tenant data');`);
    expect(inventory).toEqual({
      state: 'left',
      summary: '0 rows in 0 of 0 tables, d1_migrations not as wrangler wrote it',
      items: ["table d1_migrations: columns id, name, payload, not wrangler's (id, name, applied_at)"],
    });
  });

  it('in drop mode, names every object left, d1_migrations included', async () => {
    const { inventory } = await inventoryOf(
      `CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY);
CREATE TABLE orders (id INTEGER PRIMARY KEY);
CREATE INDEX orders_by_id ON orders (id);`,
      'drop',
    );
    expect(inventory).toEqual({
      state: 'left',
      summary: '3 schema objects',
      items: ['index orders_by_id', 'table d1_migrations', 'table orders'],
    });
  });

  it('finds a row an erase let into d1_migrations, against its rows read before the erase', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'smuggled',
      `${WRANGLER_MIGRATIONS}
DELETE FROM sqlite_sequence;
CREATE TABLE secrets (id INTEGER PRIMARY KEY, body TEXT);`,
    );
    const id = env.twin.d1.find(name)?.uuid ?? '';
    const { api } = newRun(env);
    const inventory = new D1Inventory('rows');
    // As a passenger: the schema with the erase's first request, the rest with a read of the erase's
    // before any write, then again at the end of the erase's last (writing) request.
    const ride = async (afterWrites: boolean) =>
      inventory.alight(await queryD1(api, id, inventory.board(afterWrites)));
    await ride(false);
    await ride(false);
    expect(inventory.result()?.state).toBe('empty');
    env.twin.seed({
      d1: [{ name, sql: "INSERT INTO d1_migrations (name) VALUES ('smuggled: tenant secret');" }],
    });
    await ride(true);
    expect(inventory.result()).toEqual({
      state: 'left',
      summary:
        "0 rows in 0 of 1 table, d1_migrations not as wrangler wrote it, SQLite's sqlite_sequence not empty",
      // The insert also counted in sqlite_sequence.
      items: ['table d1_migrations: 1 row not there before the erase', "SQLite's sqlite_sequence: 1 row"],
    });
  });

  it('does not take d1_migrations for clean when it was not read before the erase wrote', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'unread',
      `${WRANGLER_MIGRATIONS}
DELETE FROM sqlite_sequence;`,
    );
    const id = env.twin.d1.find(name)?.uuid ?? '';
    const { api } = newRun(env);
    const inventory = new D1Inventory('rows');
    inventory.alight(await queryD1(api, id, inventory.board(false)));
    inventory.missed();
    expect(await inventory.read(api, id)).toMatchObject({
      state: 'left',
      items: ['table d1_migrations: 2 rows not read before the erase to compare'],
    });
  });

  it('flags a virtual table of a module it cannot read, never calling it clean', () => {
    // D1 allows no module but FTS5 and R*Tree (the twin refuses others too): the answers are written here.
    const inventory = new D1Inventory('rows');
    inventory.board(false);
    inventory.alight([
      {
        changes: 0,
        results: [
          {
            type: 'table',
            name: 'legacy',
            tbl_name: 'legacy',
            sql: 'CREATE VIRTUAL TABLE legacy USING fts4(body)',
          },
        ],
      },
      {
        changes: 0,
        results: [{ schema: 'main', name: 'legacy', type: 'virtual', ncol: 1, wr: 0, strict: 0 }],
      },
    ]);
    expect(inventory.result()).toEqual({
      state: 'left',
      summary: '0 rows in 0 of 0 tables',
      items: ['virtual table legacy (fts4): cannot be read back'],
    });
  });

  it('does not believe counts of a schema that changed while it read them, and reads again', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(env, 'moving', 'CREATE TABLE a (id INTEGER PRIMARY KEY);');
    const id = env.twin.d1.find(name)?.uuid ?? '';
    // A table appears, with rows, between the inventory's schema read and its counts.
    let queries = 0;
    const fetch = env.fetch;
    env.fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (++queries === 1)
        env.twin.seed({
          d1: [{ name, sql: 'CREATE TABLE b (id INTEGER PRIMARY KEY); INSERT INTO b VALUES (1);' }],
        });
      return response;
    };
    const inventory = await readD1Inventory(newRun(env).api, id, 'rows');
    expect(inventory).toEqual({
      state: 'left',
      summary: '1 row in 1 of 2 tables',
      items: ['table b: 1 row'],
    });
    expect(queries).toBe(3);
  });
});

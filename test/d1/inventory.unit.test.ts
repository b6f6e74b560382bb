// The D1 inventory on its own, against databases a tenant left something in: it names each table with
// rows and each FTS5 index with tokens, exempts only what docs/cloudflare.md#d1-what-not-to-touch
// says, sees the tokens of an external-content index whose table is empty, and does not believe
// counts of a schema that changed while it read them.
import { describe, expect, it } from 'vitest';
import { readD1Inventory } from '../../src/kinds/d1/inventory.ts';
import { inProcessTwin, newRun } from '../cloudflare/in-process-twin.ts';
import { seedDatabase } from './support.ts';
import { numbers } from './zoo.ts';

const LEFTOVERS = `CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO d1_migrations (name) VALUES ('0001_init.sql');
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
      summary: '12 rows in 1 of 3 tables, 1 of 2 FTS5 indexes with tokens',
      items: [
        'table docs_meta: 12 rows',
        'FTS5 index posts_fts: 1 page of tokens',
        'FTS5 index posts_fts: 1 segment entry',
        'FTS5 index posts_fts: 3 indexed documents',
      ],
    });
    // The schema, then the counts with the schema again.
    expect(requests).toBe(2);
  });

  it('says empty when nothing but the exempt objects hold rows', async () => {
    const { inventory } = await inventoryOf(`CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO d1_migrations (name) VALUES ('0001_init.sql');
CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, total INTEGER);
INSERT INTO orders (total) VALUES (1); DELETE FROM orders;
CREATE VIRTUAL TABLE docs USING fts5(body);
CREATE VIEW totals AS SELECT count(*) AS n FROM orders;`);
    // sqlite_sequence keeps the AUTOINCREMENT counter, _cf_KV is D1's, d1_migrations the schema's.
    expect(inventory).toEqual({ state: 'empty', summary: '0 rows in 1 table, 0 tokens in 1 FTS5 index' });
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

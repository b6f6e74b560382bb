// The D1 erase on the schemas real apps have, one case for each way the erase used to leave a tenant's
// data behind or fail for good: a table named like an FTS5 shadow table, a contentless FTS5 index, an
// external-content index whose tokens outlived their rows, triggers that write on delete, and a table
// too big for one request. Each runs the real erase against the twin's real SQLite; what is left is
// read by the oracle (test/d1/oracle.ts) and by the queries an app would run.
import { describe, expect, it } from 'vitest';
import { eraseDatabase, oracle, seedDatabase } from '../d1/support.ts';
import { numbers, WRANGLER_MIGRATIONS } from '../d1/zoo.ts';
import { inProcessTwin } from './in-process-twin.ts';

function rowsOf(env: ReturnType<typeof inProcessTwin>, database: string, sql: string) {
  return env.twin.d1.find(database)?.select(sql);
}

describe('an ordinary table named after an FTS5 table', () => {
  it('is emptied like any table: docs_meta beside docs, search_history beside search', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'p1',
      `CREATE VIRTUAL TABLE docs USING fts5(body);
CREATE TABLE docs_meta (doc_id INTEGER PRIMARY KEY, author TEXT);
CREATE VIRTUAL TABLE search USING fts5(q);
CREATE TABLE search_history (id INTEGER PRIMARY KEY, q TEXT);
INSERT INTO docs (body) VALUES ('quarterly numbers');
${numbers(12, "INSERT INTO docs_meta SELECT i, 'ana' FROM n")}
${numbers(7, "INSERT INTO search_history (q) SELECT 'salary ' || i FROM n")}`,
    );
    const { result, step } = await eraseDatabase(env, 'p1');

    expect(result.status).toBe('complete');
    expect(step.summary).toBe(
      'deleted 20 rows in 3 tables, emptied 1 FTS5 index; kept the schema (4 tables)',
    );
    expect(rowsOf(env, name, 'SELECT count(*) AS n FROM docs_meta')).toEqual([{ n: 0 }]);
    expect(rowsOf(env, name, 'SELECT count(*) AS n FROM search_history')).toEqual([{ n: 0 }]);
    expect(oracle(env.twin.d1, name)).toEqual([]);
    expect(step.inventory).toEqual({
      state: 'empty',
      summary: '0 rows in 2 tables, 0 tokens in 2 FTS5 indexes',
    });
  });
});

describe('a contentless FTS5 index', () => {
  it('is emptied with its delete-all command, where a DELETE fails the whole request', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'p2',
      `CREATE VIRTUAL TABLE notes_index USING fts5(body, content='');
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
${numbers(30, "INSERT INTO notes SELECT i, 'private note ' || i FROM n")}
INSERT INTO notes_index (rowid, body) SELECT id, body FROM notes;`,
    );
    const { result, step } = await eraseDatabase(env, 'p2');

    expect(result.status).toBe('complete');
    expect(step.summary).toBe('deleted 30 rows in 1 table, emptied 1 FTS5 index; kept the schema (2 tables)');
    expect(rowsOf(env, name, "SELECT rowid FROM notes_index WHERE notes_index MATCH 'private'")).toEqual([]);
    expect(oracle(env.twin.d1, name)).toEqual([]);
  });
});

describe('an external-content FTS5 index without sync triggers', () => {
  it('loses its tokens with its content table: MATCH finds no old row', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'p3',
      `CREATE TABLE posts (id INTEGER PRIMARY KEY, body TEXT);
CREATE VIRTUAL TABLE posts_fts USING fts5(body, content='posts', content_rowid='id');
${numbers(40, "INSERT INTO posts SELECT i, 'hello tenant ' || i FROM n")}
INSERT INTO posts_fts(posts_fts) VALUES ('rebuild');`,
    );
    const { result, step } = await eraseDatabase(env, 'p3');

    expect(result.status).toBe('complete');
    expect(rowsOf(env, name, "SELECT rowid FROM posts_fts WHERE posts_fts MATCH 'hello'")).toEqual([]);
    expect(oracle(env.twin.d1, name)).toEqual([]);
    expect(step.inventory?.state).toBe('empty');
  });
});

describe('triggers that write on delete', () => {
  it('an AFTER DELETE audit trigger into an earlier-sorting audit_log: the audit rows are deleted in the same run', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'p4',
      `CREATE TABLE audit_log (id INTEGER PRIMARY KEY, what TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER);
CREATE TRIGGER orders_audit AFTER DELETE ON orders BEGIN INSERT INTO audit_log (what) VALUES ('deleted ' || old.id); END;
${numbers(25, 'INSERT INTO orders SELECT i, i FROM n')}`,
    );
    const { result, step } = await eraseDatabase(env, 'p4');

    expect(result.status).toBe('complete');
    expect(step.summary).toBe('deleted 25 rows in 1 table; kept the schema (2 tables, 1 trigger)');
    expect(rowsOf(env, name, 'SELECT count(*) AS n FROM audit_log')).toEqual([{ n: 0 }]);
    // The schema stays: the next tenant's deletes are audited too.
    expect(rowsOf(env, name, "SELECT name FROM sqlite_schema WHERE type = 'trigger'")).toEqual([
      { name: 'orders_audit' },
    ]);
  });

  it('a trigger that writes a row back on every delete runs on no erase: the table is emptied, the trigger kept', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'p4b',
      `CREATE TABLE jobs (id INTEGER PRIMARY KEY, state TEXT);
CREATE TRIGGER jobs_requeue AFTER DELETE ON jobs BEGIN INSERT INTO jobs (state) VALUES ('again'); END;
INSERT INTO jobs (state) VALUES ('queued');`,
    );
    const { result, step } = await eraseDatabase(env, 'p4b');

    expect(result.status).toBe('complete');
    expect(step.summary).toBe('deleted 1 row in 1 table; kept the schema (1 table, 1 trigger)');
    expect(oracle(env.twin.d1, name)).toEqual([]);
    expect(rowsOf(env, name, "SELECT name FROM sqlite_schema WHERE type = 'trigger'")).toEqual([
      { name: 'jobs_requeue' },
    ]);
  });
});

describe('a table too big for one request', () => {
  it('is deleted in chunks over as many requests as the budget allows, deferred, and finished by the next run', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'p5',
      `CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT, at INTEGER);
CREATE INDEX events_by_kind ON events (kind, at);
${numbers(200_000, "INSERT INTO events SELECT i, 'k' || (i % 13), i FROM n")}`,
    );
    // The listing, the schema, the counts and two requests of deletes.
    const first = await eraseDatabase(env, 'p5', { pacer: { budget: 5 } });
    expect(first.result.status).toBe('deferred');
    expect(first.step).toMatchObject({
      status: 'failed',
      summary: "deleted 100,000 of 200,000 rows, then stopped: the run's request budget is used up",
      failure: { reason: 'budget' },
    });
    const refusedFirst = env.twin.requests().filter((request) => request.status !== 200);
    expect(rowsOf(env, name, 'SELECT count(*) AS n FROM events')).toEqual([{ n: 100_000 }]);

    const second = await eraseDatabase(env, 'p5');
    expect(second.result.status).toBe('complete');
    expect(second.step.summary).toBe('deleted 100,000 rows in 1 table; kept the schema (1 table)');
    expect(oracle(env.twin.d1, name)).toEqual([]);
    // No request was refused on the way: each statement and each request stayed within the limits.
    expect(refusedFirst).toEqual([]);
    expect(env.twin.requests().filter((request) => request.status !== 200)).toEqual([]);
  });
});

describe("SQLite's counters and statistics", () => {
  it('are emptied within the requests the rows take, none more', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'p6',
      `${WRANGLER_MIGRATIONS}
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT);
CREATE INDEX events_by_kind ON events (kind);
${numbers(100_000, "INSERT INTO events (kind) SELECT 'k' || (i % 13) FROM n")}
ANALYZE;`,
    );
    const { result, step } = await eraseDatabase(env, 'p6');

    expect(result.status).toBe('complete');
    expect(step.summary).toBe(
      "deleted 100,000 rows in 1 table, emptied SQLite's sqlite_sequence and sqlite_stat1; kept the schema (1 table) and d1_migrations",
    );
    // 50,000 rows a request: two requests, the counters and statistics in the first.
    expect(step.details).toMatchObject({ writeRequests: 2 });
    expect(oracle(env.twin.d1, name)).toEqual([]);
  });
});

describe('drop mode', () => {
  it('drops a table named like a shadow table, and the FTS5 index with its own tables', async () => {
    const env = inProcessTwin();
    const name = seedDatabase(
      env,
      'drop1',
      `CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY, name TEXT);
CREATE VIRTUAL TABLE docs USING fts5(body);
CREATE TABLE docs_meta (doc_id INTEGER PRIMARY KEY, author TEXT);
CREATE TABLE replies (id INTEGER PRIMARY KEY, doc_id INTEGER REFERENCES docs_meta(doc_id) ON DELETE RESTRICT);
INSERT INTO docs (body) VALUES ('secret'); INSERT INTO docs_meta VALUES (1, 'ana'); INSERT INTO replies VALUES (1, 1);`,
    );
    const { result, step } = await eraseDatabase(env, 'drop1', { mode: 'drop' });

    expect(result.status).toBe('complete');
    expect(step.summary).toBe('dropped 4 tables');
    expect(oracle(env.twin.d1, name, 'drop')).toEqual([]);
    expect(step.inventory).toEqual({ state: 'empty', summary: '0 schema objects' });
  });
});

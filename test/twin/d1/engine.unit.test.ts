// The twin's D1 database against the rules docs/twin.md#d1 gives their sources: workerd's authorizer
// (PRAGMAs, table-valued pragmas, virtual table modules, `_cf_*`), defensive mode on shadow tables,
// workerd's limits, `meta.changes` as D1 counts it, and the twin's stand-ins for the per-statement
// and per-request limits, through the routes as the API answers them.
import Cloudflare, { APIError } from 'cloudflare';
import { describe, expect, it } from 'vitest';
import { BASE_URL, inProcessTwin } from '../../cloudflare/in-process-twin.ts';
import { D1_STAND_IN_LIMITS } from './engine.ts';

const SEED = `CREATE TABLE orders (id INTEGER PRIMARY KEY, total INTEGER);
CREATE TABLE audit_log (id INTEGER PRIMARY KEY, what TEXT);
CREATE TRIGGER orders_audit AFTER DELETE ON orders BEGIN INSERT INTO audit_log (what) VALUES ('order ' || old.id); END;
CREATE VIRTUAL TABLE docs USING fts5(body);
INSERT INTO docs (body) VALUES ('hello');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000) INSERT INTO orders SELECT i, i FROM n;`;

function database() {
  const env = inProcessTwin();
  env.twin.seed({ d1: [{ name: 'rules-db', sql: SEED }] });
  const sdk = new Cloudflare({
    apiToken: env.twin.token,
    baseURL: BASE_URL,
    maxRetries: 0,
    fetch: env.fetch,
  });
  const id = env.twin.d1.find('rules-db')?.uuid ?? '';
  const account_id = env.twin.accountId;
  const query = (sql: string) => sdk.d1.database.query(id, { account_id, sql });
  const batch = (statements: string[]) =>
    sdk.d1.database.query(id, { account_id, batch: statements.map((sql) => ({ sql })) });
  return { env, query, batch };
}

async function refusal(call: Promise<unknown>): Promise<{ status: number | undefined; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof APIError) {
      const [first] = error.errors as { message?: string }[];
      return { status: error.status, message: first?.message ?? '' };
    }
    throw error;
  }
  throw new Error('the call was not refused');
}

describe("the twin's D1 authorizer (workerd's rules)", () => {
  it('allows the PRAGMAs D1 allows, refuses the others and any naming a _cf_ table', async () => {
    const { query } = database();
    const listed = await query('PRAGMA table_list');
    expect(listed.result[0]?.results).toContainEqual(
      expect.objectContaining({ name: 'docs_data', type: 'shadow' }),
    );
    expect((await query('PRAGMA table_xinfo("orders")')).result[0]?.results).toHaveLength(2);
    expect((await query('PRAGMA foreign_key_list(orders)')).result[0]?.results).toEqual([]);
    expect((await query('PRAGMA defer_foreign_keys = on')).result).toHaveLength(1);
    for (const sql of ['PRAGMA integrity_check', 'PRAGMA table_info(_cf_KV)', 'PRAGMA page_size = 8192']) {
      expect(await refusal(query(sql)), sql).toEqual({ status: 400, message: 'not authorized: SQLITE_AUTH' });
    }
  });

  it('authorizes a table-valued pragma by its argument, so a join over sqlite_schema must leave out _cf_KV', async () => {
    const { query } = database();
    const everyTable =
      "SELECT m.name, p.name AS col FROM sqlite_schema m, pragma_table_info(m.name) p WHERE m.type = 'table'";
    expect(await refusal(query(everyTable))).toEqual({ status: 400, message: 'not authorized: SQLITE_AUTH' });
    const withoutD1s = await query(`${everyTable} AND m.name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`);
    expect(withoutD1s.result[0]?.results).toContainEqual({ name: 'orders', col: 'total' });
  });

  it('creates virtual tables of fts5, fts5vocab, rtree and rtree_i32 only', async () => {
    const { query } = database();
    for (const sql of [
      'CREATE VIRTUAL TABLE notes USING fts5(body)',
      "CREATE VIRTUAL TABLE notes_terms USING fts5vocab(notes, 'row')",
      'CREATE VIRTUAL TABLE places USING rtree(id, x0, x1)',
      'CREATE VIRTUAL TABLE tiles USING rtree_i32(id, x0, x1)',
    ])
      await query(sql);
    for (const sql of [
      'CREATE VIRTUAL TABLE old USING fts4(body)',
      'CREATE VIRTUAL TABLE shapes USING geopoly()',
    ])
      expect(await refusal(query(sql)), sql).toEqual({ status: 400, message: 'not authorized: SQLITE_AUTH' });
  });

  it("keeps shadow tables read-only and refuses functions, temp tables and compound selects D1's SQLite refuses", async () => {
    const { query } = database();
    expect((await query('SELECT count(*) AS n FROM docs_content')).result[0]?.results).toEqual([{ n: 1 }]);
    expect(await refusal(query("INSERT INTO docs_data VALUES (99, x'00')"))).toEqual({
      status: 400,
      message: 'table docs_data may not be modified: SQLITE_ERROR',
    });
    expect((await refusal(query('SELECT sqlite_version()'))).message).toMatch(/not authorized/);
    expect((await refusal(query('CREATE TEMP TABLE scratch (a)'))).message).toBe(
      'not authorized: SQLITE_AUTH',
    );
    expect(
      (
        await refusal(
          query(
            'SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5 UNION SELECT 6 UNION SELECT 7',
          ),
        )
      ).message,
    ).toBe('too many terms in compound SELECT: SQLITE_ERROR');
  });
});

describe("the twin's D1 counts and limits", () => {
  it('counts trigger writes in meta.changes, as sqlite3_total_changes() does', async () => {
    const { query } = database();
    const deleted = await query('DELETE FROM orders WHERE id <= 10');
    expect(deleted.result[0]?.meta?.changes).toBe(20);
  });

  it('refuses a statement that changes more rows than its stand-in allows, and rolls the request back', async () => {
    const { env, query } = database();
    const tooMany = await refusal(query('DELETE FROM orders'));
    expect(tooMany.status).toBe(500);
    expect(tooMany.message).toMatch(
      /^internal error: one statement changed 30000 rows, more than the 10000 the twin allows/,
    );
    const chunk = `DELETE FROM orders WHERE id IN (SELECT id FROM orders ORDER BY id DESC LIMIT ${D1_STAND_IN_LIMITS.rowsPerStatement})`;
    await query(chunk);
    expect(env.twin.d1.find('rules-db')?.select('SELECT count(*) AS n FROM orders')).toEqual([{ n: 20_000 }]);
  });

  it('refuses a request whose statements change more rows than its stand-in allows, or that has too many statements', async () => {
    const { env, batch } = database();
    env.twin.seed({
      d1: [
        {
          name: 'rules-db',
          sql: 'WITH RECURSIVE n(i) AS (SELECT 30001 UNION ALL SELECT i + 1 FROM n WHERE i < 110000) INSERT INTO orders SELECT i, i FROM n;',
        },
      ],
    });
    const chunk = 'DELETE FROM orders WHERE id IN (SELECT id FROM orders ORDER BY id DESC LIMIT 10000)';
    const overRows = await refusal(batch(Array.from({ length: 11 }, () => chunk)));
    expect(overRows.status).toBe(500);
    expect(overRows.message).toMatch(/this request changed 110000 rows, more than the 100000/);
    const overStatements = await refusal(
      batch(Array.from({ length: D1_STAND_IN_LIMITS.statementsPerRequest + 1 }, () => 'SELECT 1')),
    );
    expect(overStatements).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^a request of 1001 statements, more than the 1000/),
    });
    expect(env.twin.d1.find('rules-db')?.select('SELECT count(*) AS n FROM orders')).toEqual([
      { n: 110_000 },
    ]);
  });

  it('stops triggers and cascades at 10 levels, as workerd limits them', async () => {
    const { env, query } = database();
    env.twin.seed({
      d1: [
        {
          name: 'rules-db',
          sql: `CREATE TABLE chain (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES chain(id) ON DELETE CASCADE);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12) INSERT INTO chain SELECT i, CASE WHEN i > 1 THEN i - 1 END FROM n;`,
        },
      ],
    });
    expect((await refusal(query('DELETE FROM chain WHERE id = 1'))).message).toBe(
      'too many levels of trigger recursion: SQLITE_ERROR',
    );
    await query('DELETE FROM chain WHERE id = 4');
    expect(env.twin.d1.find('rules-db')?.select('SELECT count(*) AS n FROM chain')).toEqual([{ n: 3 }]);
  });
});

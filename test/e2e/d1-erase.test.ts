// The D1 erase through the bundled action: gc over dirty slots whose databases are schemas from the
// zoo (test/d1/zoo.ts), against the real semaphore and the Cloudflare twin. A slot is released clean
// only where the oracle, reading a copy of its database with plain SQLite, finds nothing: no trigger
// of the tenant's runs during the erase, so one that writes a row back on every delete, or copies it
// into d1_migrations, moves nothing; a 200,000-row table too big for one run's budget is deferred and
// finished by the next run.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoPool } from '../../demo/fixture.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { oracle } from '../d1/support.ts';
import { numbers, ZOO } from '../d1/zoo.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { expectNoLeaks } from '../support/action-stack.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const TOKENS = { semaphore: 'sem-d1-3c9e51a7f2', cloudflare: 'cf-d1-84b2e6d01c' };

/** The zoo's schemas by slot: the points 1 to 5 (and the refill of point 4). */
const SLOTS: Record<string, string> = {
  'fts-meta': 'FTS5 docs beside docs_meta, search beside search_history',
  contentless: 'contentless FTS5 indexes (plain, columnsize=0, contentless_delete=1)',
  external: 'external-content FTS5 without sync triggers (rebuilt by the app)',
  audit: 'AFTER DELETE audit trigger writing into an earlier-sorting audit_log',
  requeue: 'a trigger that puts back every row it sees deleted',
  smuggle: "a tenant's trigger that copies each deleted row into d1_migrations",
  names: 'names as SQLite compares them: one-sided non-ASCII pairs, ASCII case, quotes',
  stats: 'statistics and sequences: ANALYZE and AUTOINCREMENT',
};
const BIG = 'one table of 200,000 rows';
/**
 * 60,000 rows the first request deletes 50,000 of, then two tables whose foreign keys set each
 * other's NOT NULL column to NULL on a delete: the second request fails in its middle.
 */
const STUCK = `CREATE TABLE aaa (id INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE left_side (id INTEGER PRIMARY KEY, right_id INTEGER NOT NULL REFERENCES right_side(id) ON DELETE SET NULL);
CREATE TABLE right_side (id INTEGER PRIMARY KEY, left_id INTEGER NOT NULL REFERENCES left_side(id) ON DELETE SET NULL);
${numbers(60_000, "INSERT INTO aaa SELECT i, 'tenant ' || i FROM n")}
BEGIN; PRAGMA defer_foreign_keys = on;
INSERT INTO left_side VALUES (1, 1); INSERT INTO right_side VALUES (1, 1);
COMMIT;`;

const zooSql = (name: string) => {
  const schema = ZOO.find((entry) => entry.name === name);
  if (schema === undefined) throw new Error(`no zoo schema '${name}'`);
  return schema.sql;
};

let semaphore: LocalSemaphore;
let client: SemaphoreClient;
let twin: Twin;
let dir: string;

async function configFile(pool: string): Promise<string> {
  const path = join(dir, `${pool}.yml`);
  await writeFile(
    path,
    `pool: ${pool}\nresources:\n  d1:\n    - name: ${pool}-{slot}-db\n      erase: rows\n`,
  );
  return path;
}

async function gc(pool: string, extra: Record<string, string> = {}): Promise<ActionRunResult> {
  const result = await runAction({
    command: 'gc',
    config: await configFile(pool),
    'semaphore-url': semaphore.url,
    'semaphore-token': TOKENS.semaphore,
    'cloudflare-api-token': TOKENS.cloudflare,
    'cloudflare-account-id': twin.accountId,
    'cloudflare-api-base-url': twin.baseUrl,
    'requests-per-second': '50',
    ...extra,
  });
  expectNoLeaks(result, Object.values(TOKENS));
  return result;
}

const outcomesOf = (run: ActionRunResult): Record<string, string> =>
  Object.fromEntries(
    JSON.parse(run.outputs.report ?? '{}').slots.map((slot: { slug: string; outcome: string }) => [
      slot.slug,
      slot.outcome,
    ]),
  );

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preview-gc-d1-e2e-'));
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: TOKENS.semaphore }),
    startTwin({
      token: TOKENS.cloudflare,
      seed: {
        d1: [
          ...Object.entries(SLOTS).map(([slug, schema]) => ({ name: `zoo-${slug}-db`, sql: zooSql(schema) })),
          { name: 'big-events-db', sql: zooSql(BIG) },
          { name: 'stuck-loop-db', sql: STUCK },
        ],
      },
    }),
  ]);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: TOKENS.semaphore });
  await seedDemoPool(
    client,
    Object.keys(SLOTS).map((slug) => ({ slug, state: 'dirty', holder: `pr-${slug}` })),
    'zoo',
  );
  await seedDemoPool(client, [{ slug: 'events', state: 'dirty', holder: 'pr-900' }], 'big');
  await seedDemoPool(client, [{ slug: 'loop', state: 'dirty', holder: 'pr-901' }], 'stuck');
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('gc erases D1 databases of real schemas', () => {
  it('reclaims each slot only with nothing left, with no trigger of the tenant run', async () => {
    const migrations = () =>
      twin.account.d1.find('zoo-smuggle-db')?.select('SELECT * FROM d1_migrations ORDER BY id');
    const before = migrations();
    const run = await gc('zoo');

    expect(outcomesOf(run)).toEqual(
      Object.fromEntries(Object.keys(SLOTS).map((slug) => [slug, 'reclaimed'])),
    );
    for (const slug of Object.keys(SLOTS))
      expect(oracle(twin.account.d1, `zoo-${slug}-db`), slug).toEqual([]);
    // wrangler's record holds its own rows, none the trigger would have copied.
    expect(migrations()).toEqual(before);
    expect(run.exitCode).toBe(0);
  });

  it('defers a table too big for the run, and the next run finishes it, with no request refused', async () => {
    twin.resetRequests();
    // The token check, the listing, the binding guard's listing of the account's Workers, the schema,
    // the counts: two requests of deletes are left.
    const first = await gc('big', { 'request-budget': '7' });
    expect(outcomesOf(first)).toEqual({ events: 'deferred' });
    expect(first.exitCode).toBe(0);
    // Deferred: released, and dirty, for the next run.
    expect(await client.find('big', 'events')).toMatchObject({ leaseState: 'available', dirty: true });
    const rowsAfterFirst = twin.account.d1.find('big-events-db')?.select('SELECT count(*) AS n FROM events');
    expect(rowsAfterFirst).toEqual([{ n: 100_000 }]);

    const second = await gc('big');
    expect(outcomesOf(second)).toEqual({ events: 'reclaimed' });
    expect(await client.find('big', 'events')).toMatchObject({ leaseState: 'available', dirty: false });
    expect(oracle(twin.account.d1, 'big-events-db')).toEqual([]);
    expect(twin.requests().filter((request) => request.status !== 200)).toEqual([]);
  });

  it('leaves the slot dirty when a request fails in its middle, with what that request would have deleted still there', async () => {
    const run = await gc('stuck');

    expect(outcomesOf(run)).toEqual({ loop: 'erase-failed' });
    expect(await client.find('stuck', 'loop')).toMatchObject({ leaseState: 'available', dirty: true });
    const database = twin.account.d1.find('stuck-loop-db');
    // The first request's 50,000 deletes stay; the failed request changed nothing (one transaction).
    expect(database?.select('SELECT count(*) AS n FROM aaa')).toEqual([{ n: 10_000 }]);
    expect(database?.select('SELECT count(*) AS n FROM left_side')).toEqual([{ n: 1 }]);
    expect(oracle(twin.account.d1, 'stuck-loop-db')).not.toEqual([]);
    expect(run.summary).toContain('NOT NULL constraint failed');
  });
});

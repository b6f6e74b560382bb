// The D1 erase through the bundled action: gc over dirty slots whose databases are schemas from the
// zoo (test/d1/zoo.ts), against the real semaphore and the Cloudflare twin. A slot is released clean
// only where the oracle, reading a copy of its database with plain SQLite, finds nothing; the slot
// whose trigger writes a row back on every delete stays dirty and the run names the trigger; a
// 200,000-row table too big for one run's budget is deferred and finished by the next run.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoPool } from '../../demo/fixture.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { oracle } from '../d1/support.ts';
import { ZOO } from '../d1/zoo.ts';
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
};
const BIG = 'one table of 200,000 rows';

const zooSql = (name: string) => {
  const schema = ZOO.find((entry) => entry.name === name);
  if (schema === undefined) throw new Error(`no zoo schema '${name}'`);
  return schema.sql;
};

let semaphore: LocalSemaphore;
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
        ],
      },
    }),
  ]);
  const client = new SemaphoreClient({ baseUrl: semaphore.url, token: TOKENS.semaphore });
  await seedDemoPool(
    client,
    Object.keys(SLOTS).map((slug) => ({ slug, state: 'dirty', holder: `pr-${slug}` })),
    'zoo',
  );
  await seedDemoPool(client, [{ slug: 'events', state: 'dirty', holder: 'pr-900' }], 'big');
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('gc erases D1 databases of real schemas', () => {
  it('reclaims each slot only with nothing left, and keeps the one whose trigger refills it dirty, naming the trigger', async () => {
    const run = await gc('zoo');

    expect(outcomesOf(run)).toEqual({
      'fts-meta': 'reclaimed',
      contentless: 'reclaimed',
      external: 'reclaimed',
      audit: 'reclaimed',
      requeue: 'erase-failed',
    });
    for (const slug of ['fts-meta', 'contentless', 'external', 'audit'])
      expect(oracle(twin.account.d1, `zoo-${slug}-db`), slug).toEqual([]);
    expect(oracle(twin.account.d1, 'zoo-requeue-db')).not.toEqual([]);
    expect(run.exitCode).toBe(1);
    // The summary escapes Markdown: jobs\_requeue.
    expect(run.summary).toContain(
      'trigger jobs\\_requeue (AFTER DELETE ON jobs) writes into it on every delete',
    );
    expect(run.stdout).toMatch(/::error title=preview-gc%3A requeue erase-failed::.*jobs_requeue/);
  });

  it('defers a table too big for the run, and the next run finishes it, with no request refused', async () => {
    twin.resetRequests();
    // The token check, the listing, the schema, the counts: two requests of deletes are left.
    const first = await gc('big', { 'request-budget': '6' });
    expect(outcomesOf(first)).toEqual({ events: 'deferred' });
    expect(first.exitCode).toBe(0);
    const rowsAfterFirst = twin.account.d1.find('big-events-db')?.select('SELECT count(*) AS n FROM events');
    expect(rowsAfterFirst).toEqual([{ n: 100_000 }]);

    const second = await gc('big');
    expect(outcomesOf(second)).toEqual({ events: 'reclaimed' });
    expect(oracle(twin.account.d1, 'big-events-db')).toEqual([]);
    expect(twin.requests().filter((request) => request.status !== 200)).toEqual([]);
  });
});

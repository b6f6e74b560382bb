// Measurement 7: one dirty slot whose D1 database has a table of 200,000 rows, erased by gc runs of a
// small request budget at the default 3 requests a second: each run deletes what its budget allows
// (chunks of 10,000 rows, 50,000 a request) and is deferred, the next goes on, until one reclaims the
// slot. Their wall times added up, against the pacing floor of all their Cloudflare requests ÷ 3; and
// every request answered 200 (no statement or request over D1's limits, as the twin stands them in).
// Then the same table under `erase: recreate`, for the comparison: its runs, requests and wall time.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemoPool } from '../demo/fixture.ts';
import { startTwin } from '../test/twin/twin.ts';
import { runGc } from './action.ts';
import { DEFAULT_RATE } from './measure-latency.ts';
import { type BenchStack, CLOUDFLARE_TOKEN } from './stack.ts';

export const BIG_TABLE_ROWS = 200_000;
/** Four of it go to the token check, the listing, the schema and the counts: two requests delete. */
export const BIG_TABLE_BUDGET = 6;
/** More runs than that and the erase is not going on from where the last one stopped. */
const MAX_RUNS = 6;

export interface BigTableResult {
  rows: number;
  requestBudget: number;
  requestsPerSecond: number;
  /** gc runs until the slot was reclaimed, and the outcome of each. */
  runs: number;
  outcomes: string[];
  /** The runs' wall times (spawn to exit), added up. */
  wallMs: number;
  cloudflareRequests: number;
  /** Cloudflare answers other than 200 (a refused statement, a request over a limit, a 429). */
  refusedRequests: number;
  /** cloudflareRequests ÷ requestsPerSecond: no run at this rate can be faster. */
  pacingFloorMs: number;
  /** wallMs ÷ pacingFloorMs. */
  ratioToPacingFloor: number;
  /** The same table under `erase: recreate`: the database deleted and created again, whatever its size. */
  recreate: Pick<BigTableResult, 'runs' | 'wallMs' | 'cloudflareRequests' | 'refusedRequests'>;
}

const SCHEMA = `CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TEXT NOT NULL);
INSERT INTO d1_migrations (name, applied_at) VALUES ('0001_events.sql', '2026-11-01T00:00:00Z');
CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, at INTEGER NOT NULL);
CREATE INDEX events_by_kind ON events (kind, at);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${BIG_TABLE_ROWS})
  INSERT INTO events SELECT i, 'kind' || (i % 13), i FROM n;`;

/** The gc runs that reclaim one slot whose database holds the big table, erased as `erase` says. */
interface Sweeps {
  runs: number;
  outcomes: string[];
  wallMs: number;
  cloudflareRequests: number;
  refusedRequests: number;
}

async function sweepUntilReclaimed(stack: BenchStack, erase: 'rows' | 'recreate'): Promise<Sweeps> {
  const pool = `bench-big-table-${erase}`;
  const dir = await mkdtemp(join(tmpdir(), 'preview-gc-bench-d1-'));
  const config = join(dir, 'big-table.yml');
  // Said in full: drop is the default, and this measures the chunked delete of rows mode.
  const mode = erase === 'recreate' ? '\n      erase: recreate\n      bound-by: name' : '\n      erase: rows';
  await writeFile(config, `pool: ${pool}\nresources:\n  d1:\n    - name: big-{slot}-db${mode}\n`);
  const twin = await startTwin({
    token: CLOUDFLARE_TOKEN,
    seed: { d1: [{ name: 'big-events-db', sql: SCHEMA }] },
  });
  try {
    await seedDemoPool(stack.client, [{ slug: 'events', state: 'dirty', holder: 'pr-2100' }], pool);
    const outcomes: string[] = [];
    let wallMs = 0;
    while (outcomes.at(-1) !== 'reclaimed') {
      if (outcomes.length === MAX_RUNS)
        throw new Error(
          `bench: the 200,000-row table (erase: ${erase}) was not reclaimed in ${MAX_RUNS} runs (${outcomes.join(', ')})`,
        );
      const run = await runGc({
        semaphore: stack.semaphore,
        twin,
        pool,
        inputs: {
          config,
          'request-budget': String(BIG_TABLE_BUDGET),
          'requests-per-second': String(DEFAULT_RATE),
        },
      });
      wallMs += run.wallMs;
      outcomes.push(run.report.slots[0]?.outcome ?? 'none');
    }
    // Rows mode keeps the table and empties it; recreate leaves a new database without it.
    const database = twin.account.d1.find('big-events-db');
    const left =
      erase === 'rows'
        ? database?.select('SELECT count(*) AS n FROM events')
        : database?.select("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'events'");
    if (left?.[0]?.n !== 0 || (erase === 'rows' && outcomes.length < 2))
      throw new Error(
        `bench: the table was to be erased (erase: ${erase}; ${outcomes.join(', ')}; left ${JSON.stringify(left)})`,
      );
    const requests = twin.requests();
    return {
      runs: outcomes.length,
      outcomes,
      wallMs,
      cloudflareRequests: requests.length,
      refusedRequests: requests.filter((request) => request.status !== 200).length,
    };
  } finally {
    await twin.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function measureBigTable(stack: BenchStack): Promise<BigTableResult> {
  const chunked = await sweepUntilReclaimed(stack, 'rows');
  const recreated = await sweepUntilReclaimed(stack, 'recreate');
  const pacingFloorMs = (chunked.cloudflareRequests / DEFAULT_RATE) * 1000;
  return {
    rows: BIG_TABLE_ROWS,
    requestBudget: BIG_TABLE_BUDGET,
    requestsPerSecond: DEFAULT_RATE,
    ...chunked,
    pacingFloorMs,
    ratioToPacingFloor: chunked.wallMs / pacingFloorMs,
    recreate: {
      runs: recreated.runs,
      wallMs: recreated.wallMs,
      cloudflareRequests: recreated.cloudflareRequests,
      refusedRequests: recreated.refusedRequests,
    },
  };
}

// The fault matrix: every Cloudflare route and every semaphore route gc and cleanup use, each under
// each of six faults, against the real semaphore (workerd) and the Cloudflare twin. In every cell: no
// live lease is touched, every lease gc took is released (or, when its answer is lost, runs out by
// itself and the failed run names the slot), the summary and exit code say what happened, no token
// leaks, and a fault-free cleanup and sweep afterwards leave the pool clean. The table goes to the
// console and must match docs/reliability.md (PREVIEW_GC_WRITE_RELIABILITY_DOC=1 rewrites it).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlotConfig } from '../../src/config/slot-config.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { startLocalSemaphore } from '../../src/semaphore/local.ts';
import { TEST_CLOCK_ROUTE } from '../../src/semaphore/worker/test-clock.ts';
import { type CellResult, type CellSpec, type Command, type MatrixEnv, runCell } from './matrix/cell.ts';
import { CLOUDFLARE_ROUTES, FAULTS, SEMAPHORE_ROUTES, type SemaphoreRoute } from './matrix/faults.ts';
import { type MatrixRow, renderMatrix, TABLE_END, TABLE_START } from './matrix/table.ts';

const SEMAPHORE_TOKEN = 'sem-matrix-5c1e8a70d2';
const CLOUDFLARE_TOKEN = 'cf-matrix-93b7d2e4f1';
const FULL_SLOT = fileURLToPath(new URL('./fixtures/slots.yml', import.meta.url));
const SMALL_SLOT = fileURLToPath(new URL('./fixtures/small-slots.yml', import.meta.url));
const DOC_PATH = fileURLToPath(new URL('../../docs/reliability.md', import.meta.url));
/** Cells wait on timeouts and retries most of the time, so many run at once even on two cores. */
const CONCURRENCY = Number(process.env.PREVIEW_GC_MATRIX_CONCURRENCY ?? 40);

let env: MatrixEnv;
const results: CellResult[] = [];

async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const output: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      output[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return output;
}

function problemsOf(cells: readonly CellResult[]): string[] {
  return cells.flatMap((cell) => {
    const target = cell.spec.target.side === 'none' ? 'no fault' : cell.spec.target.route;
    return cell.problems.map((problem) => `${target} × ${cell.spec.fault}: ${problem}`);
  });
}

/**
 * Cloudflare faults: gc on every route. cleanup runs the same erase and differs only in what it makes
 * of a failed one (a warning, never a failed run), so it gets one row, on the route it needs most: the
 * upload that parks the Worker. Semaphore faults: gc and cleanup at once, since they call differently.
 */
const CLOUDFLARE_ROWS: MatrixRow[] = [
  ...CLOUDFLARE_ROUTES.map((route) => ({ route, commands: ['gc'] })),
  { route: 'PUT /accounts/:account/workers/scripts/:name', commands: ['cleanup'], label: ' (cleanup)' },
];
const SEMAPHORE_ROWS: MatrixRow[] = SEMAPHORE_ROUTES.map((route) => ({ route, commands: ['gc', 'cleanup'] }));

function cellsFor(side: 'cloudflare' | 'semaphore', rows: readonly MatrixRow[]): CellSpec[] {
  return rows.flatMap((row) =>
    FAULTS.map((fault) => ({
      id: 0,
      target:
        side === 'cloudflare' ? { side, route: row.route } : { side, route: row.route as SemaphoreRoute },
      fault,
      commands: row.commands as Command[],
    })),
  );
}

function tables(): string {
  return [
    renderMatrix('Cloudflare', CLOUDFLARE_ROWS, results),
    '',
    renderMatrix('Semaphore', SEMAPHORE_ROWS, results),
  ].join('\n');
}

beforeAll(async () => {
  const semaphore = await startLocalSemaphore({ token: SEMAPHORE_TOKEN });
  env = {
    semaphore,
    client: new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN }),
    fullSlot: { config: await loadSlotConfig(FULL_SLOT), path: FULL_SLOT },
    smallSlot: { config: await loadSlotConfig(SMALL_SLOT), path: SMALL_SLOT },
    cloudflareToken: CLOUDFLARE_TOKEN,
  };
}, 60_000);

afterAll(async () => {
  if (results.length > 0)
    console.log(`Fault matrix (outcome and exit code of gc and cleanup):\n\n${tables()}\n`);
  await env?.semaphore.stop();
});

describe('fault matrix', () => {
  it('covers every route gc and cleanup use (a fault-free cell: both reclaim)', async () => {
    const probe = await runCell(env, {
      id: 0,
      target: { side: 'none' },
      fault: 'none',
      commands: ['gc', 'cleanup'],
    });
    expect(probe.problems).toEqual([]);
    expect([probe.runs.gc?.outcome, probe.runs.cleanup?.outcome]).toEqual(['reclaimed', 'reclaimed']);
    expect(new Set(probe.cloudflareRoutes)).toEqual(new Set(CLOUDFLARE_ROUTES));
    expect(new Set(probe.semaphoreRoutes)).toEqual(new Set(SEMAPHORE_ROUTES));
  });

  it('holds every invariant under every fault on every route', async () => {
    const cells = [...cellsFor('cloudflare', CLOUDFLARE_ROWS), ...cellsFor('semaphore', SEMAPHORE_ROWS)].map(
      (cell, index) => ({ ...cell, id: index + 1 }),
    );
    results.push(...(await inParallel(cells, CONCURRENCY, (spec) => runCell(env, spec))));
    expect(problemsOf(results)).toEqual([]);
  }, 180_000);

  it('is the matrix docs/reliability.md shows', async () => {
    const doc = await readFile(DOC_PATH, 'utf8');
    const [before, rest] = doc.split(TABLE_START);
    const after = rest?.split(TABLE_END)[1];
    if (before === undefined || after === undefined) throw new Error(`${DOC_PATH} lacks the table markers`);
    const current = `${before}${TABLE_START}\n${tables()}\n${TABLE_END}${after}`;
    if (process.env.PREVIEW_GC_WRITE_RELIABILITY_DOC === '1') await writeFile(DOC_PATH, current);
    expect(doc, 'run with PREVIEW_GC_WRITE_RELIABILITY_DOC=1 to update docs/reliability.md').toBe(current);
  });
});

describe('the test clock', () => {
  it('does not exist on a semaphore started without it: its route is an unknown route', async () => {
    const response = await fetch(`${env.semaphore.url}${TEST_CLOCK_ROUTE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SEMAPHORE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'matrix-0', advanceMs: 60_000 }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

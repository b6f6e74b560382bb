// `npm run bench`: measures the bundled action (dist/index.js) against the local semaphore and the
// Cloudflare API twin, all on 127.0.0.1, prints a table and writes bench/results.json. Exits 1 when
// dist/ is stale, a measurement could not run, or a goal is missed. See bench/README.md.
import { writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { staleDistFiles } from '../scripts/check-dist.ts';
import { benchChecks } from './goals.ts';
import { BIG_TABLE_ROWS, measureBigTable } from './measure-big-table.ts';
import { COLD_START_RUNS, measureColdStart } from './measure-cold-start.ts';
import { measureDemo } from './measure-demo.ts';
import { measureLatency } from './measure-latency.ts';
import { measureQueue } from './measure-queue.ts';
import { measureScale } from './measure-scale.ts';
import { measureSlowCalls } from './measure-slow-calls.ts';
import { measureToday } from './measure-today.ts';
import { measureWorkerPreviews } from './measure-worker-previews.ts';
import { type BenchResults, memoryGrowth, renderResults } from './report.ts';
import { type BenchStack, startBenchStack } from './stack.ts';
import { formatCount } from './table.ts';

const RESULTS_PATH = new URL('./results.json', import.meta.url).pathname;

function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

async function measureAll(): Promise<BenchResults> {
  const startedAt = new Date();
  const clock = performance.now();
  const loadAtStart = loadavg()[0] ?? 0;

  progress(`cold start (${COLD_START_RUNS} runs of node dist/index.js, each after a bare node -e 0)…`);
  const coldStart = await measureColdStart();

  progress('starting the local semaphore…');
  const stack = await startBenchStack();
  let measured: Awaited<ReturnType<typeof measureRest>>;
  try {
    measured = await measureRest(stack);
  } finally {
    await stack.stop();
  }

  progress('the fair queue: 50 waiters on a one-slot pool, five releases, then 50 callers back to back…');
  const queue = await measureQueue();

  progress("today's way: bench/today.sh with wrangler (about 46 wrangler starts)…");
  const todayRun = await measureToday(measured.latency.dataLeft);
  const sweepTime = measured.latency.result;
  const { quiet, perSlot } = measured.demo;
  const { scale, slowCalls, bigTable } = measured;
  const sweepRatios = {
    ratio: sweepTime.wallMs / sweepTime.sequentialMs,
    ratioToLowerBound: sweepTime.wallMs / sweepTime.sequentialLowerBoundMs,
  };
  const todayRatios = {
    wallRatio: todayRun.wallMs / sweepTime.wallMs,
    requestRatio: todayRun.cloudflareRequests / sweepTime.cloudflareRequests,
  };
  const memory = memoryGrowth(sweepTime.peakRssBytes, scale.peakRssBytes);

  const checks = benchChecks({
    quietSweep: quiet,
    coldStart,
    sweepTime: { ...sweepTime, ...sweepRatios },
    slowCalls,
    scale,
    memory,
    today: { ...todayRun, ...todayRatios },
    bigTable,
    queue,
  });
  return {
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - clock,
    machine: {
      cpus: availableParallelism(),
      node: process.version,
      platform: process.platform,
      loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
    },
    quietSweep: quiet,
    perSlot,
    sweepTime: { ...sweepTime, ...sweepRatios },
    slowCalls,
    coldStart,
    scale,
    memory,
    today: { ...todayRun, ...todayRatios },
    bigTable,
    workerPreviews: measured.workerPreviews,
    queue,
    checks,
  };
}

async function measureRest(stack: BenchStack) {
  progress('demo pool: requests per reclaimed slot, then the quiet sweep…');
  const demo = await measureDemo(stack);
  progress('nine expired slots with +50 ms / +20 ms latency…');
  const latency = await measureLatency(stack);
  progress('nine expired slots with 400 ms a Cloudflare call at 3 requests/s (about a minute)…');
  const slowCalls = await measureSlowCalls(stack);
  progress('scale: 200 slots, 100,000 KV keys, time-scaled account limit…');
  const scale = await measureScale(stack);
  progress(
    `a D1 table of ${formatCount(BIG_TABLE_ROWS)} rows, erased across gc runs of a small budget at 3 requests/s…`,
  );
  const bigTable = await measureBigTable(stack);
  progress('Worker Previews: gc sweeps 100 previews of one Worker…');
  const workerPreviews = await measureWorkerPreviews();
  return { demo, latency, slowCalls, scale, bigTable, workerPreviews };
}

const stale = await staleDistFiles('dist');
if (stale.length > 0) {
  process.stderr.write(
    `bench: dist/ is not what the source builds (${stale.join(', ')}); run 'npm run bundle' first (the bench measures dist/).\n`,
  );
  process.exit(1);
}
const results = await measureAll();
await writeFile(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(renderResults(results));
process.stdout.write(`\nWrote ${RESULTS_PATH}\n`);
if (results.checks.some((check) => !check.ok)) process.exitCode = 1;

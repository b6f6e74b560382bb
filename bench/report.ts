// The benchmark's results (written to bench/results.json, fields described in bench/README.md) and
// the table printed from them.
import { type Check, formatGoal, formatValue } from './goals.ts';
import type { BigTableResult } from './measure-big-table.ts';
import type { ColdStartResult } from './measure-cold-start.ts';
import { type PerSlotResult, type QuietResult, STEP_ROWS } from './measure-demo.ts';
import {
  CLOUDFLARE_LATENCY_MS,
  DEFAULT_RATE,
  type LatencyResult,
  SEMAPHORE_LATENCY_MS,
} from './measure-latency.ts';
import type { QueueResult } from './measure-queue.ts';
import type { ScaleResult } from './measure-scale.ts';
import type { SlowCallsResult } from './measure-slow-calls.ts';
import type { TodayResult } from './measure-today.ts';
import type { WorkerPreviewsResult } from './measure-worker-previews.ts';
import { formatBytes, formatCount, formatMs, formatPerSlot, formatRatio, renderTable } from './table.ts';

export interface BenchResults {
  startedAt: string;
  durationMs: number;
  /** `loadAverage`: the 1-minute load at the start and the end; timings on a busy machine run long. */
  machine: { cpus: number; node: string; platform: string; loadAverage: { start: number; end: number } };
  quietSweep: QuietResult;
  perSlot: PerSlotResult;
  sweepTime: LatencyResult & { ratio: number; ratioToLowerBound: number };
  slowCalls: SlowCallsResult;
  coldStart: ColdStartResult;
  scale: ScaleResult;
  memory: MemoryGrowth;
  today: TodayResult & { wallRatio: number; requestRatio: number };
  bigTable: BigTableResult;
  /** gc's sweep of 100 Worker Previews: its requests by route (bench/measure-worker-previews.ts). */
  workerPreviews?: WorkerPreviewsResult;
  /** The fair queue: release to the first waiter, and throughput with 50 waiters (bench/measure-queue.ts). */
  queue: QueueResult;
  checks: Check[];
}

/** Peak RSS of the nine-slot sweep (measurement 3) and of the 200-slot one (measurement 5). */
export interface MemoryGrowth {
  peakRssBytes9Slots: number | null;
  peakRssBytes200Slots: number | null;
  /** 200 slots over 9 slots, minus 1 (0.15: 15 % more); null where /proc is missing. */
  growth: number | null;
}

export function memoryGrowth(at9Slots: number | null, at200Slots: number | null): MemoryGrowth {
  return {
    peakRssBytes9Slots: at9Slots,
    peakRssBytes200Slots: at200Slots,
    growth: at9Slots === null || at200Slots === null ? null : at200Slots / at9Slots - 1,
  };
}

const STEP_LABEL: Record<(typeof STEP_ROWS)[number], string> = {
  compute: 'compute (Worker, DO)',
  d1: 'D1',
  kv: 'KV',
  r2: 'R2',
  resolution: 'name resolution',
};

/** Why preview-gc spends more than the bound on a kind, as far as the measured calls show it. */
function whyAbove(kind: (typeof STEP_ROWS)[number], perSlot: PerSlotResult): string {
  const { cloudflareByKind: byKind, slotsReclaimed: slots } = perSlot;
  const aSlot = (requestKind: string) => formatPerSlot((byKind[requestKind] ?? 0) / slots);
  switch (kind) {
    case 'compute':
      return `what takes the last tenant's older code off the slot, each read also the Workers inventory's: ${aSlot('workers.previews.off')} preview-URL switch, ${aSlot('workers.deployments.list')} deployments, ${aSlot('workers.versions.list')} versions and ${aSlot('workers.previews.list')} Worker Previews listing a slot (the inventory's own Durable Object namespace listing is under name resolution)`;
    case 'd1':
      return "a COUNT(*) batch before the DELETE batch (the DELETEs report the same counts); the inventory's reads ride in the erase's requests";
    case 'kv':
      return `the inventory's own listing after the erase's last (${aSlot('kv.keys.list')} listings a slot in all)`;
    case 'r2':
      return `the inventory's object listing, one a bucket (${aSlot('r2.objects.list')} a slot): which objects are still there, and by when the rule removes them`;
    case 'resolution':
      return `once a run: the credential check (${byKind['tokens.verify'] ?? 0}), the spend read (${byKind['analytics.graphql'] ?? 0}) and an R2 bucket listing (${byKind['r2.buckets.list'] ?? 0}, only to check that the buckets exist: the lifecycle read would answer 404); and the Workers inventory's Durable Object namespace listing, one a slot (${byKind['do.namespaces.list'] ?? 0} in the run with the erase's own)`;
  }
}

/** The per-slot rows, each excess marked with a note letter, and the notes that say why. */
function perSlotTable(perSlot: PerSlotResult): { rows: string[][]; notes: string[] } {
  const slots = perSlot.slotsReclaimed;
  const notes: string[] = [];
  const above = (label: string, excess: number, why: string): string => {
    if (excess <= 1e-9) return '';
    const letter = String.fromCharCode(97 + notes.length);
    notes.push(`(${letter}) ${label}: ${why}`);
    return `+${formatPerSlot(excess)} (${letter})`;
  };
  const rows = STEP_ROWS.map((kind) => {
    const measured = perSlot.cloudflareByStep[kind] / slots;
    const bound = perSlot.lowerBoundPerSlot[kind] / (kind === 'resolution' ? slots : 1);
    return [
      STEP_LABEL[kind],
      formatPerSlot(measured),
      formatPerSlot(bound),
      above(STEP_LABEL[kind], measured - bound, whyAbove(kind, perSlot)),
    ];
  });
  const total = STEP_ROWS.reduce((sum, kind) => sum + perSlot.cloudflareByStep[kind], 0) / slots;
  const totalBound = STEP_ROWS.reduce(
    (sum, kind) => sum + perSlot.lowerBoundPerSlot[kind] / (kind === 'resolution' ? slots : 1),
    0,
  );
  rows.push([
    'Cloudflare, all',
    formatPerSlot(total),
    formatPerSlot(totalBound),
    `+${formatPerSlot(total - totalBound)}`,
  ]);

  const calls = perSlot.semaphoreByCall;
  const semaphore = Object.values(calls).reduce((sum, count) => sum + count, 0) / slots;
  const semaphoreBound = perSlot.semaphoreLowerBound / slots;
  rows.push([
    'semaphore',
    formatPerSlot(semaphore),
    formatPerSlot(semaphoreBound),
    above(
      'semaphore',
      semaphore - semaphoreBound,
      `${formatPerSlot((calls.renew ?? 0) / slots)} renews a slot, the fence before each erase step after the first (invariant 4; the acquire fences the first); ${calls.list ?? 0} pool listings a run, the 2nd one for the report's pool table`,
    ),
  ]);
  return { rows, notes };
}

export function renderResults(results: BenchResults): string {
  const { quietSweep, perSlot, sweepTime, slowCalls, coldStart, scale, memory, today, bigTable } = results;
  const sections: string[] = [];
  sections.push(
    `preview-gc benchmark: ${results.machine.cpus} cores, Node ${results.machine.node}, ${results.startedAt}, took ${formatMs(results.durationMs)} (1-minute load average ${results.machine.loadAverage.start.toFixed(1)} at the start, ${results.machine.loadAverage.end.toFixed(1)} at the end)`,
  );

  sections.push(
    `1. Quiet sweep: gc on a pool with nothing to do (two live leases, the rest clean)\n${renderTable(
      ['requests', 'measured', 'goal'],
      [
        ['semaphore', formatCount(quietSweep.semaphoreRequests), '1'],
        ['Cloudflare', formatCount(quietSweep.cloudflareRequests), '1'],
      ],
    )}`,
  );

  const perSlotView = perSlotTable(perSlot);
  sections.push(
    `2. Requests per reclaimed slot: demo pool, ${perSlot.slotsReclaimed} slots reclaimed (3 expired, 2 dirty); each slot a Worker with 3 DO classes (1 container-backed), D1 with 5 tables of rows, KV with 1,500 keys, 2 R2 buckets\n${renderTable(
      ['kind', 'preview-gc', 'lower bound', 'above'],
      perSlotView.rows,
    )}\n${perSlotView.notes.join('\n')}\nLower bound: compute 1 upload; D1 list tables + 1 batched delete; KV 1 listing per 1,000 keys + 1 empty + 1 bulk delete per 10,000; R2 1 read per bucket + 1 write if the rules change; name listings (Workers, D1, KV, DO namespaces, containers) once per run, shared by the slots; semaphore 1 listing per run + acquire and release per slot. The bound is the erase's alone: the inventory, which reads back what is left, is in the notes.`,
  );

  sections.push(
    `3. Sweep time: ${sweepTime.slots} expired slots, +${CLOUDFLARE_LATENCY_MS} ms on every Cloudflare call, +${SEMAPHORE_LATENCY_MS} ms on every semaphore call, requests-per-second ${sweepTime.requestsPerSecond} (so the pacer never waits)\n${renderTable(
      ['', 'value'],
      [
        ['wall time (spawn to exit)', formatMs(sweepTime.wallMs)],
        ['run time in the report', formatMs(sweepTime.reportDurationMs)],
        [
          'peak RSS of the action',
          sweepTime.peakRssBytes === null ? 'n/a' : formatBytes(sweepTime.peakRssBytes),
        ],
        [
          'requests (Cloudflare + semaphore)',
          `${sweepTime.cloudflareRequests} + ${sweepTime.semaphoreRequests}`,
        ],
        ['sequential bound (those requests x latency)', formatMs(sweepTime.sequentialMs)],
        ['ratio wall / sequential bound', formatRatio(sweepTime.ratio)],
        ['sequential bound of the lower-bound requests', formatMs(sweepTime.sequentialLowerBoundMs)],
        ['ratio wall / that', formatRatio(sweepTime.ratioToLowerBound)],
        [
          `at the default ${DEFAULT_RATE} requests/s (computed: requests / ${DEFAULT_RATE})`,
          `~${formatMs(sweepTime.defaultRateEstimateMs)}`,
        ],
      ],
    )}`,
  );

  sections.push(
    `3b. Slow calls: the same ${slowCalls.slots} expired slots, +${slowCalls.cloudflareLatencyMs} ms on every Cloudflare call (longer than the pacer's spacing), requests-per-second ${slowCalls.requestsPerSecond} (the default), parallel-slots ${slowCalls.parallelSlots}\n${renderTable(
      ['', 'value'],
      [
        ['wall time (spawn to exit)', formatMs(slowCalls.wallMs)],
        [
          'requests (Cloudflare + semaphore)',
          `${slowCalls.cloudflareRequests} + ${slowCalls.semaphoreRequests}`,
        ],
        [
          `pacing floor (Cloudflare requests / ${slowCalls.requestsPerSecond} per s)`,
          formatMs(slowCalls.pacingFloorMs),
        ],
        ['ratio wall / pacing floor', formatRatio(slowCalls.ratioToPacingFloor)],
      ],
    )}`,
  );

  sections.push(
    `4. Cold start: process start of node dist/index.js to its first outbound request, next to a bare node -e 0 (start to exit) before each run\n${renderTable(
      ['', 'value'],
      [
        [`median of ${coldStart.runs}`, formatMs(coldStart.medianMs)],
        ['min / max', `${formatMs(coldStart.minMs)} / ${formatMs(coldStart.maxMs)}`],
        [`bare node -e 0, median of ${coldStart.runs}`, formatMs(coldStart.bareNodeMedianMs)],
        ['ratio action / bare node', formatRatio(coldStart.ratio)],
        ['bundle dist/index.js', formatBytes(coldStart.bundleBytes)],
        ['with the chunks it loads', formatBytes(coldStart.actionBundleBytes)],
      ],
    )}`,
  );

  sections.push(
    `5. Scale: ${formatCount(scale.slots)} expired slots, ${formatCount(scale.kvKeys)} KV keys in all; the twin enforces ${formatCount(scale.rateLimit.requests)} requests per ${formatMs(scale.rateLimit.windowMs)} (the real 5-minute limit, time ${scale.timeScale}x faster), requests-per-second ${scale.requestsPerSecond} (the default 3, same scale)\n${renderTable(
      ['', 'value'],
      [
        ['wall time (time-scaled)', formatMs(scale.wallMs)],
        [
          `pacing floor (Cloudflare requests / ${scale.requestsPerSecond} per s)`,
          formatMs((scale.cloudflareRequests / scale.requestsPerSecond) * 1000),
        ],
        [
          `in real time at ${DEFAULT_RATE}/s (computed: requests / ${DEFAULT_RATE})`,
          `~${formatMs((scale.cloudflareRequests / DEFAULT_RATE) * 1000)}`,
        ],
        [
          'requests (Cloudflare + semaphore)',
          `${formatCount(scale.cloudflareRequests)} + ${formatCount(scale.semaphoreRequests)}`,
        ],
        ['Cloudflare requests per slot', formatPerSlot(scale.cloudflareRequests / scale.slots)],
        [
          'busiest limit window',
          `${formatCount(scale.busiestWindow)} of ${formatCount(scale.rateLimit.requests)}`,
        ],
        ['429 answers', formatCount(scale.rateLimited)],
        ['peak RSS of the action', scale.peakRssBytes === null ? 'n/a' : formatBytes(scale.peakRssBytes)],
        [
          'growth of peak RSS over the nine-slot sweep (3.)',
          memory.growth === null ? 'n/a' : `${(memory.growth * 100).toFixed(1)} %`,
        ],
      ],
    )}`,
  );

  sections.push(
    `6. Against today's way: the same ${today.slots}-slot erase by bench/today.sh (${today.wranglerCommands} wrangler commands), same twin, same +${CLOUDFLARE_LATENCY_MS} ms latency\n${renderTable(
      ['', "today's way", 'preview-gc', 'ratio today / preview-gc'],
      [
        ['wall time', formatMs(today.wallMs), formatMs(sweepTime.wallMs), formatRatio(today.wallRatio)],
        [
          'Cloudflare requests',
          formatCount(today.cloudflareRequests),
          formatCount(sweepTime.cloudflareRequests),
          formatRatio(today.requestRatio),
        ],
        ['semaphore requests', '0 (no lease)', formatCount(sweepTime.semaphoreRequests), ''],
        [
          'Durable Object classes left live',
          formatCount(today.liveClassesLeft),
          `${formatCount(sweepTime.liveClassesLeft)} (container-backed, kept by design)`,
          '',
        ],
      ],
    )}\nSame rows, keys and R2 rules left behind by both (checked). today.sh takes no lease, does no fencing, stops at the first 429, and parks no compute.`,
  );

  sections.push(
    `7. A D1 table of ${formatCount(bigTable.rows)} rows in one dirty slot, erased by gc runs of request-budget ${bigTable.requestBudget} at ${bigTable.requestsPerSecond} requests/s (the default), each going on from the last; beside it, the same table under erase: recreate\n${renderTable(
      ['', 'erase: rows (chunked)', 'erase: recreate'],
      [
        [
          'runs and their outcomes',
          `${bigTable.runs}: ${bigTable.outcomes.join(', ')}`,
          formatCount(bigTable.recreate.runs),
        ],
        [
          'wall time, the runs added up (spawn to exit)',
          formatMs(bigTable.wallMs),
          formatMs(bigTable.recreate.wallMs),
        ],
        [
          'Cloudflare requests',
          formatCount(bigTable.cloudflareRequests),
          formatCount(bigTable.recreate.cloudflareRequests),
        ],
        [
          `pacing floor (Cloudflare requests / ${bigTable.requestsPerSecond} per s)`,
          formatMs(bigTable.pacingFloorMs),
          '',
        ],
        ['ratio wall / pacing floor', formatRatio(bigTable.ratioToPacingFloor), ''],
        [
          'answers other than 200',
          formatCount(bigTable.refusedRequests),
          formatCount(bigTable.recreate.refusedRequests),
        ],
      ],
    )}`,
  );

  const { queue } = results;
  sections.push(
    `8. The fair queue: ${queue.waiters} pull requests wait for a one-slot pool with the client's own waiting loop; the slot is released ${queue.handoffMs.length} times\n${renderTable(
      ['', 'value'],
      [
        [
          'release to the first in line holding it, each',
          queue.handoffMs.map((ms) => formatMs(ms)).join(', '),
        ],
        [
          'the longest, and the heartbeat',
          `${formatMs(queue.releaseToHolderMs)} of ${formatMs(queue.heartbeatMs)}`,
        ],
        ['every slot to the first in line', queue.inOrder ? 'yes' : 'no'],
        [
          `waiting acquires answered, ${queue.waiters} callers back to back`,
          `${queue.acquiresPerSecond.toFixed(0)}/s (95th percentile ${formatMs(queue.p95AcquireMs)})`,
        ],
        [`requests the ${queue.waiters} waiters' pauses make`, `${queue.queueLoadPerSecond.toFixed(1)}/s`],
        ['headroom', formatRatio(queue.headroom)],
      ],
    )}`,
  );

  sections.push(
    `Checks (the exit code is 1 when one failed)\n${renderTable(
      ['check', 'measured', 'goal', 'result', 'note'],
      results.checks.map((check) => [
        check.name,
        formatValue(check.value, check.unit),
        formatGoal(check.goal, check.unit),
        check.ok ? 'ok' : 'FAILED',
        check.note ?? '',
      ]),
    )}`,
  );
  return `${sections.join('\n\n')}\n`;
}

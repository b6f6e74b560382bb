// Measurement 3: nine expired slots swept while every Cloudflare call takes 50 ms longer (the twin's
// latencyMs) and every semaphore call 20 ms longer (the delaying proxy), next to the time the same
// requests would take one after another with nothing but that latency.
import { DEMO_CONFIG_PATH } from '../demo/fixture.ts';
import { loadSlotConfig } from '../src/config/slot-config.ts';
import { runGc } from './action.ts';
import type { StepKind } from './bounds.ts';
import {
  resolutionLowerBound,
  STEP_KINDS,
  semaphoreLowerBound,
  sequentialLatencyMs,
  slotLowerBound,
} from './bounds.ts';
import { expectAllReclaimed } from './measure-demo.ts';
import { accountShape, dataLeft, liveClassesLeft, slotShape } from './shape.ts';
import { type BenchStack, expiredPlan, seedPool } from './stack.ts';

export const LATENCY_SLOTS = 9;
export const CLOUDFLARE_LATENCY_MS = 50;
export const SEMAPHORE_LATENCY_MS = 20;
/** Fast enough that the pacer never waits: each call takes 50 ms, the pacer would space them 20 ms. */
export const UNPACED_RATE = 50;
export const DEFAULT_RATE = 3;

export interface LatencyResult {
  slots: number;
  requestsPerSecond: number;
  wallMs: number;
  /** Peak resident set size of the action, for comparison with the scale run's. */
  peakRssBytes: number | null;
  /** The run's own account of its duration (from the first listing to the report). */
  reportDurationMs: number;
  cloudflareRequests: number;
  semaphoreRequests: number;
  /** cloudflareRequests × 50 ms + semaphoreRequests × 20 ms. */
  sequentialMs: number;
  /** The same with the lower-bound request counts of the slots' data. */
  sequentialLowerBoundMs: number;
  /** Durable Object classes live after the sweep: the container-backed ones, kept by design. */
  liveClassesLeft: number;
  /** At the default 3 requests a second the pacer, not the latency, sets the pace: requests ÷ 3. */
  defaultRateEstimateMs: number;
}

export async function measureLatency(
  stack: BenchStack,
): Promise<{ result: LatencyResult; dataLeft: string }> {
  const pool = 'bench-latency';
  const plan = expiredPlan(LATENCY_SLOTS);
  const twin = await seedPool(stack, { pool, plan, twin: { latencyMs: CLOUDFLARE_LATENCY_MS } });
  try {
    const config = await loadSlotConfig(DEMO_CONFIG_PATH);
    const before = twin.state();
    const cloudflareBound =
      resolutionLowerBound(accountShape(before)) +
      plan
        .map((slot) => slotLowerBound(slotShape(before, config, slot.slug)))
        .reduce(
          (sum, bound) => sum + STEP_KINDS.reduce((total, kind: StepKind) => total + bound[kind], 0),
          0,
        );

    const mark = stack.semaphoreMark();
    stack.delaySemaphore(SEMAPHORE_LATENCY_MS);
    const run = await runGc({
      semaphore: stack.semaphore,
      twin,
      pool,
      inputs: { 'requests-per-second': String(UNPACED_RATE) },
    }).finally(() => stack.delaySemaphore(0));
    expectAllReclaimed(run.report, run.exitCode, LATENCY_SLOTS);

    const cloudflareRequests = twin.requests().length;
    const semaphoreRequests = stack.semaphoreRequestsSince(mark).length;
    const after = twin.state();
    const result: LatencyResult = {
      slots: LATENCY_SLOTS,
      requestsPerSecond: UNPACED_RATE,
      wallMs: run.wallMs,
      peakRssBytes: run.peakRssBytes,
      reportDurationMs: run.report.durationMs,
      cloudflareRequests,
      semaphoreRequests,
      sequentialMs: sequentialLatencyMs(
        cloudflareRequests,
        CLOUDFLARE_LATENCY_MS,
        semaphoreRequests,
        SEMAPHORE_LATENCY_MS,
      ),
      sequentialLowerBoundMs: sequentialLatencyMs(
        cloudflareBound,
        CLOUDFLARE_LATENCY_MS,
        semaphoreLowerBound(LATENCY_SLOTS),
        SEMAPHORE_LATENCY_MS,
      ),
      liveClassesLeft: liveClassesLeft(after),
      defaultRateEstimateMs: (cloudflareRequests / DEFAULT_RATE) * 1000,
    };
    return { result, dataLeft: dataLeft(after) };
  } finally {
    await twin.close();
  }
}

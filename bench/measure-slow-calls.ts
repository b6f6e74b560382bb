// Measurement 3b: the nine expired slots of measurement 3 at a realistic latency: every Cloudflare call
// takes 400 ms (D1 queries and uploads often do), longer than the pacer's 333 ms spacing at the default
// 3 requests a second. One slot at a time would then run below the rate; slots in parallel keep the
// pacer busy, so the sweep takes about its pacing floor: Cloudflare requests ÷ rate.
import { runGc } from './action.ts';
import { expectAllReclaimed } from './measure-demo.ts';
import { DEFAULT_RATE, LATENCY_SLOTS, SEMAPHORE_LATENCY_MS } from './measure-latency.ts';
import { type BenchStack, expiredPlan, seedPool } from './stack.ts';

export const SLOW_CALL_MS = 400;
/** The action's default `parallel-slots`, given explicitly so the figure says what it was measured with. */
export const PARALLEL_SLOTS = 3;

export interface SlowCallsResult {
  slots: number;
  /** Added by the twin to every Cloudflare call. */
  cloudflareLatencyMs: number;
  requestsPerSecond: number;
  /** The action's `parallel-slots`. */
  parallelSlots: number;
  wallMs: number;
  cloudflareRequests: number;
  semaphoreRequests: number;
  /** cloudflareRequests ÷ requestsPerSecond: no sweep at this rate can be faster. */
  pacingFloorMs: number;
  /** wallMs ÷ pacingFloorMs. */
  ratioToPacingFloor: number;
}

export async function measureSlowCalls(stack: BenchStack): Promise<SlowCallsResult> {
  const pool = 'bench-slow-calls';
  const twin = await seedPool(stack, {
    pool,
    plan: expiredPlan(LATENCY_SLOTS),
    twin: { latencyMs: SLOW_CALL_MS },
  });
  try {
    const mark = stack.semaphoreMark();
    stack.delaySemaphore(SEMAPHORE_LATENCY_MS);
    const run = await runGc({
      semaphore: stack.semaphore,
      twin,
      pool,
      inputs: { 'requests-per-second': String(DEFAULT_RATE), 'parallel-slots': String(PARALLEL_SLOTS) },
    }).finally(() => stack.delaySemaphore(0));
    expectAllReclaimed(run.report, run.exitCode, LATENCY_SLOTS);
    const cloudflareRequests = twin.requests().length;
    const pacingFloorMs = (cloudflareRequests / DEFAULT_RATE) * 1000;
    return {
      slots: LATENCY_SLOTS,
      cloudflareLatencyMs: SLOW_CALL_MS,
      requestsPerSecond: DEFAULT_RATE,
      parallelSlots: PARALLEL_SLOTS,
      wallMs: run.wallMs,
      cloudflareRequests,
      semaphoreRequests: stack.semaphoreRequestsSince(mark).length,
      pacingFloorMs,
      ratioToPacingFloor: run.wallMs / pacingFloorMs,
    };
  } finally {
    await twin.close();
  }
}

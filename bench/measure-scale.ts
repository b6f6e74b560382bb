// Measurement 5: 200 expired slots holding 100,000 KV keys in all, with the twin enforcing the account
// limit of 1,200 requests per 5 minutes. Time runs 10x faster: the twin allows 1,200 per 30 s and
// the action paces at 30 requests a second instead of the default 3, so its share of the account
// limit is the real one (3 of 4 a second).
import { runGc } from './action.ts';
import { expectAllReclaimed } from './measure-demo.ts';
import { type BenchStack, expiredPlan, seedPool } from './stack.ts';

export const SCALE_SLOTS = 200;
export const SCALE_KV_KEYS = 100_000;
export const TIME_SCALE = 10;
export const ACCOUNT_LIMIT = { requests: 1_200, windowMs: 300_000 };
const DEFAULT_RATE = 3;

export interface ScaleResult {
  slots: number;
  kvKeys: number;
  timeScale: number;
  /** The twin's limit as enforced (time-scaled). */
  rateLimit: { requests: number; windowMs: number };
  requestsPerSecond: number;
  wallMs: number;
  cloudflareRequests: number;
  semaphoreRequests: number;
  /** Cloudflare requests answered 429 (the goal is none: our own pacing must stay under the limit). */
  rateLimited: number;
  /** Most requests the twin saw in any window of the limit's length: how close the run came to it. */
  busiestWindow: number;
  peakRssBytes: number | null;
}

/** The most timestamps (ms) that fall in any window of `windowMs` (start inclusive). */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

export async function measureScale(stack: BenchStack): Promise<ScaleResult> {
  const pool = 'bench-scale';
  const plan = expiredPlan(SCALE_SLOTS);
  const rateLimit = { requests: ACCOUNT_LIMIT.requests, windowMs: ACCOUNT_LIMIT.windowMs / TIME_SCALE };
  const requestsPerSecond = DEFAULT_RATE * TIME_SCALE;
  const twin = await seedPool(stack, {
    pool,
    plan,
    data: { kvKeys: SCALE_KV_KEYS / SCALE_SLOTS },
    twin: { rateLimit },
  });
  try {
    const mark = stack.semaphoreMark();
    const run = await runGc({
      semaphore: stack.semaphore,
      twin,
      pool,
      inputs: {
        'requests-per-second': String(requestsPerSecond),
        'max-slots': String(SCALE_SLOTS),
        'request-budget': '100000',
      },
    });
    expectAllReclaimed(run.report, run.exitCode, SCALE_SLOTS);
    const requests = twin.requests();
    return {
      slots: SCALE_SLOTS,
      kvKeys: SCALE_KV_KEYS,
      timeScale: TIME_SCALE,
      rateLimit,
      requestsPerSecond,
      wallMs: run.wallMs,
      cloudflareRequests: requests.length,
      semaphoreRequests: stack.semaphoreRequestsSince(mark).length,
      rateLimited: requests.filter((request) => request.status === 429).length,
      busiestWindow: busiestWindow(
        requests.map((request) => Date.parse(request.at)),
        rateLimit.windowMs,
      ),
      peakRssBytes: run.peakRssBytes,
    };
  } finally {
    await twin.close();
  }
}

// What every measurement runs against: the real semaphore Worker in a local workerd, behind a counting
// (and, when asked, delaying) loopback proxy, and a fresh Cloudflare API twin per measurement. All on
// 127.0.0.1.
import { setTimeout as sleep } from 'node:timers/promises';
import { type DemoSlotPlan, demoSlugs, demoTwinSeed, seedDemoPool } from '../demo/fixture.ts';
import { SemaphoreClient } from '../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../src/semaphore/local.ts';
import { type SemaphoreProxy, startSemaphoreProxy } from '../test/support/semaphore-proxy.ts';
import { startTwin, type Twin, type TwinOptions } from '../test/twin/twin.ts';

export const SEMAPHORE_TOKEN = 'bench-semaphore-token';
export const CLOUDFLARE_TOKEN = 'bench-cloudflare-token';

export interface BenchStack {
  /** The proxy's URL and the token: what the action is given, so every call it makes is counted. */
  semaphore: { url: string; token: string };
  /** Talks to the semaphore directly, bypassing the proxy: for seeding, not counted. */
  client: SemaphoreClient;
  /** Requests that reached the proxy since `mark` (an index into its log). */
  semaphoreRequestsSince(mark: number): { method: string; path: string }[];
  semaphoreMark(): number;
  /** Adds `ms` to every semaphore call the action makes (0: none). */
  delaySemaphore(ms: number): void;
  stop(): Promise<void>;
}

export async function startBenchStack(): Promise<BenchStack> {
  const semaphore: LocalSemaphore = await startLocalSemaphore({ token: SEMAPHORE_TOKEN });
  let proxy: SemaphoreProxy;
  try {
    proxy = await startSemaphoreProxy(semaphore.url);
  } catch (error) {
    await semaphore.stop();
    throw error;
  }
  return {
    semaphore: { url: proxy.url, token: SEMAPHORE_TOKEN },
    client: new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN }),
    semaphoreMark: () => proxy.requests.length,
    semaphoreRequestsSince: (mark) =>
      proxy.requests.slice(mark).map((request) => ({ method: request.method, path: request.path })),
    delaySemaphore(ms) {
      // After the semaphore answered, before the answer goes back: the action waits `ms` longer.
      proxy.hooks.afterUpstream = ms > 0 ? () => sleep(ms) : undefined;
    },
    stop: async () => {
      await proxy.close();
      await semaphore.stop();
    },
  };
}

/** Every slot of the pool with a lease that has already expired, held by pull requests that went quiet. */
export function expiredPlan(slots: number): DemoSlotPlan[] {
  return demoSlugs(slots).map((slug, index) => ({ slug, state: 'expired', holder: `pr-${2000 + index}` }));
}

export interface PoolOptions {
  pool: string;
  plan: readonly DemoSlotPlan[];
  /** The data behind every slot: orders per D1 database, keys per KV namespace. */
  data?: { orders?: number; kvKeys?: number };
  twin?: Omit<TwinOptions, 'seed' | 'token'>;
}

/** A fresh twin holding the slots' data, and the pool seeded in the semaphore, leases as planned. */
export async function seedPool(stack: BenchStack, options: PoolOptions): Promise<Twin> {
  const slugs = options.plan.map((slot) => slot.slug);
  const twin = await startTwin({
    ...options.twin,
    token: CLOUDFLARE_TOKEN,
    seed: demoTwinSeed(slugs, options.data),
  });
  try {
    await seedDemoPool(stack.client, options.plan, options.pool);
  } catch (error) {
    await twin.close();
    throw error;
  }
  return twin;
}

// The fair queue (issue 31), against the real semaphore Worker in a local workerd on 127.0.0.1:
// 1. 50 pull requests wait for a one-slot pool with the client's own waiting loop (takeSlot: its
//    pauses follow the place, PAUSE_PER_PLACE_MS); the slot is released five times, and each time the
//    figure is how long it sat free before the first in line held it (goal: within one heartbeat), and
//    whether that was the first in line.
// 2. The semaphore's throughput with 50 waiters on one pool: 50 callers send waiting acquires back to
//    back for a few seconds against a full pool; the answers a second, and the 95th percentile of one.
//    Beside it, the load the queue's own pauses put on the semaphore, so the headroom is plain.
// Runs on its own too: `node bench/measure-queue.ts`.
import { fileURLToPath } from 'node:url';
import { PAUSE_PER_PLACE_MS, takeSlot } from '../src/commands/acquire-slot.ts';
import { SemaphoreClient } from '../src/semaphore/client.ts';
import { startLocalSemaphore } from '../src/semaphore/local.ts';
import { QUEUE_HEARTBEAT_MS } from '../src/semaphore/worker/queue.ts';
import { until } from '../test/support/until.ts';

/** The bench polls the semaphore's state every 5 ms: a wait for it, not a measured delay. */
const POLL_MS = 5;

export const QUEUE_WAITERS = 50;
const HANDOFFS = 5;
const THROUGHPUT_MS = 5_000;
const HOUR = 3_600_000;
/** The client's backoff cap (acquire-slot.ts): a waiter far back asks at most this seldom. */
const BACKOFF_CAP_MS = 20_000;

export interface QueueResult {
  waiters: number;
  heartbeatMs: number;
  /** Each release's time until the first in line held the slot. */
  handoffMs: number[];
  /** The longest of them. */
  releaseToHolderMs: number;
  /** Every handoff went to the first in line. */
  inOrder: boolean;
  /** Waiting acquires answered a second, 50 callers back to back. */
  acquiresPerSecond: number;
  p95AcquireMs: number;
  /** The requests a second the 50 waiters' own pauses cause (a listing and an acquire each ask). */
  queueLoadPerSecond: number;
  /** acquiresPerSecond over queueLoadPerSecond. */
  headroom: number;
}

async function handoffs(client: SemaphoreClient, pool: string) {
  await client.add({ type: pool, slug: 'q-1' });
  await client.acquireSpecific({ type: pool, slug: 'q-1', holder: 'pr-1', leaseMs: HOUR });
  const controller = new AbortController();
  const held = new Map<string, number>();
  const ctx = { semaphore: client, pool, now: Date.now, signal: controller.signal, progress: () => {} };
  const waiting: Promise<unknown>[] = [];
  for (let index = 0; index < QUEUE_WAITERS; index++) {
    const holder = `pr-${100 + index}`;
    waiting.push(
      takeSlot(ctx, { holder, leaseMs: HOUR, waitUntil: Date.now() + 10 * 60_000 }).then((taken) => {
        if (taken.lease !== null) held.set(holder, performance.now());
      }),
    );
    await until(async () => ((await client.list(pool)).queue?.length ?? 0) === index + 1, POLL_MS);
  }
  const handoffMs: number[] = [];
  let inOrder = true;
  for (let round = 0; round < HANDOFFS; round++) {
    const first = (await client.list(pool)).queue?.waiters[0]?.holder ?? '';
    await client.release({ type: pool, slug: 'q-1', force: true });
    const releasedAt = performance.now();
    await until(async () => held.size > round, POLL_MS);
    const [holder, at] = [...held.entries()].at(-1) ?? ['', releasedAt];
    handoffMs.push(at - releasedAt);
    if (holder !== first) inOrder = false;
  }
  controller.abort();
  await Promise.all(waiting);
  return { handoffMs, inOrder };
}

async function throughput(client: SemaphoreClient, pool: string) {
  await client.add({ type: pool, slug: 't-1' });
  await client.acquireSpecific({ type: pool, slug: 't-1', holder: 'pr-1', leaseMs: HOUR });
  const latencies: number[] = [];
  const endAt = performance.now() + THROUGHPUT_MS;
  const caller = async (index: number) => {
    while (performance.now() < endAt) {
      const started = performance.now();
      await client
        .acquire({ type: pool, holder: `pr-${200 + index}`, leaseMs: HOUR, wait: true })
        .catch(() => null);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: QUEUE_WAITERS }, (_, index) => caller(index)));
  const seconds = (performance.now() - started) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    acquiresPerSecond: latencies.length / seconds,
    p95AcquireMs: sorted[Math.floor(sorted.length * 0.95)] ?? 0,
  };
}

/** The requests a second 50 waiters make by their pauses: place k asks every min(2k s, 20 s). */
export function queueLoadPerSecond(waiters: number): number {
  let perSecond = 0;
  for (let place = 1; place <= waiters; place++)
    perSecond += 2 / (Math.min(PAUSE_PER_PLACE_MS * place, BACKOFF_CAP_MS) / 1000);
  return perSecond;
}

export async function measureQueue(): Promise<QueueResult> {
  const semaphore = await startLocalSemaphore({ token: 'bench-queue-token' });
  try {
    const client = new SemaphoreClient({ baseUrl: semaphore.url, token: 'bench-queue-token' });
    const { handoffMs, inOrder } = await handoffs(client, 'bench-queue-handoff');
    const { acquiresPerSecond, p95AcquireMs } = await throughput(client, 'bench-queue-throughput');
    const load = queueLoadPerSecond(QUEUE_WAITERS);
    return {
      waiters: QUEUE_WAITERS,
      heartbeatMs: QUEUE_HEARTBEAT_MS,
      handoffMs,
      releaseToHolderMs: Math.max(...handoffMs),
      inOrder,
      acquiresPerSecond,
      p95AcquireMs,
      queueLoadPerSecond: load,
      headroom: acquiresPerSecond / load,
    };
  } finally {
    await semaphore.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await measureQueue();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

// The fair queue's model test (issue 31), against the real Worker in workerd with its test clock:
// fast-check plans random sequences of pull requests asking for a slot of a two-slot pool (waiting or
// not), releasing the slot they hold, leases running out and waiters falling silent past the heartbeat
// (the clock jumps). A small model keeps the queue as the protocol says it is: a waiter joins at the
// back once, keeps its place while it asks within QUEUE_HEARTBEAT_MS, leaves when it gets a slot.
// After every answer: a slot went only to the first live waiter (or to anyone when nobody waits), a
// waiter's place is the model's, no holder holds two slots; and at the end, as slots are freed, every
// live waiter gets one, in queue order: nobody starves.
// PREVIEW_GC_QUEUE_MODEL_RUNS (default 40) sets the runs, PREVIEW_GC_QUEUE_MODEL_SEED replays one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SemaphoreClient, SemaphoreError } from '../../src/semaphore/client.ts';
import type { ListAnswer } from '../../src/semaphore/protocol.ts';
import { QUEUE_HEARTBEAT_MS } from '../../src/semaphore/worker/queue.ts';
import { advanceClock } from '../support/test-clock.ts';
import { freshPool, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile({ testClock: true });
const RUNS = Number(process.env.PREVIEW_GC_QUEUE_MODEL_RUNS ?? 40);
const SEED =
  process.env.PREVIEW_GC_QUEUE_MODEL_SEED === undefined
    ? Date.now()
    : Number(process.env.PREVIEW_GC_QUEUE_MODEL_SEED);
const SLOTS = ['slot-1', 'slot-2'];
const HOLDERS = ['pr-1', 'pr-2', 'pr-3', 'pr-4', 'pr-5', 'pr-6'];
/** A lease outlives a few steps; odd lengths keep a lease's end off the clock's jumps. */
const LEASE_MS = 97_003;

type Step =
  | { kind: 'ask'; holder: string; wait: boolean }
  | { kind: 'release'; holder: string }
  | { kind: 'advance'; ms: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('ask' as const),
      holder: fc.constantFrom(...HOLDERS),
      wait: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('release' as const), holder: fc.constantFrom(...HOLDERS) }),
  },
  // A step's worth of time, a heartbeat and more (silent waiters drop), or a lease's length.
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(7_001, 29_003, QUEUE_HEARTBEAT_MS + 1_009, LEASE_MS + 11),
    }),
  },
);

/** The queue as the protocol describes it; the slots are read from the server's own listing. */
class QueueModel {
  /** Holders in the order they joined, with the server time each last asked. */
  readonly waiters: { holder: string; lastSeen: number }[] = [];

  /** The live waiters at `now`: a waiter silent longer than the heartbeat has left. */
  live(now: number): string[] {
    for (let index = this.waiters.length - 1; index >= 0; index--)
      if ((this.waiters[index]?.lastSeen ?? 0) < now - QUEUE_HEARTBEAT_MS) this.waiters.splice(index, 1);
    return this.waiters.map((waiter) => waiter.holder);
  }

  ask(holder: string, now: number): void {
    const waiter = this.waiters.find((entry) => entry.holder === holder);
    if (waiter === undefined) this.waiters.push({ holder, lastSeen: now });
    else waiter.lastSeen = now;
  }

  leave(holder: string): void {
    const index = this.waiters.findIndex((entry) => entry.holder === holder);
    if (index !== -1) this.waiters.splice(index, 1);
  }
}

/** The holders of the pool's slots; none may hold two (each asks only when it holds none). */
function holdersOf(listing: ListAnswer): Set<string> {
  const held = new Set<string>();
  for (const slot of listing.resources) {
    if (slot.leaseState !== 'leased' || slot.holder === null) continue;
    expect(held.has(slot.holder), `${slot.holder} holds two slots`).toBe(false);
    held.add(slot.holder);
  }
  return held;
}

class Run {
  readonly model = new QueueModel();
  /** Lease ids by holder, from the leases the run was given. */
  readonly leases = new Map<string, { slug: string; leaseId: string }>();

  readonly client: SemaphoreClient;
  readonly type: string;

  constructor(client: SemaphoreClient, type: string) {
    this.client = client;
    this.type = type;
  }

  async step(step: Step): Promise<void> {
    if (step.kind === 'advance') {
      await advanceClock(local.semaphore, this.type, step.ms);
      return;
    }
    const listing = await this.client.list(this.type);
    const held = holdersOf(listing);
    if (step.kind === 'release') {
      const lease = this.leases.get(step.holder);
      if (lease === undefined || !held.has(step.holder)) return;
      await this.client.release({ type: this.type, slug: lease.slug, leaseId: lease.leaseId, clean: true });
      this.leases.delete(step.holder);
      return;
    }
    // A holder with a slot (live or run out) does not ask: its own lease would be the answer.
    if (held.has(step.holder)) return;
    await this.ask(step.holder, step.wait, listing.now);
  }

  /** One acquire, its answer checked against the model. Whether it got a slot. */
  async ask(holder: string, wait: boolean, listedAt: number): Promise<boolean> {
    const ahead = this.model.live(listedAt);
    try {
      const lease = await this.client.acquire({
        type: this.type,
        holder,
        leaseMs: LEASE_MS,
        ...(wait ? { wait } : {}),
      });
      // Slots go in queue order: nobody live was ahead of this holder.
      expect(
        ahead[0] === undefined || ahead[0] === holder,
        `${holder} got a slot with ${ahead.join(', ')} in line`,
      ).toBe(true);
      this.model.leave(holder);
      this.leases.set(holder, { slug: lease.slug, leaseId: lease.leaseId });
      return true;
    } catch (error) {
      if (!(error instanceof SemaphoreError) || error.code !== 'none_available') throw error;
      if (wait) {
        this.model.ask(holder, listedAt);
        const line = this.model.live(listedAt);
        expect(error.queue?.position, `${holder}'s place`).toBe(line.indexOf(holder) + 1);
        expect(error.queue?.length).toBe(line.length);
      }
      return false;
    }
  }

  /**
   * Frees the slots one at a time while every live waiter keeps asking, in an order fast-check picks:
   * each freed slot goes to the first in line, so the line empties in its own order.
   */
  async drain(order: readonly number[]): Promise<void> {
    const { now } = await this.client.list(this.type);
    const line = this.model.live(now);
    const served: string[] = [];
    for (let round = 0; served.length < line.length; round++) {
      expect(round, `the line ${line.join(', ')} was not served in ${line.length} rounds`).toBeLessThan(
        line.length + 1,
      );
      const listing = await this.client.list(this.type);
      for (const slot of listing.resources) {
        if (slot.leaseState !== 'leased' || slot.holder === null) continue;
        const lease = this.leases.get(slot.holder);
        if (lease === undefined) continue;
        await this.client.release({ type: this.type, slug: slot.slug, leaseId: lease.leaseId, clean: true });
        this.leases.delete(slot.holder);
      }
      // Everyone still in line asks, in the plan's order: only the first may take the slot.
      const waiting = line.filter((holder) => !served.includes(holder));
      const asking = order
        .map((index) => waiting[index % waiting.length] ?? '')
        .filter((holder, index, all) => all.indexOf(holder) === index);
      for (const holder of [...asking, ...waiting.filter((holder) => !asking.includes(holder))]) {
        const { now: at } = await this.client.list(this.type);
        if (await this.ask(holder, true, at)) served.push(holder);
      }
    }
    expect(served).toEqual(line);
  }
}

describe('the fair queue, as a model', () => {
  it('gives slots in queue order, never two to one holder, and serves every live waiter as slots are freed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArbitrary, { minLength: 5, maxLength: 30 }),
        fc.array(fc.nat({ max: HOLDERS.length }), { minLength: 1, maxLength: HOLDERS.length }),
        async (steps, order) => {
          const type = freshPool('queue-model');
          for (const slug of SLOTS) await local.client.add({ type, slug });
          const run = new Run(local.client, type);
          for (const step of steps) await run.step(step);
          await run.drain(order);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 120_000);
});

// The fair queue (issue 31) against the real Worker in workerd: three pull requests wait for a
// one-slot pool, started in order; each release gives the slot in that order, and an acquire that
// does not wait never takes it ahead of them. A waiter learns its place, anyone who may read sees the
// queue, and a waiter that leaves (its job cancelled) lets the next move up at once.
import { describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { LEAVE_QUEUE_ROUTE } from '../../src/semaphore/queue-protocol.ts';
import { acrossRestart, expectError, freshPool, raw, semaphoreErrorOf, semaphoreForFile } from './helpers.ts';

const GC_TOKEN = 'queue-gc-token-4f1d9a';
const READ_TOKEN = 'queue-read-token-8b2e7c';
const local = semaphoreForFile({ testClock: true, gcToken: GC_TOKEN, readToken: READ_TOKEN });

const HOUR = 3_600_000;

describe('fair queue', () => {
  it('gives a one-slot pool to the waiters in the order they started', async () => {
    const { client } = local;
    const type = freshPool('queue');
    await client.add({ type, slug: 'slot-1' });
    let held: Lease = await client.acquire({ type, holder: 'pr-1', leaseMs: HOUR });
    const waiters = ['pr-10', 'pr-11', 'pr-12'];
    for (const holder of waiters) {
      const error = await semaphoreErrorOf(client.acquire({ type, holder, leaseMs: HOUR, wait: true }));
      expect(error.code).toBe('none_available');
    }
    for (const expected of waiters) {
      await client.release({ type, slug: held.slug, leaseId: held.leaseId, clean: true });
      const cutIn = await semaphoreErrorOf(client.acquire({ type, holder: 'pr-99', leaseMs: HOUR }));
      expect(cutIn.code).toBe('none_available');
      held = await client.acquire({ type, holder: expected, leaseMs: HOUR, wait: true });
      expect(held.holder).toBe(expected);
    }
  });
});

/** A one-slot pool whose slot pr-1 holds, and `waiters` waiting for it in that order. */
async function fullPoolWith(name: string, waiters: readonly string[]): Promise<string> {
  const { client } = local;
  const type = freshPool(name);
  await client.add({ type, slug: 'slot-1' });
  await client.acquire({ type, holder: 'pr-1', leaseMs: HOUR });
  for (const holder of waiters)
    await semaphoreErrorOf(client.acquire({ type, holder, leaseMs: HOUR, wait: true }));
  return type;
}

describe('the place in the queue', () => {
  it("tells a waiter its place and the queue's length, and a caller that does not wait none", async () => {
    const { client } = local;
    const type = await fullPoolWith('place', ['pr-10', 'pr-11']);
    const second = await semaphoreErrorOf(
      client.acquire({ type, holder: 'pr-11', leaseMs: HOUR, wait: true }),
    );
    expect({ code: second.code, queue: second.queue }).toEqual({
      code: 'none_available',
      queue: { position: 2, length: 2 },
    });
    const first = await semaphoreErrorOf(
      client.acquire({ type, holder: 'pr-10', leaseMs: HOUR, wait: true }),
    );
    expect(first.queue).toEqual({ position: 1, length: 2 });
    const passerBy = await semaphoreErrorOf(client.acquire({ type, holder: 'pr-99', leaseMs: HOUR }));
    expect(passerBy.queue).toBeUndefined();
  });

  it('lists the queue with the pool: place, holder and since when, for a read token too', async () => {
    const { client, semaphore } = local;
    const type = await fullPoolWith('listed', ['pr-20', 'pr-21']);
    const reader = new SemaphoreClient({ baseUrl: semaphore.url, token: READ_TOKEN });
    const listing = await reader.list(type);
    expect(listing.queue).toEqual({
      length: 2,
      waiters: [
        { position: 1, holder: 'pr-20', waitingSince: expect.any(Number) },
        { position: 2, holder: 'pr-21', waitingSince: expect.any(Number) },
      ],
    });
    const [first, second] = listing.queue?.waiters ?? [];
    expect(first?.waitingSince).toBeLessThanOrEqual(second?.waitingSince ?? 0);
    expect(second?.waitingSince).toBeLessThanOrEqual(listing.now);
    const empty = freshPool('no-queue');
    await client.add({ type: empty, slug: 'slot-1' });
    expect((await client.list(empty)).queue).toEqual({ length: 0, waiters: [] });
  });
});

describe('leaving the queue', () => {
  it('takes a cancelled waiter out, so the next moves up at once; leaving twice is harmless', async () => {
    const { client } = local;
    const type = await fullPoolWith('leave', ['pr-30', 'pr-31']);
    expect(await client.leaveQueue({ type, holder: 'pr-30' })).toEqual({ left: true });
    expect((await client.list(type)).queue?.waiters.map((waiter) => waiter.holder)).toEqual(['pr-31']);
    const moved = await semaphoreErrorOf(
      client.acquire({ type, holder: 'pr-31', leaseMs: HOUR, wait: true }),
    );
    expect(moved.queue).toEqual({ position: 1, length: 1 });
    expect(await client.leaveQueue({ type, holder: 'pr-30' })).toEqual({ left: false });
  });

  it('lets only the waiter itself (or an admin) leave: the gc role as gc, never the read role', async () => {
    const { semaphore } = local;
    const type = await fullPoolWith('leave-roles', ['pr-40', 'gc']);
    const leave = (token: string, holder: string) =>
      raw(semaphore, 'POST', LEAVE_QUEUE_ROUTE, { authorization: `Bearer ${token}`, body: { type, holder } });
    const gcForOther = expectError(await leave(GC_TOKEN, 'pr-40'), 403, 'forbidden');
    expect(gcForOther.message).toContain('may not take "pr-40" out of the queue');
    expectError(await leave(READ_TOKEN, 'gc'), 403, 'forbidden');
    expect((await leave(GC_TOKEN, 'gc')).body).toEqual({ left: true });
    expect((await local.client.list(type)).queue?.waiters.map((waiter) => waiter.holder)).toEqual(['pr-40']);
    expectError(await leave(GC_TOKEN, 'pr 40'), 400, 'invalid_request');
  });
});

describe('the queue across a restart', () => {
  it('keeps the waiters and their order when the semaphore restarts (the queue is in its SQLite)', async () => {
    const type = 'queue-restart';
    let held: Lease | undefined;
    await acrossRestart(
      async (client) => {
        await client.add({ type, slug: 'slot-1' });
        held = await client.acquire({ type, holder: 'pr-1', leaseMs: HOUR });
        for (const holder of ['pr-2', 'pr-3'])
          await semaphoreErrorOf(client.acquire({ type, holder, leaseMs: HOUR, wait: true }));
      },
      async (client) => {
        expect((await client.list(type)).queue?.waiters.map((waiter) => waiter.holder)).toEqual([
          'pr-2',
          'pr-3',
        ]);
        await client.release({ type, slug: 'slot-1', leaseId: held?.leaseId ?? '', clean: true });
        const cutIn = await semaphoreErrorOf(
          client.acquire({ type, holder: 'pr-3', leaseMs: HOUR, wait: true }),
        );
        expect(cutIn.queue).toEqual({ position: 2, length: 2 });
        expect((await client.acquire({ type, holder: 'pr-2', leaseMs: HOUR, wait: true })).holder).toBe(
          'pr-2',
        );
      },
    );
  }, 60_000);
});

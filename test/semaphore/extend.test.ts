// Extend (issue 31's keep label): gc moves a pull request's lease's end later, only while the slot still
// has the lease it read (holder, generation and lease version, all three required), never past the cap
// after the lease began and never earlier than it ends already. Against the real Worker in workerd.
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { advanceClock } from '../support/test-clock.ts';
import { expectError, freshPool, raw, semaphoreErrorOf, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile({ testClock: true });

const HOUR = 3_600_000;

/** A pool whose preview-1 pr-7 leased for an hour. */
async function leasedByPr7(name: string): Promise<{ type: string; lease: Lease }> {
  const type = freshPool(name);
  await local.client.add({ type, slug: 'preview-1' });
  const lease = await local.client.acquireSpecific({
    type,
    slug: 'preview-1',
    holder: 'pr-7',
    leaseMs: HOUR,
  });
  if (lease === null) throw new Error('pr-7 could not take preview-1');
  return { type, lease };
}

/** gc's keep of the lease it read: the full condition, at most 72 hours after the lease began unless said. */
const keep = (type: string, lease: Lease, more: { leaseMs: number; maxHeldMs?: number }) => ({
  type,
  slug: 'preview-1',
  ifHolder: lease.holder,
  ifGeneration: lease.generation,
  ifLeaseVersion: lease.leaseVersion,
  maxHeldMs: 72 * HOUR,
  ...more,
});

async function snapshot(type: string) {
  return {
    slot: await local.client.find(type, 'preview-1'),
    events: await local.client.events(type, 'preview-1'),
  };
}

describe.concurrent('extend', () => {
  it('keeps an expired lease nobody took: its end moves on, its version counts up, and the history says so', async () => {
    const { type, lease } = await leasedByPr7('extend-expired');
    const now = await advanceClock(local.semaphore, type, 2 * HOUR);
    const read = await local.client.find(type, 'preview-1');
    expect(read).toMatchObject({ expired: true, keptUntil: null });

    const answer = await local.client.extend({ ...keep(type, lease, { leaseMs: 2 * HOUR }), note: 'kept' });
    expect(answer).toEqual({
      extended: true,
      holder: 'pr-7',
      generation: lease.generation,
      leaseVersion: 2,
      leasedUntil: expect.any(Number),
      conditionFailed: false,
      queue: { length: 0, oldestWaitMs: 0 },
    });
    // Two hours from the server's now (which runs on while the test does).
    const until = answer.leasedUntil ?? 0;
    expect(until).toBeGreaterThanOrEqual(now + 2 * HOUR);
    expect(await local.client.find(type, 'preview-1')).toMatchObject({
      holder: 'pr-7',
      expired: false,
      leasedUntil: until,
      leaseVersion: 2,
      generation: lease.generation,
      // The slot says it is kept, and at most until when: 72 hours after the lease began.
      keptUntil: (read.lastAcquiredAt ?? 0) + 72 * HOUR,
    });
    const [event] = await local.client.events(type, 'preview-1');
    expect(event).toMatchObject({
      event: 'renewed',
      holder: 'pr-7',
      detail: { leasedUntil: until, leaseVersion: 2, extended: true, note: 'kept' },
    });
    // The pull request's own lease id still renews it: the keep changed the end, not the lease.
    expect(
      await local.client.renew({ type, slug: 'preview-1', leaseId: lease.leaseId, leaseMs: HOUR }),
    ).toMatchObject({ leaseVersion: 3 });
    // Renewed by its holder, the lease is its own again, no longer kept.
    expect(await local.client.find(type, 'preview-1')).toMatchObject({ keptUntil: null });
  });

  it('never past maxHeldMs after the lease began, and nothing at all once the cap is reached', async () => {
    const { type, lease } = await leasedByPr7('extend-cap');
    const began = (await local.client.find(type, 'preview-1')).lastAcquiredAt ?? 0;
    await advanceClock(local.semaphore, type, 2 * HOUR);
    const capped = await local.client.extend(keep(type, lease, { leaseMs: 4 * HOUR, maxHeldMs: 3 * HOUR }));
    expect(capped).toMatchObject({ extended: true, leasedUntil: began + 3 * HOUR, leaseVersion: 2 });

    // At the cap: nothing moves, and the condition held (it is the cap, not someone else).
    const before = await snapshot(type);
    const again = await local.client.extend(
      keep(type, { ...lease, leaseVersion: 2 }, { leaseMs: 4 * HOUR, maxHeldMs: 3 * HOUR }),
    );
    expect(again).toEqual({
      extended: false,
      holder: 'pr-7',
      generation: lease.generation,
      leaseVersion: 2,
      leasedUntil: began + 3 * HOUR,
      conditionFailed: false,
      queue: { length: 0, oldestWaitMs: 0 },
    });
    await advanceClock(local.semaphore, type, 2 * HOUR);
    expect(
      await local.client.extend(
        keep(type, { ...lease, leaseVersion: 2 }, { leaseMs: 4 * HOUR, maxHeldMs: 3 * HOUR }),
      ),
    ).toMatchObject({ extended: false, conditionFailed: false });
    expect((await snapshot(type)).events).toEqual(before.events);
  });

  it('says how many wait for a slot of the pool and how long the first has: what keeping costs', async () => {
    const { type, lease } = await leasedByPr7('extend-queue');
    // The pool is full: pr-8 and pr-9 wait in its queue.
    for (const holder of ['pr-8', 'pr-9']) {
      const refused = await semaphoreErrorOf(
        local.client.acquire({ type, holder, leaseMs: HOUR, wait: true }),
      );
      expect(refused.code).toBe('none_available');
    }
    await advanceClock(local.semaphore, type, 30_000);
    const answer = await local.client.extend(keep(type, lease, { leaseMs: 2 * HOUR }));
    expect(answer).toMatchObject({ extended: true, queue: { length: 2 } });
    expect(answer.queue.oldestWaitMs).toBeGreaterThanOrEqual(30_000);
    expect(answer.queue.oldestWaitMs).toBeLessThan(60_000);
  });

  it('never shortens a lease: an end already later than asked stays', async () => {
    const { type, lease } = await leasedByPr7('extend-shorter');
    const answer = await local.client.extend(keep(type, lease, { leaseMs: 10 * 60_000 }));
    expect(answer).toMatchObject({ extended: false, conditionFailed: false, leasedUntil: lease.expiresAt });
  });

  it('changes nothing once the lease moved on: renewed by its deploy, taken over after expiry, or released', async () => {
    // Renewed since the read (a push): the same holder and generation, another version.
    const renewed = await leasedByPr7('extend-renewed');
    await local.client.renew({
      type: renewed.type,
      slug: 'preview-1',
      leaseId: renewed.lease.leaseId,
      leaseMs: HOUR,
    });
    // Taken over after it expired, by another pull request (a newer generation).
    const taken = await leasedByPr7('extend-taken');
    await advanceClock(local.semaphore, taken.type, 2 * HOUR);
    await local.client.acquireSpecific({
      type: taken.type,
      slug: 'preview-1',
      holder: 'pr-8',
      leaseMs: HOUR,
    });
    // Released (the pull request closed).
    const released = await leasedByPr7('extend-released');
    await local.client.release({ type: released.type, slug: 'preview-1', leaseId: released.lease.leaseId });

    for (const [{ type, lease }, holder] of [
      [renewed, 'pr-7'],
      [taken, 'pr-8'],
      [released, null],
    ] as const) {
      const before = await snapshot(type);
      const answer = await local.client.extend(keep(type, lease, { leaseMs: 5 * HOUR }));
      expect(answer).toMatchObject({ extended: false, conditionFailed: true, holder });
      expect(await snapshot(type)).toEqual(before);
    }
  });

  it('needs all three conditions (400), and a slot that exists (404)', async () => {
    const { type, lease } = await leasedByPr7('extend-invalid');
    const { ifLeaseVersion: _version, ...withoutVersion } = keep(type, lease, { leaseMs: HOUR });
    const error = expectError(
      await raw(local.semaphore, 'POST', '/api/resources/extend', { body: withoutVersion }),
      400,
      'invalid_request',
    );
    expect(error.message).toContain('ifLeaseVersion');
    expectError(
      await raw(local.semaphore, 'POST', '/api/resources/extend', {
        body: { ...keep(type, lease, { leaseMs: HOUR }), slug: 'preview-9' },
      }),
      404,
      'not_found',
    );
  });
});

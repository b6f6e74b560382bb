// The fair queue (issue 31) against the real Worker in workerd: three pull requests wait for a
// one-slot pool, started in order; each release gives the slot in that order, and an acquire that
// does not wait never takes it ahead of them.
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { freshPool, semaphoreErrorOf, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile({ testClock: true });

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

// The pool's fair queue (worker/queue.ts, issue 31) over a node:sqlite store: a freed slot goes to the
// first waiter, in the order the waiters joined, and nobody else takes it ahead of them.
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { applyPoolCommand, type PoolCommand, type PoolOutcome } from '../../src/semaphore/worker/pool.ts';
import { QUEUE_HEARTBEAT_MS } from '../../src/semaphore/worker/queue.ts';
import { migrate, POOL_MIGRATIONS } from '../../src/semaphore/worker/schema.ts';
import { PoolStore } from '../../src/semaphore/worker/store.ts';
import { openTestDatabase } from './sqlite-database.ts';

const T0 = 1_784_000_000_000;
const TYPE = 'preview-slot';
const HOUR = 3_600_000;

function openPool() {
  const db = openTestDatabase();
  db.transaction(() => migrate(db, POOL_MIGRATIONS));
  const store = new PoolStore(db);
  const run = (command: PoolCommand, now: number): PoolOutcome =>
    db.transaction(() => applyPoolCommand(store, command, now));
  return { store, run };
}

const acquire = (holder: string, wait: boolean): PoolCommand => ({
  op: 'acquire',
  request: { type: TYPE, holder, leaseMs: HOUR, ...(wait ? { wait: true } : {}) },
});

const lease = (outcome: PoolOutcome): Lease => {
  if (!outcome.ok) throw new Error(`expected a lease, got ${outcome.code}: ${outcome.message}`);
  return outcome.body as Lease;
};

describe('fair queue of one pool', () => {
  it('gives a one-slot pool to three waiting pull requests in the order they started', () => {
    const { run } = openPool();
    let now = T0;
    run({ op: 'add', request: { type: TYPE, slug: 'preview-1' } }, now);
    let held = lease(run(acquire('pr-1', false), now));
    const waiters = ['pr-10', 'pr-11', 'pr-12'];
    for (const holder of waiters) {
      now += 1_000;
      expect(run(acquire(holder, true), now)).toMatchObject({ ok: false, code: 'none_available' });
    }
    for (const expected of waiters) {
      now += 1_000;
      run(
        { op: 'release', request: { type: TYPE, slug: held.slug, leaseId: held.leaseId, clean: true } },
        now,
      );
      // An acquire that does not wait never takes the slot ahead of the queue.
      expect(run(acquire('pr-99', false), now)).toMatchObject({ ok: false, code: 'none_available' });
      // Waiters behind the first keep asking and keep their places, but do not take it.
      for (const other of waiters.slice(waiters.indexOf(expected) + 1)) {
        expect(run(acquire(other, true), now)).toMatchObject({ ok: false, code: 'none_available' });
      }
      held = lease(run(acquire(expected, true), now));
      expect(held.holder).toBe(expected);
    }
  });

  it('a freed dirty slot goes to the first waiter too', () => {
    const { run } = openPool();
    run({ op: 'add', request: { type: TYPE, slug: 'preview-1' } }, T0);
    const held = lease(run(acquire('pr-1', false), T0));
    run(acquire('pr-2', true), T0 + 1);
    run(
      { op: 'release', request: { type: TYPE, slug: held.slug, leaseId: held.leaseId, clean: false } },
      T0 + 2,
    );
    expect(run(acquire('pr-3', false), T0 + 3)).toMatchObject({ ok: false });
    expect(lease(run(acquire('pr-2', true), T0 + 4)).holder).toBe('pr-2');
  });

  it('a waiter silent longer than the heartbeat leaves the queue', () => {
    const { run, store } = openPool();
    run({ op: 'add', request: { type: TYPE, slug: 'preview-1' } }, T0);
    const held = lease(run(acquire('pr-1', false), T0));
    run(acquire('pr-2', true), T0);
    run(
      { op: 'release', request: { type: TYPE, slug: held.slug, leaseId: held.leaseId, clean: true } },
      T0 + 1,
    );
    expect(store.queue.summary(T0 + 1)).toEqual({ length: 1, oldestWaitMs: 1 });
    const later = T0 + QUEUE_HEARTBEAT_MS + 2;
    expect(lease(run(acquire('pr-3', false), later)).holder).toBe('pr-3');
    expect(store.queue.summary(later)).toEqual({ length: 0, oldestWaitMs: 0 });
  });
});

// takeSlot's wait in the pool's queue (issue 31), against a scripted semaphore: each waiting answer's
// place reaches the progress line and the comment hook, and a wait that ends without a slot leaves the
// queue once, a failed leave being no failure (the place lapses by itself after the heartbeat).
import { describe, expect, it } from 'vitest';
import { PAUSE_PER_PLACE_MS, takeSlot } from '../../src/commands/acquire-slot.ts';
import type { ProgressEvent } from '../../src/commands/context.ts';
import type { QueuePlaceReport } from '../../src/report/model.ts';
import { SemaphoreError } from '../../src/semaphore/client.ts';
import type { AcquireRequest, Lease, QueuePlace } from '../../src/semaphore/protocol.ts';
import type { LeaveQueueAnswer, LeaveQueueRequest } from '../../src/semaphore/queue-protocol.ts';
import {
  commandContext,
  HOUR,
  NOW,
  POOL,
  ScriptedSemaphore,
  scriptedEraser,
  slotRecord,
} from './scripted-clients.ts';

/** A full pool of two live leases whose acquire answers 409 with `place` (none: not waiting). */
class FullPool extends ScriptedSemaphore {
  readonly acquires: AcquireRequest[] = [];
  readonly leaves: LeaveQueueRequest[] = [];
  leaveFails = false;

  readonly place: QueuePlace | undefined;

  constructor(place: QueuePlace | undefined) {
    super();
    this.place = place;
    this.listing = {
      now: NOW,
      resources: ['preview-1', 'preview-2'].map((slug) =>
        slotRecord(slug, { leaseState: 'leased', holder: 'pr-1', leasedUntil: NOW + HOUR }),
      ),
    };
  }

  override async acquire(request: AcquireRequest): Promise<Lease> {
    this.acquires.push(request);
    throw new SemaphoreError({
      status: 409,
      code: 'none_available',
      operation: 'POST /api/resources/acquire',
      message: 'no slot',
      ...(request.wait === true && this.place !== undefined ? { queue: this.place } : {}),
    });
  }

  override async leaveQueue(request: LeaveQueueRequest): Promise<LeaveQueueAnswer> {
    this.leaves.push(request);
    if (this.leaveFails)
      throw new SemaphoreError({
        status: 500,
        code: 'internal',
        operation: 'POST /api/queue/leave',
        message: 'down',
      });
    return { left: true };
  }
}

/** Waits in `semaphore`'s queue until the first "asking again" line, then stops as SIGTERM would. */
async function waitUntilStopped(semaphore: FullPool) {
  const controller = new AbortController();
  const events: ProgressEvent[] = [];
  const told: QueuePlaceReport[] = [];
  const ctx = commandContext(semaphore, scriptedEraser(), {
    signal: controller.signal,
    progress: (event) => {
      events.push(event);
      if (event.kind === 'waiting-for-slot') controller.abort('SIGTERM');
    },
  });
  const taken = await takeSlot(ctx, {
    holder: 'pr-42',
    leaseMs: HOUR,
    waitUntil: NOW + 10 * 60_000,
    onPlace: async (place) => {
      told.push(place);
    },
  });
  return { taken, events, told };
}

describe('takeSlot waiting in line', () => {
  it('tells the place, and leaves the queue once when the wait is stopped', async () => {
    const semaphore = new FullPool({ position: 2, length: 3 });
    const { taken, events, told } = await waitUntilStopped(semaphore);
    const place = { position: 2, length: 3, slots: 2, leased: 2 };
    expect(taken).toMatchObject({ lease: null, attempts: 1, place });
    expect(semaphore.acquires.map((request) => request.wait)).toEqual([true]);
    expect(told).toEqual([place]);
    expect(events).toContainEqual(expect.objectContaining({ kind: 'waiting-for-slot', pool: POOL, place }));
    expect(semaphore.leaves).toEqual([{ type: POOL, holder: 'pr-42' }]);
  });

  it('ends the stopped wait all the same when the leave fails', async () => {
    const semaphore = new FullPool({ position: 1, length: 1 });
    semaphore.leaveFails = true;
    const { taken } = await waitUntilStopped(semaphore);
    expect(taken).toMatchObject({ lease: null, place: { position: 1, length: 1 } });
    expect(semaphore.leaves).toHaveLength(1);
  });

  it('leaves nothing when it never was in line (an older semaphore, or an acquire that does not wait)', async () => {
    const older = new FullPool(undefined);
    const { taken, told } = await waitUntilStopped(older);
    expect(taken.place).toBeNull();
    expect(told).toEqual([]);
    expect(older.leaves).toEqual([]);
    const once = new FullPool({ position: 1, length: 1 });
    const result = await takeSlot(commandContext(once, scriptedEraser()), {
      holder: 'pr-42',
      leaseMs: HOUR,
      waitUntil: NOW,
    });
    expect(result.place).toBeNull();
    expect(once.acquires.map((request) => request.wait)).toEqual([undefined]);
    expect(once.leaves).toEqual([]);
  });

  // A freed slot is kept for the first waiter; a waiter that learns it moved up only when it next asks
  // would leave the slot idle for up to the backoff's 20 s. The pause follows the place instead.
  it('asks again within 2 s a place: the first within 2 s, the third within 6 s', async () => {
    const pauseAt = async (place: QueuePlace | undefined) => {
      const { events } = await waitUntilStopped(new FullPool(place));
      const waiting = events.find((event) => event.kind === 'waiting-for-slot');
      return waiting?.kind === 'waiting-for-slot' ? waiting.retryInMs : undefined;
    };
    expect(await pauseAt({ position: 1, length: 4 })).toBeLessThanOrEqual(PAUSE_PER_PLACE_MS);
    expect(await pauseAt({ position: 3, length: 4 })).toBeLessThanOrEqual(3 * PAUSE_PER_PLACE_MS);
  });
});

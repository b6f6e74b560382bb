// Taking a pull request's slot: the lease it already holds, extended (`reuseHeld`, one slot per pull
// request), or else a free or expired slot in the semaphore's own order. Never by force. Slots that
// need repair are left out (`allowedSlugs`): handing one to a deploy would only fail its erase again.
// When nothing can be had, it asks again with backoff until the wait is over, waiting in the pool's
// queue: each answer tells its place, and a wait that ends without a slot (cancelled, or over) leaves
// the queue at once, so the waiters behind move up now rather than a heartbeat later.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type BackoffPolicy, backoffMs } from '../net/retry.ts';
import { needsRepair, type QueuePlaceReport } from '../report/model.ts';
import { SemaphoreError } from '../semaphore/client.ts';
import type { Lease, ListAnswer, QueuePlace } from '../semaphore/protocol.ts';
import type { CommandContext } from './context.ts';

/** Waits for a free slot: 3 s first, each next one doubled up to 20 s, jittered. */
// The longest pause stays well inside the semaphore's queue heartbeat (60 s), so a waiter keeps its place.
const WAIT_FOR_SLOT: BackoffPolicy = { baseMs: 3_000, maxMs: 20_000 };

/**
 * A waiter in the queue pauses at most this long per place ahead of it and its own: the first asks
 * again within 2 s, the second within 4 s, and so on up to the backoff's cap. A freed slot is kept
 * for the first waiter (nobody else may take it), so it sits idle until that waiter asks again; this
 * bounds that idle time to a few seconds, for a few requests a second for a whole queue of 50.
 */
export const PAUSE_PER_PLACE_MS = 2_000;

export interface SlotRequest {
  holder: string;
  leaseMs: number;
  /** Until when (ctx.now) to ask again when no slot can be had; now or earlier asks once. */
  waitUntil: number;
  /** Told the place after each attempt that left the holder waiting in the queue (the sticky comment). */
  onPlace?: (place: QueuePlaceReport) => Promise<void>;
}

export interface TakenSlot {
  /** null: nothing could be had until the wait was over (or the run was stopped). */
  lease: Lease | null;
  /** The pool as it was at the last attempt. */
  listing: ListAnswer;
  attempts: number;
  /** The last place in the pool's queue, when the wait ended there without a slot. */
  place: QueuePlaceReport | null;
}

/**
 * The slots this holder may get: every slot that does not need repair, and any slot it already holds
 * (the server extends that one wherever it is; naming it keeps the list non-empty when every other
 * slot needs repair). Empty: nothing can be had.
 */
function allowedSlugsFor(listing: ListAnswer, holder: string): string[] {
  return listing.resources
    .filter((slot) => !needsRepair(slot) || (slot.holder === holder && !slot.expired))
    .map((slot) => slot.slug);
}

/** The place a waiting acquire's 409 gave, with the pool's slots as the same attempt listed them. */
function placeOf(queue: QueuePlace, listing: ListAnswer): QueuePlaceReport {
  const leased = listing.resources.filter((slot) => slot.leaseState === 'leased' && !slot.expired).length;
  return { ...queue, slots: listing.resources.length, leased };
}

/** A lease, or none and the place in the queue when the answer gave one. */
async function acquireOnce(
  ctx: SlotTaker,
  request: SlotRequest,
  listing: ListAnswer,
): Promise<{ lease: Lease } | { lease: null; queue: QueuePlace | undefined }> {
  const allowed = allowedSlugsFor(listing, request.holder);
  if (allowed.length === 0) return { lease: null, queue: undefined };
  const avoiding = allowed.length < listing.resources.length;
  try {
    const lease = await ctx.semaphore.acquire({
      type: ctx.pool,
      holder: request.holder,
      leaseMs: request.leaseMs,
      reuseHeld: true,
      // Waiting: join the pool's queue, or keep its place there (the semaphore's fair queue).
      ...(request.waitUntil > ctx.now() ? { wait: true } : {}),
      // One id per attempt: a lost answer retried by the client gets this attempt's lease back.
      requestId: randomUUID(),
      ...(avoiding ? { allowedSlugs: allowed } : {}),
    });
    return { lease };
  } catch (error) {
    if (error instanceof SemaphoreError && error.code === 'none_available')
      return { lease: null, queue: error.queue };
    throw error;
  }
}

/**
 * A wait that ends without a slot leaves the queue. Only a courtesy to the waiters behind: should the
 * call fail, the place lapses by itself after the semaphore's heartbeat (60 s).
 */
async function leaveQueue(ctx: SlotTaker, holder: string): Promise<void> {
  await ctx.semaphore.leaveQueue({ type: ctx.pool, holder }).catch(() => undefined);
}

/** What taking a slot needs of the run: the semaphore, the pool, the clock, the stop signal, the log. */
export type SlotTaker = Pick<CommandContext, 'semaphore' | 'pool' | 'now' | 'signal' | 'progress'>;

export async function takeSlot(ctx: SlotTaker, request: SlotRequest): Promise<TakenSlot> {
  let place: QueuePlaceReport | null = null;
  const noSlot = async (listing: ListAnswer, attempts: number): Promise<TakenSlot> => {
    if (place !== null) await leaveQueue(ctx, request.holder);
    return { lease: null, listing, attempts, place };
  };
  for (let attempt = 1; ; attempt++) {
    const listing = await ctx.semaphore.list(ctx.pool);
    const taken = await acquireOnce(ctx, request, listing);
    if (taken.lease !== null) return { lease: taken.lease, listing, attempts: attempt, place: null };
    const told = taken.queue === undefined ? null : placeOf(taken.queue, listing);
    if (told !== null) place = told;
    const left = request.waitUntil - ctx.now();
    if (left <= 0 || ctx.signal.aborted) return noSlot(listing, attempt);
    const backoff = backoffMs(attempt, WAIT_FOR_SLOT);
    const waitMs = Math.min(
      told === null ? backoff : Math.min(backoff, PAUSE_PER_PLACE_MS * told.position),
      left,
    );
    // The comment first, then the log line: whoever reads the log finds the comment up to date.
    if (told !== null) await request.onPlace?.(told);
    ctx.progress({
      kind: 'waiting-for-slot',
      pool: ctx.pool,
      attempt,
      retryInMs: waitMs,
      ...(told === null ? {} : { place: told }),
    });
    try {
      await sleep(waitMs, undefined, { signal: ctx.signal });
    } catch {
      return noSlot(listing, attempt);
    }
  }
}

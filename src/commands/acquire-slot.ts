// Taking a pull request's slot: the lease it already holds, extended (`reuseHeld`, one slot per pull
// request), or else a free or expired slot in the semaphore's own order. Never by force. Slots that
// need repair are left out (`allowedSlugs`): handing one to a deploy would only fail its erase again.
// When nothing can be had, it asks again with backoff until the wait is over.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type BackoffPolicy, backoffMs } from '../net/retry.ts';
import { needsRepair } from '../report/model.ts';
import { SemaphoreError } from '../semaphore/client.ts';
import type { Lease, ListAnswer } from '../semaphore/protocol.ts';
import type { CommandContext } from './context.ts';

/** Waits for a free slot: 3 s first, each next one doubled up to 60 s, jittered. */
// The longest pause stays well inside the semaphore's queue heartbeat (60 s), so a waiter keeps its place.
const WAIT_FOR_SLOT: BackoffPolicy = { baseMs: 3_000, maxMs: 20_000 };

export interface SlotRequest {
  holder: string;
  leaseMs: number;
  /** Until when (ctx.now) to ask again when no slot can be had; now or earlier asks once. */
  waitUntil: number;
}

export interface TakenSlot {
  /** null: nothing could be had until the wait was over (or the run was stopped). */
  lease: Lease | null;
  /** The pool as it was at the last attempt. */
  listing: ListAnswer;
  attempts: number;
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

async function acquireOnce(
  ctx: CommandContext,
  request: SlotRequest,
  listing: ListAnswer,
): Promise<Lease | null> {
  const allowed = allowedSlugsFor(listing, request.holder);
  if (allowed.length === 0) return null;
  const avoiding = allowed.length < listing.resources.length;
  try {
    return await ctx.semaphore.acquire({
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
  } catch (error) {
    if (error instanceof SemaphoreError && error.code === 'none_available') return null;
    throw error;
  }
}

export async function takeSlot(ctx: CommandContext, request: SlotRequest): Promise<TakenSlot> {
  for (let attempt = 1; ; attempt++) {
    const listing = await ctx.semaphore.list(ctx.pool);
    const lease = await acquireOnce(ctx, request, listing);
    const left = request.waitUntil - ctx.now();
    if (lease !== null || left <= 0 || ctx.signal.aborted) return { lease, listing, attempts: attempt };
    const waitMs = Math.min(backoffMs(attempt, WAIT_FOR_SLOT), left);
    ctx.progress({ kind: 'waiting-for-slot', attempt, retryInMs: waitMs });
    try {
      await sleep(waitMs, undefined, { signal: ctx.signal });
    } catch {
      return { lease: null, listing, attempts: attempt };
    }
  }
}

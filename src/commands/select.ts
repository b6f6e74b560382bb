// Which slots a sweep takes, decided from one listing and the server's clock only (pure).
import type { Slot } from '../semaphore/protocol.ts';

export type SelectionReason = 'expired' | 'dirty';

export interface SelectedSlot {
  slot: Slot;
  reason: SelectionReason;
  /** Server time the slot has been waiting: since its lease expired, or since its dirty release. */
  waitingMs: number;
}

export interface Selection {
  /** Slots to attempt this run, oldest first. */
  selected: SelectedSlot[];
  /** Slots that qualified but were left for the next run by `max-slots`. */
  leftForNextRun: number;
  /** Leased slots whose lease has expired, counted before `max-slots` applies. */
  expiredCount: number;
}

export interface SelectionOptions {
  reclaimDirty: boolean;
  maxSlots: number;
}

function candidateOf(slot: Slot, now: number, reclaimDirty: boolean): SelectedSlot | null {
  if (slot.leaseState === 'leased' && slot.expired && slot.leasedUntil !== null) {
    return { slot, reason: 'expired', waitingMs: Math.max(0, now - slot.leasedUntil) };
  }
  if (reclaimDirty && slot.leaseState === 'available' && slot.dirty) {
    const since = slot.lastReleasedAt ?? slot.updatedAt;
    return { slot, reason: 'dirty', waitingMs: Math.max(0, now - since) };
  }
  return null;
}

export function selectSlots(
  listing: { now: number; resources: Slot[] },
  options: SelectionOptions,
): Selection {
  const candidates = listing.resources
    .map((slot) => candidateOf(slot, listing.now, options.reclaimDirty))
    .filter((candidate) => candidate !== null)
    // Longest waiting first; the slug breaks ties so two runners agree on the order.
    .sort((a, b) => b.waitingMs - a.waitingMs || a.slot.slug.localeCompare(b.slot.slug));
  return {
    selected: candidates.slice(0, options.maxSlots),
    leftForNextRun: Math.max(0, candidates.length - options.maxSlots),
    expiredCount: candidates.filter((candidate) => candidate.reason === 'expired').length,
  };
}

// What the commands (gc, cleanup, status) are given: clients and knobs, all passed in, none global.
import type { ApiUsageReport, EraseStepReport, PoolRow } from '../report/model.ts';
import type { SemaphoreClient } from '../semaphore/client.ts';
import type { Slot } from '../semaphore/protocol.ts';

export interface EraseRequest {
  slug: string;
  /** Renews the run's lease; false means someone forced the slot away and the erase must stop. */
  fence: () => Promise<boolean>;
  /**
   * Asked before every Cloudflare request inside a step; renews the lease when it is due. False
   * means the lease can no longer be proven and the step must stop before its next request.
   */
  fenceWithinStep?: () => Promise<boolean>;
  dryRun: boolean;
}

export interface EraseOutcome {
  /** `complete`: every step verified; only then is a slot released clean. */
  status: 'complete' | 'fenced' | 'deferred' | 'failed' | 'aborted';
  steps: EraseStepReport[];
  requests: number;
  /** What went wrong, for a person. */
  problem?: string;
  /** The exact next step for a person, when the erase cannot heal itself next sweep. */
  nextStep?: string;
}

export interface SlotEraser {
  /** Why this slot's resources must not be touched (a protected name, a bad template), or null. No call is made. */
  refusal(slug: string): string | null;
  /** Erases one slot's Cloudflare resources in the design's order (compute, D1, KV, R2). */
  erase(request: EraseRequest): Promise<EraseOutcome>;
}

export type ProgressEvent =
  | { kind: 'listed'; slots: number; selected: number }
  | { kind: 'slot-started'; slug: string; index: number; total: number }
  | { kind: 'slot-finished'; slug: string; outcome: string; durationMs: number };

export interface CommandContext {
  pool: string;
  semaphore: SemaphoreClient;
  /** Makes no Cloudflare call until a slot is erased, so a quiet sweep makes none at all. */
  eraser: SlotEraser;
  /** Cloudflare usage so far, or null when the command has no Cloudflare client. */
  cloudflareUsage: () => ApiUsageReport | null;
  /** Aborted on SIGINT/SIGTERM: stop the current step, release, report. */
  signal: AbortSignal;
  progress: (event: ProgressEvent) => void;
  now: () => number;
}

export const GC_HOLDER = 'gc';

export function poolRowsOf(listing: { now: number; resources: Slot[] }): PoolRow[] {
  return listing.resources.map((slot) => ({
    slug: slot.slug,
    leaseState: slot.leaseState,
    holder: slot.holder,
    expired: slot.expired,
    leaseEndsInMs: slot.leasedUntil === null ? null : slot.leasedUntil - listing.now,
    dirty: slot.dirty,
    generation: slot.generation,
    lastHolder: slot.lastHolder,
  }));
}

/** The pool as it is now, or null when the semaphore does not answer: the run's outcome stands either way. */
export async function listPoolRows(ctx: CommandContext): Promise<PoolRow[] | null> {
  try {
    return poolRowsOf(await ctx.semaphore.list(ctx.pool));
  } catch {
    return null;
  }
}

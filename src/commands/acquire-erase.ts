// Erase-on-acquire: a slot that held someone else's data (released dirty, or taken over from an
// expired lease) is erased under the pull request's new lease before its deploy may use it, with the
// same erase, fences, pacer and budget as gc. When the erase does not complete, the slot is released
// dirty (with the failed step, so a slot that keeps failing is flagged) and is not handed over.
import type { IncomingDeploy } from '../kinds/step.ts';
import type { Lease } from '../semaphore/protocol.ts';
import type { CommandContext } from './context.ts';
import {
  type OutcomeOfErase,
  oneLineError,
  type ReportBase,
  releaseHeldLease,
  runFencedErase,
  type UntimedSlotReport,
} from './lease.ts';

/** Acquisitions in the event log: the event that started a lease of a given generation. */
const ACQUISITIONS = new Set(['acquired', 'took-expired', 'evicted']);

/** The note of the `marked-dirty` event that says a lease's erase-on-acquire completed. */
export function erasedOnAcquireNote(holder: string): string {
  return `erased before ${holder} deploys into it`;
}

export interface EraseNeed {
  needed: boolean;
  reason: 'dirty' | 'expired';
  /** Whose data it was. */
  previousHolder: string | null;
}

/**
 * Whether the slot may still hold a previous tenant's data. A new lease says so itself (`wasDirty`,
 * `tookExpired`). A lease the pull request already held (`reused`) was erased when it was taken,
 * unless that run died before the erase completed: the slot's history tells, by the note a completed
 * erase leaves. When the history cannot tell, the slot is erased again (the deploy loses its own data,
 * never sees anyone else's).
 */
export async function eraseNeededFor(ctx: CommandContext, lease: Lease): Promise<EraseNeed> {
  if (!lease.reused) {
    return {
      needed: lease.wasDirty || lease.tookExpired,
      reason: lease.tookExpired ? 'expired' : 'dirty',
      previousHolder: lease.previousHolder,
    };
  }
  const events = (await ctx.semaphore.events(ctx.pool, lease.slug, 500)).filter(
    (event) => event.generation === lease.generation,
  );
  const start = events.find((event) => ACQUISITIONS.has(event.event));
  const previousHolder =
    typeof start?.detail.previousHolder === 'string' ? start.detail.previousHolder : lease.previousHolder;
  const erased = events.some(
    (event) => event.event === 'marked-dirty' && event.detail.note === erasedOnAcquireNote(lease.holder),
  );
  const tookOver = start === undefined || start.event !== 'acquired';
  return {
    needed: !erased && (start === undefined || start.detail.wasDirty === true || tookOver),
    reason: tookOver ? 'expired' : 'dirty',
    previousHolder,
  };
}

const acquireOutcomeOf: OutcomeOfErase = (erase) => {
  switch (erase.status) {
    case 'complete':
      return { outcome: 'erased' };
    case 'fenced':
      return { outcome: 'skipped', problem: 'someone forced the slot away during its erase' };
    case 'deferred':
      return {
        outcome: 'deferred',
        problem: `the erase could not finish (${erase.problem ?? 'out of request budget or time'}); the slot was released dirty`,
      };
    case 'aborted':
      return {
        outcome: 'interrupted',
        problem: 'stopped by a signal mid-erase; the slot was released dirty',
      };
    case 'failed':
      return {
        outcome: 'erase-failed',
        problem: `the erase failed, so the slot was released dirty: ${erase.problem ?? 'a step failed'}`,
        nextStep: erase.nextStep,
      };
  }
};

/**
 * Gives the lease back dirty, the slot untouched, when its erase cannot even start because Cloudflare
 * refused the run's credentials: no erase failure is reported, as the token, not the slot, is at
 * fault (it must not count towards needs repair). Null once released; otherwise the slot's report
 * (the release failed, with the command that finishes it, or someone took the slot meanwhile).
 */
export async function releaseUnerased(
  ctx: CommandContext,
  base: ReportBase,
  lease: Lease,
): Promise<UntimedSlotReport | null> {
  const unerased = { status: 'failed' as const, steps: [], requests: 0 };
  const report = await releaseHeldLease(
    ctx,
    { ...base, generation: lease.generation },
    lease,
    unerased,
    () => ({ outcome: 'released' }),
  );
  return report.outcome === 'released' ? null : report;
}

/**
 * Erases the slot under the lease. Complete: the slot stays leased, and its history gets the note that
 * says so (a warning when that fails: a later push then erases once more). Otherwise the lease is
 * released dirty and the report says why.
 */
export async function eraseBeforeHandOver(
  ctx: CommandContext,
  base: ReportBase,
  lease: Lease,
  leaseMs: number,
  warnings: string[],
  poolSlugs: readonly string[],
  incoming: IncomingDeploy | undefined,
): Promise<UntimedSlotReport> {
  const refusal = ctx.eraser.refusal(lease.slug, poolSlugs);
  const erase =
    refusal !== null
      ? {
          status: 'failed' as const,
          steps: [],
          requests: 0,
          problem: `refused before any call: ${refusal}`,
          nextStep: 'Fix the slot config file (see the message), then push again.',
          failedStep: { step: 'slot config', message: refusal },
        }
      : await runFencedErase(ctx, lease, leaseMs, (fences) =>
          ctx.eraser.erase({
            slug: lease.slug,
            ...fences,
            dryRun: false,
            ...(incoming === undefined ? {} : { incoming }),
          }),
        );
  const withLease = { ...base, generation: lease.generation };
  if (erase.status !== 'complete') return releaseHeldLease(ctx, withLease, lease, erase, acquireOutcomeOf);
  try {
    await ctx.semaphore.markDirty({
      type: ctx.pool,
      slug: lease.slug,
      note: erasedOnAcquireNote(lease.holder),
    });
  } catch (error) {
    warnings.push(
      `The erase of ${lease.slug} completed, but the semaphore did not record it (${oneLineError(error)}); the next push erases the slot once more.`,
    );
  }
  return {
    ...withLease,
    erase: { status: erase.status, steps: erase.steps, requests: erase.requests },
    outcome: 'erased',
  };
}

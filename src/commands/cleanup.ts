// cleanup: a pull request closed, so every slot it holds goes back to the pool now. The release comes
// first; parking compute and erasing follow under the GC's own short lease, and a failed teardown is
// only a warning because the next acquirer or sweep erases the slot anyway.
import { randomUUID } from 'node:crypto';
import { pullRequestOf } from '../report/format.ts';
import type { RunReport } from '../report/model.ts';
import type { Lease, ListAnswer, Slot } from '../semaphore/protocol.ts';
import {
  type CommandContext,
  type EraseOutcome,
  emptyPoolProblem,
  GC_HOLDER,
  listPoolRows,
  liveLeaseCost,
  poolRowsOf,
} from './context.ts';
import {
  changedSinceRead,
  eraseThenRelease,
  forceReleaseStep,
  type OutcomeOfErase,
  oneLineError,
  type ReportBase,
  releaseHeldLease,
  UNPASTABLE_NEXT_STEP,
  type UntimedSlotReport,
  workThroughSlots,
} from './lease.ts';
import { withWorkerPreviews } from './worker-previews-report.ts';

export interface CleanupOptions {
  pullRequest: number;
  dryRun: boolean;
  leaseMs: number;
}

/** The command that ends the closed pull request's lease by hand, only while it still holds it at that generation. */
function closedLeaseStep(slot: Slot): string {
  const command = forceReleaseStep(slot);
  return command === UNPASTABLE_NEXT_STEP ? command : `${command}   # say why in the note`;
}

const cleanupOutcomeOf: OutcomeOfErase = (erase) =>
  erase.status === 'complete'
    ? { outcome: 'reclaimed' }
    : {
        outcome: 'released',
        problem: `released dirty; the teardown did not finish (${erase.problem ?? erase.status}), and the next sweep or acquirer erases the slot`,
      };

/** How ending the pull request's lease went. */
type LeaseEnding =
  /** gc holds the slot now, under its own short lease. */
  | { kind: 'held'; lease: Lease }
  /**
   * The pull request's lease is not the one read before the force: it ended and the slot is someone
   * else's (or nobody's), or the pull request renewed it. Untouched.
   */
  | {
      kind: 'changed-hands';
      read: { holder: string; generation: number };
      holder: string | null;
      generation: number;
    }
  /** The pull request's lease was released, and someone took the slot before gc could. */
  | { kind: 'taken' };

/**
 * Ends the pull request's lease. An expired one is taken over with a plain acquire. A live one is
 * force-released, on the condition, checked by the semaphore in the same transaction, that it is still
 * the holder, the generation and the lease version just read: if the pull request's lease ended and
 * someone acquired the slot in between, or a deploy of the pull request renewed it (it was reopened),
 * the force changes nothing, so "release pr-7's slot" never releases pr-8's, nor a pr-7 that lives again.
 */
async function endPullRequestLease(ctx: CommandContext, slot: Slot, leaseMs: number): Promise<LeaseEnding> {
  const takeOver = async (): Promise<LeaseEnding> => {
    const lease = await ctx.semaphore.acquireSpecific({
      type: ctx.pool,
      slug: slot.slug,
      holder: GC_HOLDER,
      leaseMs,
      requestId: randomUUID(),
    });
    return lease === null ? { kind: 'taken' } : { kind: 'held', lease };
  };
  const tookOver = await takeOver();
  if (tookOver.kind === 'held') return tookOver;
  const current = await ctx.semaphore.find(ctx.pool, slot.slug);
  const listed = { holder: slot.holder ?? '?', generation: slot.generation };
  if (current.holder === null || current.holder !== slot.holder)
    return { kind: 'changed-hands', read: listed, holder: current.holder, generation: current.generation };
  const answer = await ctx.semaphore.release({
    type: ctx.pool,
    slug: slot.slug,
    force: true,
    ifHolder: current.holder,
    ifGeneration: current.generation,
    ...(current.leaseVersion === null ? {} : { ifLeaseVersion: current.leaseVersion }),
  });
  // A condition that failed on a free slot of the same generation: the lease read has ended (this
  // release went through on an attempt whose answer was lost, or its holder released it), so go on.
  const ended = answer.holder === null && answer.generation === current.generation;
  if (answer.conditionFailed && !ended)
    return {
      kind: 'changed-hands',
      read: { holder: current.holder, generation: current.generation },
      holder: answer.holder,
      generation: answer.generation,
    };
  return takeOver();
}

async function cleanupSlot(
  ctx: CommandContext,
  slot: Slot,
  options: CleanupOptions,
  listing: ListAnswer,
): Promise<UntimedSlotReport> {
  const poolSlugs = listing.resources.map((candidate) => candidate.slug);
  const base: ReportBase = {
    slug: slot.slug,
    previousHolder: slot.holder,
    reason: 'held-by-pull-request',
    // How long the pull request held the slot: since its lease began (extensions keep that time).
    waitingMs: slot.lastAcquiredAt === null ? 0 : Math.max(0, listing.now - slot.lastAcquiredAt),
    erase: null,
    ...liveLeaseCost(slot),
  };
  if (ctx.signal.aborted)
    return { ...base, outcome: 'interrupted', problem: 'not started: the run was stopped' };
  if (options.dryRun) {
    const erase = await ctx.eraser.erase({ slug: slot.slug, fence: async () => true, dryRun: true });
    return { ...base, outcome: 'would-release', erase, problem: erase.problem };
  }
  let ending: LeaseEnding;
  try {
    ending = await endPullRequestLease(ctx, slot, options.leaseMs);
  } catch (error) {
    return {
      ...base,
      outcome: 'release-failed',
      problem: `the pull request's lease could not be released: ${oneLineError(error)}`,
      nextStep: closedLeaseStep(slot),
    };
  }
  if (ending.kind === 'changed-hands') {
    return {
      ...base,
      outcome: 'skipped',
      problem: `the slot changed since it was read: ${changedSinceRead(ending.read, ending)}, so nothing was done`,
    };
  }
  if (ending.kind === 'taken') {
    return {
      ...base,
      outcome: 'released',
      problem: 'someone took the slot as soon as it was free; they erase it on entry',
    };
  }
  const { lease } = ending;
  const refusal = ctx.eraser.refusal(slot.slug, poolSlugs);
  if (refusal !== null) {
    const refused: EraseOutcome = {
      status: 'failed',
      steps: [],
      requests: 0,
      problem: `refused before any call: ${refusal}`,
    };
    return releaseHeldLease(ctx, { ...base, generation: lease.generation }, lease, refused, cleanupOutcomeOf);
  }
  return eraseThenRelease(ctx, base, lease, options.leaseMs, cleanupOutcomeOf);
}

export async function runCleanup(
  ctx: CommandContext,
  options: CleanupOptions,
): Promise<Omit<RunReport, 'startedAt' | 'durationMs'>> {
  const listing = await ctx.semaphore.list(ctx.pool);
  // Its holder either way: `pr-<n>`, or `<owner>/<name>/pr-<n>` for a deploy that signed in with OIDC.
  const held = listing.resources.filter(
    (slot) =>
      slot.leaseState === 'leased' && pullRequestOf(slot.holder, ctx.repository) === options.pullRequest,
  );
  ctx.progress({ kind: 'listed', slots: listing.resources.length, selected: held.length });
  // An empty pool is a misconfiguration; credentials Cloudflare refuses are said once, and the slots
  // are still released (dirty): the lease matters more than the erase.
  const poolSlugs = listing.resources.map((slot) => slot.slug);
  const problem =
    listing.resources.length === 0
      ? await emptyPoolProblem(ctx)
      : held.some((slot) => ctx.eraser.refusal(slot.slug, poolSlugs) === null)
        ? await ctx.eraser.checkCredentials()
        : null;

  const slots = await workThroughSlots(ctx, held, (slot) => cleanupSlot(ctx, slot, options, listing));
  const report: Omit<RunReport, 'startedAt' | 'durationMs'> = {
    command: 'cleanup',
    dryRun: options.dryRun,
    pool: ctx.pool,
    pullRequest: options.pullRequest,
    problems: problem === null ? [] : [problem],
    leftForNextRun: 0,
    expired: held.filter((slot) => slot.expired).length,
    slots,
    poolAfter: held.length > 0 && !options.dryRun ? await listPoolRows(ctx) : poolRowsOf(listing),
    semaphoreRequests: ctx.semaphore.requestCount,
    cloudflare: ctx.cloudflareUsage(),
  };
  return ctx.workerPreviews === undefined
    ? report
    : withWorkerPreviews(ctx, report, options.dryRun, { pullRequest: options.pullRequest });
}

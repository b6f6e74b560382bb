// cleanup: a pull request closed, so every slot it holds goes back to the pool now. The release comes
// first; parking compute and erasing follow under the GC's own short lease, and a failed teardown is
// only a warning because the next acquirer or sweep erases the slot anyway.
import { randomUUID } from 'node:crypto';
import type { RunReport } from '../report/model.ts';
import { shellCommand } from '../report/shell.ts';
import type { Lease, Slot } from '../semaphore/protocol.ts';
import { type CommandContext, type EraseOutcome, GC_HOLDER, listPoolRows, poolRowsOf } from './context.ts';
import {
  describeError,
  eraseThenRelease,
  type OutcomeOfErase,
  type ReportBase,
  releaseHeldLease,
  UNPASTABLE_NEXT_STEP,
  type UntimedSlotReport,
  workThroughSlots,
} from './lease.ts';

export interface CleanupOptions {
  pullRequest: number;
  dryRun: boolean;
  leaseMs: number;
}

export function holderOfPullRequest(pullRequest: number): string {
  return `pr-${pullRequest}`;
}

/** The command that ends the closed pull request's lease by hand (`release --force` checks the holder first). */
function forceReleaseStep(slug: string): string {
  const command = shellCommand(['preview-gc', 'release', '--slot', slug, '--force']);
  return command === null
    ? UNPASTABLE_NEXT_STEP
    : `${command}   # only while the closed pull request still holds it`;
}

const cleanupOutcomeOf: OutcomeOfErase = (erase) =>
  erase.status === 'complete'
    ? { outcome: 'reclaimed' }
    : {
        outcome: 'released',
        problem: `released dirty; the teardown did not finish (${erase.problem ?? erase.status}), and the next sweep or acquirer erases the slot`,
      };

/**
 * Ends the pull request's lease. A lease that has already expired is taken over with a plain acquire;
 * a live one is force-released, but only after checking it is still this pull request's lease (the
 * pull request is closed, so nobody else can be holding it).
 */
async function endPullRequestLease(ctx: CommandContext, slot: Slot, leaseMs: number): Promise<Lease | null> {
  const takeOver = () =>
    ctx.semaphore.acquireSpecific({
      type: ctx.pool,
      slug: slot.slug,
      holder: GC_HOLDER,
      leaseMs,
      requestId: randomUUID(),
    });
  const tookOver = await takeOver();
  if (tookOver !== null) return tookOver;
  const current = await ctx.semaphore.find(ctx.pool, slot.slug);
  if (current.holder !== slot.holder) return null;
  await ctx.semaphore.release({ type: ctx.pool, slug: slot.slug, force: true });
  return takeOver();
}

async function cleanupSlot(
  ctx: CommandContext,
  slot: Slot,
  options: CleanupOptions,
  poolSlugs: readonly string[],
): Promise<UntimedSlotReport> {
  const base: ReportBase = {
    slug: slot.slug,
    previousHolder: slot.holder,
    reason: 'held-by-pull-request',
    waitingMs: 0,
    erase: null,
  };
  if (options.dryRun) {
    const erase = await ctx.eraser.erase({ slug: slot.slug, fence: async () => true, dryRun: true });
    return { ...base, outcome: 'would-release', erase, problem: erase.problem };
  }
  let lease: Lease | null;
  try {
    lease = await endPullRequestLease(ctx, slot, options.leaseMs);
  } catch (error) {
    return {
      ...base,
      outcome: 'release-failed',
      problem: `the pull request's lease could not be released: ${describeError(error)}`,
      nextStep: forceReleaseStep(slot.slug),
    };
  }
  if (lease === null) {
    return {
      ...base,
      outcome: 'released',
      problem: 'someone took the slot as soon as it was free; they erase it on entry',
    };
  }
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
  const holder = holderOfPullRequest(options.pullRequest);
  const listing = await ctx.semaphore.list(ctx.pool);
  const held = listing.resources.filter((slot) => slot.leaseState === 'leased' && slot.holder === holder);
  ctx.progress({ kind: 'listed', slots: listing.resources.length, selected: held.length });

  const poolSlugs = listing.resources.map((slot) => slot.slug);
  const slots = await workThroughSlots(ctx, held, (slot) => cleanupSlot(ctx, slot, options, poolSlugs));
  return {
    command: 'cleanup',
    dryRun: options.dryRun,
    pool: ctx.pool,
    pullRequest: options.pullRequest,
    problems: [],
    leftForNextRun: 0,
    expired: held.filter((slot) => slot.expired).length,
    slots,
    poolAfter: held.length > 0 && !options.dryRun ? await listPoolRows(ctx) : poolRowsOf(listing),
    semaphoreRequests: ctx.semaphore.requestCount,
    cloudflare: ctx.cloudflareUsage(),
  };
}

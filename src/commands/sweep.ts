// gc: take back every slot whose tenant went away. The lease is the load-bearing outcome: every
// lease taken here is released in a `finally`, whatever the erase did.
import { randomUUID } from 'node:crypto';
import type { PoolRow, RunReport, SlotReport } from '../report/model.ts';
import type { Lease, Slot } from '../semaphore/protocol.ts';
import { type CommandContext, emptyPoolProblem, GC_HOLDER, listPoolRows, poolRowsOf } from './context.ts';
import {
  changedSinceRead,
  eraseThenRelease,
  type OutcomeOfErase,
  oneLineError,
  type ReportBase,
  type UntimedSlotReport,
  workThroughSlots,
} from './lease.ts';
import { pullRequestLabels } from './pull-request-holders.ts';
import {
  type ClosedPullRequestSlot,
  endClosedPullRequestLease,
  findClosedPullRequestSlots,
} from './reconcile.ts';
import { type SelectedSlot, selectSlots } from './select.ts';

export interface GcOptions {
  dryRun: boolean;
  reclaimDirty: boolean;
  maxSlots: number;
  leaseMs: number;
  /** Server-independent wall clock (ms) after which no new slot is started. */
  deadlineAt: number;
}

const gcOutcomeOf: OutcomeOfErase = (erase) => {
  switch (erase.status) {
    case 'complete':
      return { outcome: 'reclaimed' };
    case 'fenced':
      return {
        outcome: 'skipped',
        problem: 'forced away by someone during the erase; stopped before the next step',
      };
    case 'deferred':
      return {
        outcome: 'deferred',
        problem: erase.problem ?? 'out of request budget or time; the next sweep goes on',
      };
    case 'aborted':
      return { outcome: 'interrupted', problem: 'stopped by a signal mid-erase; released dirty' };
    case 'failed':
      return { outcome: 'erase-failed', problem: erase.problem, nextStep: erase.nextStep };
  }
};

/** A slot this run works on: gc's selection, or a closed pull request's slot found by reconcile. */
type Candidate =
  | (SelectedSlot & { closed?: undefined })
  | {
      slot: Slot;
      reason: 'closed-pr';
      waitingMs: 0;
      closed: ClosedPullRequestSlot;
    };

function previousHolderOf(candidate: Candidate): string | null {
  return candidate.reason === 'dirty' ? candidate.slot.lastHolder : candidate.slot.holder;
}

async function dryRunSlot(ctx: CommandContext, base: ReportBase): Promise<UntimedSlotReport> {
  const erase = await ctx.eraser.erase({ slug: base.slug, fence: async () => true, dryRun: true });
  if (erase.status === 'failed')
    return { ...base, outcome: 'erase-failed', erase, problem: erase.problem, nextStep: erase.nextStep };
  return { ...base, outcome: 'would-reclaim', erase };
}

async function acquire(ctx: CommandContext, slug: string, leaseMs: number): Promise<Lease | null> {
  return ctx.semaphore.acquireSpecific({
    type: ctx.pool,
    slug,
    holder: GC_HOLDER,
    leaseMs,
    requestId: randomUUID(),
  });
}

/**
 * Ends a closed pull request's lease, only while it is still the one gc read. Null when it ended;
 * otherwise the slot's report (left alone, or the release failed).
 */
async function endClosedLease(
  ctx: CommandContext,
  closed: ClosedPullRequestSlot,
  base: ReportBase,
): Promise<UntimedSlotReport | null> {
  try {
    const end = await endClosedPullRequestLease(ctx, closed);
    if (end.ended) return null;
    return {
      ...base,
      outcome: 'skipped',
      problem: `${changedSinceRead({ holder: closed.holder, generation: closed.slot.generation }, end)}; nothing was released`,
    };
  } catch (error) {
    return {
      ...base,
      outcome: 'release-failed',
      problem: `the lease of closed pull request #${closed.pullRequest} could not be released: ${oneLineError(error)}; the next sweep tries again`,
    };
  }
}

/** The lease gc erases under; a slot's report instead when there is none to take. */
async function takeLease(
  ctx: CommandContext,
  candidate: Candidate,
  base: ReportBase,
  leaseMs: number,
): Promise<Lease | UntimedSlotReport> {
  const ended = candidate.closed === undefined ? null : await endClosedLease(ctx, candidate.closed, base);
  if (ended !== null) return ended;
  try {
    const lease = await acquire(ctx, base.slug, leaseMs);
    if (lease !== null) return lease;
    return candidate.closed === undefined
      ? { ...base, outcome: 'skipped', problem: 're-leased since the listing' }
      : {
          ...base,
          outcome: 'released',
          problem: 'released; someone took the slot as soon as it was free, and erases it on entry',
        };
  } catch (error) {
    return candidate.closed === undefined
      ? {
          ...base,
          outcome: 'acquire-failed',
          problem: `acquire failed, the slot was not touched: ${oneLineError(error)}`,
          nextStep:
            'preview-gc status   # check that the semaphore answers; the next sweep retries this slot',
        }
      : {
          ...base,
          outcome: 'released',
          problem: `released dirty; gc could not take it to erase (${oneLineError(error)}), so the next sweep or acquirer erases it`,
        };
  }
}

async function reclaimSlot(
  ctx: CommandContext,
  candidate: Candidate,
  options: GcOptions,
  poolSlugs: readonly string[],
): Promise<UntimedSlotReport> {
  const base: ReportBase = {
    slug: candidate.slot.slug,
    previousHolder: previousHolderOf(candidate),
    reason: candidate.reason,
    waitingMs: candidate.waitingMs,
    erase: null,
  };
  if (ctx.signal.aborted)
    return { ...base, outcome: 'interrupted', problem: 'not started: the run was stopped' };
  if (ctx.now() >= options.deadlineAt) {
    return {
      ...base,
      outcome: 'deferred',
      problem: 'not started: the run reached its deadline (`deadline-minutes`)',
    };
  }
  const refusal = ctx.eraser.refusal(base.slug, poolSlugs);
  if (refusal !== null) {
    return {
      ...base,
      outcome: 'erase-failed',
      problem: `refused before any call: ${refusal}`,
      nextStep: `Fix the slot config file (see the message), then ${ctx.place.rerun}.`,
    };
  }
  if (options.dryRun) return dryRunSlot(ctx, base);

  const taken = await takeLease(ctx, candidate, base, options.leaseMs);
  if (!('leaseId' in taken)) return taken;
  return eraseThenRelease(ctx, base, taken, options.leaseMs, gcOutcomeOf);
}

export async function runGc(
  ctx: CommandContext,
  options: GcOptions,
): Promise<Omit<RunReport, 'startedAt' | 'durationMs'>> {
  const listing = await ctx.semaphore.list(ctx.pool);
  const warnings: string[] = [];
  const closed =
    listing.resources.length === 0 ? [] : await findClosedPullRequestSlots(ctx, listing, warnings);
  const selection = selectSlots(listing, {
    reclaimDirty: options.reclaimDirty,
    maxSlots: Math.max(0, options.maxSlots - closed.length),
  });
  const candidates: (Candidate & { slug: string })[] = [
    ...closed.slice(0, options.maxSlots).map((found) => ({
      slot: found.slot,
      reason: 'closed-pr' as const,
      waitingMs: 0 as const,
      closed: found,
      slug: found.slot.slug,
    })),
    ...selection.selected.map((candidate) => ({ ...candidate, slug: candidate.slot.slug })),
  ];
  ctx.progress({ kind: 'listed', slots: listing.resources.length, selected: candidates.length });
  const report = (slots: SlotReport[], problems: string[], poolAfter: PoolRow[] | null) => ({
    command: 'gc' as const,
    dryRun: options.dryRun,
    pool: ctx.pool,
    problems,
    warnings,
    leftForNextRun: selection.leftForNextRun + Math.max(0, closed.length - options.maxSlots),
    expired: selection.expiredCount,
    slots,
    poolAfter,
    semaphoreRequests: ctx.semaphore.requestCount,
    cloudflare: ctx.cloudflareUsage(),
    ...pullRequestLabels(ctx),
  });
  // Before any slot is touched: a pool with no slots, or credentials Cloudflare refuses, fail the run
  // once, rather than every sweep succeeding at nothing or every slot failing alike.
  if (listing.resources.length === 0) return report([], [await emptyPoolProblem(ctx)], poolRowsOf(listing));
  // Only when some slot will be erased: a slot refused by the config gets no Cloudflare call at all.
  const poolSlugs = listing.resources.map((slot) => slot.slug);
  const erasing = candidates.some((candidate) => ctx.eraser.refusal(candidate.slug, poolSlugs) === null);
  const credentials = erasing ? await ctx.eraser.checkCredentials() : null;
  if (credentials !== null) return report([], [credentials], poolRowsOf(listing));

  const slots = await workThroughSlots(ctx, candidates, (candidate) =>
    reclaimSlot(ctx, candidate, options, poolSlugs),
  );

  // The pool is listed again only when this run changed it: a quiet sweep stays at one call.
  const changedPool = !options.dryRun && slots.some((slot) => slot.generation !== undefined);
  return report(slots, [], changedPool ? await listPoolRows(ctx) : poolRowsOf(listing));
}

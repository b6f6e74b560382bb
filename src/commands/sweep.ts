// gc: take back every slot whose tenant went away. The lease is the load-bearing outcome: every
// lease taken here is released in a `finally`, whatever the erase did.
import { randomUUID } from 'node:crypto';
import type { PoolRow, RunReport, SlotReport } from '../report/model.ts';
import type { Lease, ListAnswer, Slot } from '../semaphore/protocol.ts';
import type { EraseOutcome } from './context.ts';
import {
  type CommandContext,
  emptyPoolProblem,
  GC_HOLDER,
  listPoolRows,
  liveLeaseCost,
  poolRowsOf,
} from './context.ts';
import {
  changedSinceRead,
  eraseThenRelease,
  type OutcomeOfErase,
  oneLineError,
  type ReportBase,
  type UntimedSlotReport,
  workThroughSlots,
} from './lease.ts';
import { handleLeaseEnds, type LeaseEndOptions, type LeaseEnds } from './lease-ends.ts';
import { sendNotices } from './notices.ts';
import { pullRequestLabels } from './pull-request-holders.ts';
import {
  type ClosedPullRequestSlot,
  endClosedPullRequestLease,
  findClosedPullRequestSlots,
} from './reconcile.ts';
import { type SelectedSlot, selectSlots } from './select.ts';
import { poolSpend, ranText, type StillRunning, withSpend } from './spend.ts';
import { parkRunaways } from './spend-park.ts';
import { keepRecords } from './spend-records.ts';
import { withWorkerPreviews } from './worker-previews-report.ts';

export interface GcOptions {
  dryRun: boolean;
  reclaimDirty: boolean;
  maxSlots: number;
  leaseMs: number;
  /** Server-independent wall clock (ms) after which no new slot is started. */
  deadlineAt: number;
  /** The warning before reclaim and the keep label; absent: neither (tests of other things). */
  leaseEnds?: Omit<LeaseEndOptions, 'dryRun'>;
}

/** Keeps or warns the pull requests' leases near their end, before anything is reclaimed. */
async function leaseEndsOf(
  ctx: CommandContext,
  listing: ListAnswer,
  options: GcOptions,
  warnings: string[],
): Promise<LeaseEnds> {
  if (options.leaseEnds === undefined || listing.resources.length === 0)
    return { reports: [], kept: new Set() };
  return handleLeaseEnds(ctx, listing, { ...options.leaseEnds, dryRun: options.dryRun }, warnings);
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

/**
 * A slot this run works on: gc's selection, a closed pull request's slot found by reconcile, or a
 * parked slot whose compute the spend read found still running.
 */
type Candidate =
  | (SelectedSlot & { closed?: undefined; running?: undefined })
  | {
      slot: Slot;
      reason: 'closed-pr';
      waitingMs: 0;
      closed: ClosedPullRequestSlot;
      running?: undefined;
    }
  | { slot: Slot; reason: 'parked'; waitingMs: number; closed?: undefined; running: StillRunning };

function previousHolderOf(candidate: Candidate): string | null {
  return candidate.reason === 'dirty' || candidate.reason === 'parked'
    ? candidate.slot.lastHolder
    : candidate.slot.holder;
}

/** The step a still-running slot's dirty release names, so its failures in a row count toward "needs repair". */
const STILL_RUNNING_STEP = 'compute';

/**
 * A still-running slot is parked again, but not released clean: the read saw compute its last park
 * did not stop, so only a read after this park can show it stopped. Its release reports the running
 * compute as an erase failure: a slot that keeps running after every park comes to need repair.
 */
function keptDirty(running: StillRunning): (erase: EraseOutcome) => EraseOutcome {
  const ran = ranText(running.after);
  return (erase) =>
    erase.status !== 'complete'
      ? erase
      : {
          ...erase,
          status: 'deferred',
          problem: `${ran} after its last park; parked again and released dirty, the next sweep reads whether it stopped`,
          failedStep: { step: STILL_RUNNING_STEP, message: `still running after its park: ${ran}` },
        };
}

/** gc's outcome, and for a still-running slot parked again: `still-running`, whatever else it says. */
function stillRunningOutcomeOf(running: StillRunning): OutcomeOfErase {
  const ran = ranText(running.after);
  return (erase) => {
    const outcome = gcOutcomeOf(erase);
    const parkedAgain = erase.status === 'deferred' && erase.failedStep?.step === STILL_RUNNING_STEP;
    return parkedAgain
      ? { ...outcome, outcome: 'still-running' }
      : { ...outcome, problem: `${ran} after its park; ${outcome.problem ?? 'parked again'}` };
  };
}

async function dryRunSlot(
  ctx: CommandContext,
  base: ReportBase,
  candidate: Candidate,
): Promise<UntimedSlotReport> {
  const erase = await ctx.eraser.erase({ slug: base.slug, fence: async () => true, dryRun: true });
  if (erase.status === 'failed')
    return { ...base, outcome: 'erase-failed', erase, problem: erase.problem, nextStep: erase.nextStep };
  if (candidate.running !== undefined)
    return {
      ...base,
      outcome: 'still-running',
      erase,
      problem: `${ranText(candidate.running.after)} after its park; a real run parks it again and releases it dirty`,
    };
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
    // An expired lease, or a closed pull request's, ends here: what it cost is said with it.
    ...liveLeaseCost(candidate.slot),
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
  if (options.dryRun) return dryRunSlot(ctx, base, candidate);

  const taken = await takeLease(ctx, candidate, base, options.leaseMs);
  if (!('leaseId' in taken)) return taken;
  if (candidate.running === undefined)
    return eraseThenRelease(ctx, base, taken, options.leaseMs, gcOutcomeOf);
  return eraseThenRelease(
    ctx,
    base,
    taken,
    options.leaseMs,
    stillRunningOutcomeOf(candidate.running),
    keptDirty(candidate.running),
  );
}

export async function runGc(
  ctx: CommandContext,
  options: GcOptions,
): Promise<Omit<RunReport, 'startedAt' | 'durationMs'>> {
  const report = await gcSlots(ctx, options);
  return ctx.workerPreviews === undefined ? report : withWorkerPreviews(ctx, report, options.dryRun, 'gc');
}

async function gcSlots(
  ctx: CommandContext,
  options: GcOptions,
): Promise<Omit<RunReport, 'startedAt' | 'durationMs'>> {
  const listing = await ctx.semaphore.list(ctx.pool);
  const warnings: string[] = [];
  const closed =
    listing.resources.length === 0 ? [] : await findClosedPullRequestSlots(ctx, listing, warnings);
  // Kept leases are not reclaimed this run, expired or not.
  const ends = await leaseEndsOf(ctx, listing, options, warnings);
  // The last hour of every slot, before any slot is touched: one analytics read for the pool.
  const spend = listing.resources.length === 0 ? null : await poolSpend(ctx, listing, warnings);
  // Parked slots still running go first: they are the ones spending now.
  const running = (spend?.stillRunning ?? []).slice(0, Math.max(0, options.maxSlots - closed.length));
  const runningSlugs = new Set(running.map((found) => found.slot.slug));
  const selection = selectSlots(
    {
      ...listing,
      resources: listing.resources.filter(
        (slot) => !runningSlugs.has(slot.slug) && !ends.kept.has(slot.slug),
      ),
    },
    {
      reclaimDirty: options.reclaimDirty,
      maxSlots: Math.max(0, options.maxSlots - closed.length - running.length),
    },
  );
  const candidates: (Candidate & { slug: string })[] = [
    ...closed.slice(0, options.maxSlots).map((found) => ({
      slot: found.slot,
      reason: 'closed-pr' as const,
      waitingMs: 0 as const,
      closed: found,
      slug: found.slot.slug,
    })),
    ...running.map((found) => ({
      slot: found.slot,
      reason: 'parked' as const,
      waitingMs: Math.max(0, listing.now - found.parkedAt),
      running: found,
      slug: found.slot.slug,
    })),
    ...selection.selected.map((candidate) => ({ ...candidate, slug: candidate.slot.slug })),
  ];
  ctx.progress({ kind: 'listed', slots: listing.resources.length, selected: candidates.length });
  const left =
    selection.leftForNextRun +
    Math.max(0, closed.length - options.maxSlots) +
    ((spend?.stillRunning.length ?? 0) - running.length);
  const report = (slots: SlotReport[], problems: string[], poolAfter: PoolRow[] | null) => ({
    command: 'gc' as const,
    dryRun: options.dryRun,
    pool: ctx.pool,
    problems,
    warnings,
    leftForNextRun: left,
    expired: selection.expiredCount,
    slots,
    poolAfter: withSpend(poolAfter, spend),
    ...(spend === null ? {} : { spend: spend.summary }),
    ...(ends.reports.length === 0 ? {} : { leaseEnds: ends.reports }),
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

  const kept =
    spend === null || spend.summary.source !== 'read' || options.dryRun
      ? { alerts: [], parkForSpend: [] }
      : await keepRecords(ctx, listing, spend, warnings);
  const alerts = kept.alerts;
  const parks = spend === null ? [] : await parkRunaways(ctx, listing, kept.parkForSpend, spend, warnings);

  const slots = await workThroughSlots(ctx, candidates, (candidate) =>
    reclaimSlot(ctx, candidate, options, poolSlugs),
  );

  // The pool is listed again only when this run changed it: a quiet sweep stays at one call.
  const changedPool = !options.dryRun && slots.some((slot) => slot.generation !== undefined);
  const done = {
    ...report(slots, [], changedPool ? await listPoolRows(ctx) : poolRowsOf(listing)),
    ...(alerts.length === 0 ? {} : { spendAlerts: alerts }),
    ...(parks.length === 0 ? {} : { spendParks: parks }),
  };
  if (!options.dryRun) await sendNotices(ctx.webhook, done, warnings);
  return done;
}

// gc: take back every slot whose tenant went away. The lease is the load-bearing outcome: every
// lease taken here is released in a `finally`, whatever the erase did.
import { randomUUID } from 'node:crypto';
import type { PoolRow, RunReport, SlotReport } from '../report/model.ts';
import type { Lease } from '../semaphore/protocol.ts';
import { type CommandContext, emptyPoolProblem, GC_HOLDER, listPoolRows, poolRowsOf } from './context.ts';
import {
  describeError,
  eraseThenRelease,
  type OutcomeOfErase,
  type ReportBase,
  type UntimedSlotReport,
  workThroughSlots,
} from './lease.ts';
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

function previousHolderOf(candidate: SelectedSlot): string | null {
  return candidate.reason === 'expired' ? candidate.slot.holder : candidate.slot.lastHolder;
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

async function reclaimSlot(
  ctx: CommandContext,
  candidate: SelectedSlot,
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

  let lease: Lease | null;
  try {
    lease = await acquire(ctx, base.slug, options.leaseMs);
  } catch (error) {
    return {
      ...base,
      outcome: 'acquire-failed',
      problem: `acquire failed, the slot was not touched: ${describeError(error)}`,
      nextStep: 'preview-gc status   # check that the semaphore answers; the next sweep retries this slot',
    };
  }
  if (lease === null) return { ...base, outcome: 'skipped', problem: 're-leased since the listing' };
  return eraseThenRelease(ctx, base, lease, options.leaseMs, gcOutcomeOf);
}

export async function runGc(
  ctx: CommandContext,
  options: GcOptions,
): Promise<Omit<RunReport, 'startedAt' | 'durationMs'>> {
  const listing = await ctx.semaphore.list(ctx.pool);
  const selection = selectSlots(listing, options);
  ctx.progress({ kind: 'listed', slots: listing.resources.length, selected: selection.selected.length });
  const report = (slots: SlotReport[], problems: string[], poolAfter: PoolRow[] | null) => ({
    command: 'gc' as const,
    dryRun: options.dryRun,
    pool: ctx.pool,
    problems,
    leftForNextRun: selection.leftForNextRun,
    expired: selection.expiredCount,
    slots,
    poolAfter,
    semaphoreRequests: ctx.semaphore.requestCount,
    cloudflare: ctx.cloudflareUsage(),
  });
  // Before any slot is touched: a pool with no slots, or credentials Cloudflare refuses, fail the run
  // once, rather than every sweep succeeding at nothing or every slot failing alike.
  if (listing.resources.length === 0) return report([], [await emptyPoolProblem(ctx)], poolRowsOf(listing));
  // Only when some slot will be erased: a slot refused by the config gets no Cloudflare call at all.
  const poolSlugs = listing.resources.map((slot) => slot.slug);
  const erasing = selection.selected.some(
    (candidate) => ctx.eraser.refusal(candidate.slot.slug, poolSlugs) === null,
  );
  const credentials = erasing ? await ctx.eraser.checkCredentials() : null;
  if (credentials !== null) return report([], [credentials], poolRowsOf(listing));

  const candidates = selection.selected.map((candidate) => ({ ...candidate, slug: candidate.slot.slug }));
  const slots = await workThroughSlots(ctx, candidates, (candidate) =>
    reclaimSlot(ctx, candidate, options, poolSlugs),
  );

  // The pool is listed again only when this run changed it: a quiet sweep stays at one call.
  const changedPool = !options.dryRun && slots.some((slot) => slot.generation !== undefined);
  return report(slots, [], changedPool ? await listPoolRows(ctx) : poolRowsOf(listing));
}

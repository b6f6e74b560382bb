// Holding a slot: the fenced erase and the release that always follows it, shared by gc and cleanup.
import type { SlotReport } from '../report/model.ts';
import type { EraseFailure, Lease } from '../semaphore/protocol.ts';
import { shellCommand } from '../text/shell.ts';
import type { CommandContext, EraseOutcome, EraseRequest } from './context.ts';
import { oneLineError } from './error-line.ts';
import { LeaseFence } from './lease-fence.ts';

/** A slot report before its outcome and its timing are known. */
export type ReportBase = Omit<SlotReport, 'outcome' | 'durationMs'>;
export type UntimedSlotReport = Omit<SlotReport, 'durationMs'>;

/** What a slot report says about an erase that ended, before the release is known. */
export type OutcomeOfErase = (erase: EraseOutcome) => Pick<SlotReport, 'outcome' | 'problem' | 'nextStep'>;

/** Instead of a command, when a slug or lease id from the semaphore cannot be pasted into a shell. */
export const UNPASTABLE_NEXT_STEP =
  "No command is shown: the semaphore sent a slot name or lease id that is not safe to paste into a shell. Check the slot with 'preview-gc status'; its lease runs out by itself and the next sweep picks it up.";

export { oneLineError };

/** Why a conditional force released nothing, for the report: renewed since the read, or another lease. */
export function changedSinceRead(
  read: { holder: string; generation: number },
  now: { holder: string | null; generation: number },
): string {
  if (now.holder === read.holder && now.generation === read.generation)
    return `${read.holder} renewed its lease since it was read (a deploy of it is running: reopened?)`;
  return `${read.holder} no longer holds it at generation ${read.generation} (now ${now.holder ?? 'nobody'}, generation ${now.generation})`;
}

/**
 * The command that force-releases the lease a run saw on a slot, by hand: pinned to its holder and
 * generation (`release --force` refuses without them, then asks to confirm), with a note to fill in.
 */
export function forceReleaseStep(slot: { slug: string; holder: string | null; generation: number }): string {
  const command =
    slot.holder === null
      ? null
      : shellCommand([
          'preview-gc',
          'release',
          '--slot',
          slot.slug,
          '--force',
          '--holder',
          slot.holder,
          '--generation',
          String(slot.generation),
          '--note',
          'why',
        ]);
  return command ?? UNPASTABLE_NEXT_STEP;
}

/**
 * Runs an erase under the lease, fenced between steps and inside them (see LeaseFence). A renew
 * answering that the lease is gone stops the erase as `fenced` (someone forced the slot away); a
 * renew that errors also stops it (we can no longer prove we hold the slot), reported as a failure
 * rather than as someone else's lease.
 */
export async function runFencedErase(
  ctx: CommandContext,
  lease: Lease,
  leaseMs: number,
  erase: (fences: Pick<EraseRequest, 'fence' | 'fenceWithinStep'>) => Promise<EraseOutcome>,
): Promise<EraseOutcome> {
  const fence = new LeaseFence(ctx, lease, leaseMs);
  let outcome: EraseOutcome;
  try {
    outcome = await erase({ fence: fence.beforeStep, fenceWithinStep: fence.withinStep });
  } catch (error) {
    return {
      status: ctx.signal.aborted ? 'aborted' : 'failed',
      steps: [],
      requests: 0,
      problem: `the erase stopped: ${oneLineError(error)}`,
    };
  }
  if (outcome.status !== 'fenced' && outcome.status !== 'failed') return outcome;
  if (fence.problem !== undefined) return { ...outcome, status: 'failed', problem: fence.problem };
  // A step stopped mid-way by a renew that found the lease gone reports a failed step; it is the
  // same event as a fence between steps.
  return fence.lost ? { ...outcome, status: 'fenced' } : outcome;
}

/**
 * Releases the lease, clean only when every erase step was verified. Never aborted by the run's
 * signal: on SIGTERM the release is the one call that must still go out.
 */
export async function releaseHeldLease(
  ctx: CommandContext,
  base: ReportBase,
  lease: Lease,
  erase: EraseOutcome,
  outcomeOf: OutcomeOfErase,
): Promise<UntimedSlotReport> {
  const withErase = {
    ...base,
    erase: { status: erase.status, steps: erase.steps, requests: erase.requests },
  };
  const clean = erase.status === 'complete';
  const eraseFailure = clean ? undefined : eraseFailureOf(erase);
  try {
    const answer = await ctx.semaphore.release({
      type: ctx.pool,
      slug: lease.slug,
      leaseId: lease.leaseId,
      clean,
      ...(eraseFailure === undefined ? {} : { eraseFailure }),
    });
    // A fenced erase already knows the lease is gone (a renew said so); its own outcome says why.
    if (!answer.released && erase.status !== 'fenced' && (await leaseWasLost(ctx, lease, clean))) {
      return {
        ...withErase,
        outcome: 'skipped',
        problem:
          'the lease was gone at the release: someone took the slot after the erase, so it was not given back clean',
      };
    }
  } catch (error) {
    return {
      ...withErase,
      outcome: 'release-failed',
      problem: `the release failed (${oneLineError(error)}); the lease of holder '${lease.holder}' expires by itself, and the next sweep picks the slot up`,
      nextStep:
        shellCommand(['preview-gc', 'release', '--slot', lease.slug, '--lease-id', lease.leaseId]) ??
        UNPASTABLE_NEXT_STEP,
    };
  }
  return { ...withErase, ...outcomeOf(erase) };
}

/**
 * What the semaphore keeps of a failed erase (one more failure in a row of this slot): no control
 * characters (messages come from Cloudflare). The client redacts it of the run's secrets and only
 * then clips it to the protocol's lengths, so no clip cuts a token in two (stored-text.ts).
 */
export function eraseFailureOf(erase: EraseOutcome): EraseFailure | undefined {
  if (erase.failedStep === undefined) return undefined;
  return { step: plainText(erase.failedStep.step), message: plainText(erase.failedStep.message) };
}

function plainText(text: string): string {
  const visible = text
    .toWellFormed()
    .replace(/\p{Cc}+/gu, ' ')
    .trim();
  return visible === '' ? 'failed' : visible;
}

/**
 * A release that released nothing either lost a race (someone forced the slot away, or took it after
 * the lease ran out) or follows an earlier attempt of the same release whose answer was lost. Only
 * the slot itself tells: still this lease's generation, available, and clean where clean was asked.
 * A slot that cannot be read is counted as lost, so a run never claims a clean release it cannot prove.
 */
async function leaseWasLost(ctx: CommandContext, lease: Lease, clean: boolean): Promise<boolean> {
  try {
    const slot = await ctx.semaphore.find(ctx.pool, lease.slug);
    return slot.generation !== lease.generation || slot.leaseState !== 'available' || (clean && slot.dirty);
  } catch {
    return true;
  }
}

/**
 * Erases the slot under the lease, then releases it: the one way a slot the run holds ends. `judged`
 * may take back a complete erase's claim to a clean release (a slot whose compute the spend read saw
 * running after its last park).
 */
export async function eraseThenRelease(
  ctx: CommandContext,
  base: ReportBase,
  lease: Lease,
  leaseMs: number,
  outcomeOf: OutcomeOfErase,
  judged: (erase: EraseOutcome) => EraseOutcome = (erase) => erase,
): Promise<UntimedSlotReport> {
  const erase = await runFencedErase(ctx, lease, leaseMs, (fences) =>
    ctx.eraser.erase({ slug: lease.slug, ...fences, dryRun: false }),
  );
  return releaseHeldLease(ctx, { ...base, generation: lease.generation }, lease, judged(erase), outcomeOf);
}

/**
 * Works through the slots, up to `ctx.parallelSlots` at once, timing each and reporting progress.
 * Each slot keeps its own lease, fences and release (`work` never leaves a lease behind); what they
 * share (the pacer's rate, budget and deadline, the run's signal) is shared through `ctx`. The
 * reports come back in the order of `items` (the listing's), whichever slot finished first.
 */
export async function workThroughSlots<T extends { slug: string }>(
  ctx: CommandContext,
  items: readonly T[],
  work: (item: T) => Promise<UntimedSlotReport>,
): Promise<SlotReport[]> {
  const reports: SlotReport[] = [];
  let next = 0;
  let thrown: { error: unknown } | undefined;
  const workInTurn = async (): Promise<void> => {
    // After a slot threw (a bug, not an outcome), no new slot starts; the ones in flight finish and release.
    while (next < items.length && thrown === undefined) {
      const index = next++;
      const item = items[index] as T;
      ctx.progress({ kind: 'slot-started', slug: item.slug, index, total: items.length });
      const started = ctx.now();
      try {
        const report = { ...(await work(item)), durationMs: ctx.now() - started };
        ctx.progress({
          kind: 'slot-finished',
          slug: report.slug,
          index,
          total: items.length,
          outcome: report.outcome,
          durationMs: report.durationMs,
        });
        reports[index] = report;
      } catch (error) {
        thrown ??= { error };
      }
    }
  };
  const lanes = Math.max(1, Math.min(ctx.parallelSlots, items.length));
  await Promise.all(Array.from({ length: lanes }, workInTurn));
  if (thrown !== undefined) throw thrown.error;
  return reports;
}

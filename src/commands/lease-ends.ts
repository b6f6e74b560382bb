// Before gc reclaims, a pull request whose lease ends within `warn-minutes` (or ended) has a say
// (issue 31): while it is open and carries the keep label, gc extends its lease instead of reclaiming
// it, up to `keep-max-hours` after the lease began; otherwise it gets one warning comment per lease
// end. GitHub is asked once per pull request (the reader remembers reconcile's answers), and whatever
// GitHub fails to answer (403, 404, a rate limit, 5xx) never blocks a reclaim: that pull request is
// neither kept nor warned, and the report says so.
import type { GitHubPullRequests, PullRequestInfo } from '../github/pull-requests.ts';
import { pullRequestOf } from '../report/format.ts';
import type { LeaseEndReport } from '../report/model.ts';
import { SemaphoreError } from '../semaphore/client.ts';
import type { ListAnswer, Slot } from '../semaphore/protocol.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';
import { lookUpPullRequests, MAX_PULL_REQUEST_LOOKUPS, saidUnreadable } from './pull-request-holders.ts';
import { warningComment, warningMarker } from './reclaim-warning.ts';

export interface LeaseEndOptions {
  dryRun: boolean;
  /** `warn-minutes`, in ms: a lease that ends within it is warned about or kept. */
  warnMs: number;
  keepLabel: string;
  /** `keep-max-hours`, in ms: a kept lease ends at most this long after it began. */
  keepMaxMs: number;
}

export interface LeaseEnds {
  reports: LeaseEndReport[];
  /** Slots gc leaves alone this run: kept (or to be kept, in a dry run, or a keep that failed). */
  kept: Set<string>;
}

/** A pull request's lease that ends within the warning window, or ended. */
interface Ending {
  slot: Slot & { holder: string; leasedUntil: number; leaseVersion: number };
  pullRequest: number;
}

/**
 * How far a keep extends a lease: two warning windows from now, so the next run (within one window,
 * see `warn-minutes`) extends it again before it ends, while the label stays.
 */
const keepStepMs = (options: LeaseEndOptions) => 2 * options.warnMs;

function endingLeases(ctx: CommandContext, listing: ListAnswer, options: LeaseEndOptions): Ending[] {
  return listing.resources.flatMap((slot): Ending[] => {
    const { holder, leasedUntil, leaseVersion } = slot;
    if (slot.leaseState !== 'leased' || holder === null || leasedUntil === null || leaseVersion === null)
      return [];
    if (leasedUntil - listing.now > options.warnMs) return [];
    const pullRequest = pullRequestOf(holder, ctx.repository);
    return pullRequest === null
      ? []
      : [{ slot: { ...slot, holder, leasedUntil, leaseVersion }, pullRequest }];
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Keeps or warns each pull request's lease that ends within the window. Without a github-token
 * nothing is asked and nothing changes (expired leases are reclaimed as always).
 */
export async function handleLeaseEnds(
  ctx: CommandContext,
  listing: ListAnswer,
  options: LeaseEndOptions,
  warnings: string[],
): Promise<LeaseEnds> {
  const none: LeaseEnds = { reports: [], kept: new Set() };
  const github = ctx.github;
  if (!github) return none;
  const ending = endingLeases(ctx, listing, options);
  if (ending.length === 0) return none;
  // Reconcile asked about the live leases already; the reader answers those again without asking.
  const asked = new Set(github.asked());
  const numbers = [...new Set(ending.map((lease) => lease.pullRequest))];
  const fresh = numbers.filter((number) => !asked.has(number));
  // A token reconcile found unable to read pull requests reads none of these either: its one warning
  // says so, and nothing more is asked. Otherwise the run's bound on lookups counts reconcile's too.
  const unreadable = saidUnreadable(warnings);
  const room = unreadable ? 0 : Math.max(0, MAX_PULL_REQUEST_LOOKUPS - asked.size);
  if (!unreadable && fresh.length > room)
    warnings.push(
      `${fresh.length - room} more pull requests near their lease end were not looked up (at most ${MAX_PULL_REQUEST_LOOKUPS} a run), so they were neither kept nor warned; the next run goes on.`,
    );
  const looked = new Set([...asked, ...fresh.slice(0, room)]);
  if (room > 0)
    await lookUpPullRequests(
      ctx,
      fresh.slice(0, room),
      warnings,
      'no pull request near its lease end was kept or warned, and expired leases were reclaimed',
      'so their slots were neither kept nor warned about (expired ones were reclaimed)',
    );
  // The reader's answers, labels included (each asked once: no request goes out again).
  const answers = await answersOf(
    github,
    numbers.filter((number) => looked.has(number)),
  );
  const reports: LeaseEndReport[] = [];
  const kept = new Set<string>();
  for (const lease of ending) {
    const answer =
      answers.get(lease.pullRequest) ??
      (looked.has(lease.pullRequest) || unreadable ? 'failed' : 'not-asked');
    const report = await handleLease(ctx, github, listing.now, lease, answer, options);
    if (report === null) continue;
    reports.push(report);
    if (report.action === 'kept' || report.action === 'would-keep' || report.action === 'keep-failed')
      kept.add(lease.slot.slug);
  }
  // A lookup that failed is a warning already (lookUpPullRequests); the report names the leases.
  return { reports, kept };
}

/** The pull requests the run asked about, each as the reader answered it; a failed lookup is left out. */
async function answersOf(
  github: GitHubPullRequests,
  numbers: readonly number[],
): Promise<Map<number, PullRequestInfo>> {
  const answers = new Map<number, PullRequestInfo>();
  for (const number of numbers) {
    try {
      answers.set(number, await github.get(number));
    } catch {
      // Already a warning of the lookup; the lease is neither kept nor warned.
    }
  }
  return answers;
}

/** What gc does about one lease: keep it, warn its pull request, or say why neither; null: nothing to say (closed). */
async function handleLease(
  ctx: CommandContext,
  github: GitHubPullRequests,
  now: number,
  lease: Ending,
  info: PullRequestInfo | 'failed' | 'not-asked',
  options: LeaseEndOptions,
): Promise<LeaseEndReport | null> {
  const { slot, pullRequest } = lease;
  const base = { slug: slot.slug, holder: slot.holder, pullRequest, endsAt: iso(slot.leasedUntil) };
  if (info === 'failed' || info === 'not-asked')
    return {
      ...base,
      action: 'unchecked',
      problem:
        info === 'failed'
          ? 'GitHub did not answer about the pull request'
          : `not looked up: at most ${MAX_PULL_REQUEST_LOOKUPS} pull requests a run, the next run goes on`,
    };
  // A closed pull request's lease is reclaimed whatever its labels (reconcile, or as expired).
  if (info.state !== 'open') return null;
  const keptUntil = (slot.lastAcquiredAt ?? slot.createdAt) + options.keepMaxMs;
  const labelled = (info.labels ?? []).includes(options.keepLabel);
  const expired = slot.leasedUntil <= now;
  if (labelled && keptUntil > now) {
    const keep = await keepLease(ctx, now, lease, options, keptUntil);
    // A keep at its cap ends where it is: the pull request is warned that only a push keeps it now.
    if (keep !== 'at-cap') return { ...base, ...keep, keptUntil: iso(keptUntil) };
    return warn(ctx, github, now, lease, options, true);
  }
  // Expired and not kept: reclaimed this run, like every expired lease.
  return expired ? null : warn(ctx, github, now, lease, options, false);
}

/** Extends the lease on the condition of what gc read (the semaphore checks it with the change). */
async function keepLease(
  ctx: CommandContext,
  now: number,
  { slot, pullRequest }: Ending,
  options: LeaseEndOptions,
  keptUntil: number,
): Promise<Pick<LeaseEndReport, 'action' | 'endsAt' | 'problem' | 'queue'> | 'at-cap'> {
  const until = Math.min(now + keepStepMs(options), keptUntil);
  if (until <= slot.leasedUntil) return 'at-cap';
  if (options.dryRun) return { action: 'would-keep', endsAt: iso(until) };
  try {
    const answer = await ctx.semaphore.extend({
      type: ctx.pool,
      slug: slot.slug,
      ifHolder: slot.holder,
      ifGeneration: slot.generation,
      ifLeaseVersion: slot.leaseVersion,
      leaseMs: keepStepMs(options),
      maxHeldMs: options.keepMaxMs,
      note: `gc: pull request #${pullRequest} has the label ${options.keepLabel}`,
    });
    if (answer.extended && answer.leasedUntil !== null)
      return { action: 'kept', endsAt: iso(answer.leasedUntil), queue: answer.queue };
    if (!answer.conditionFailed) return 'at-cap';
    // The same lease, renewed since the read: by its pull request (a push), or by this very keep whose
    // first answer was lost on the way back (the client sent it again, and the version had moved on).
    const renewed = answer.holder === slot.holder && answer.generation === slot.generation;
    return {
      action: 'keep-failed',
      endsAt: iso(answer.leasedUntil ?? slot.leasedUntil),
      problem: renewed
        ? 'the lease was renewed since gc read it (a push, or this keep sent again after its answer was lost); left as it is'
        : `the lease changed since gc read it (now ${answer.holder ?? 'nobody'}, generation ${answer.generation}); left as it is`,
    };
  } catch (error) {
    // An error answer means the semaphore did nothing; no answer (a lost connection, a timeout) may
    // follow a keep that went through.
    const answered = error instanceof SemaphoreError && error.status !== undefined;
    const what = answered
      ? `the semaphore refused the keep (${oneLineError(error)})`
      : `the semaphore did not answer the keep (${oneLineError(error)}), so it may or may not have been extended`;
    return {
      action: 'keep-failed',
      endsAt: iso(slot.leasedUntil),
      problem: `${what}; left as it is this run, the next run tries again`,
    };
  }
}

const POSTED_ACTION = {
  created: 'warned',
  exists: 'warned-before',
  'would-create': 'would-warn',
} as const satisfies Record<string, LeaseEndReport['action']>;

/** Posts the warning once per lease end (its marker), or says why not. */
async function warn(
  ctx: CommandContext,
  github: GitHubPullRequests,
  now: number,
  { slot, pullRequest }: Ending,
  options: LeaseEndOptions,
  keepEnds: boolean,
): Promise<LeaseEndReport> {
  const warned = {
    slug: slot.slug,
    generation: slot.generation,
    leaseVersion: slot.leaseVersion,
    endsAt: slot.leasedUntil,
  };
  const base = { slug: slot.slug, holder: slot.holder, pullRequest, endsAt: iso(slot.leasedUntil) };
  const body = warningComment({
    pool: ctx.pool,
    lease: warned,
    now,
    keepLabel: options.keepLabel,
    keepMaxHours: Math.round(options.keepMaxMs / 3_600_000),
    keepEnds,
  });
  try {
    // A dry run reads as a run does (is the warning there already?) and posts nothing.
    const posted = await github.commentOnce(pullRequest, warningMarker(ctx.pool, warned), body, {
      dryRun: options.dryRun,
    });
    return { ...base, action: POSTED_ACTION[posted] };
  } catch (error) {
    return {
      ...base,
      action: 'warn-failed',
      problem: `the warning was not posted (${oneLineError(error)}; it needs pull-requests: write); the slot is taken back at its end all the same`,
    };
  }
}

// gc reconciles closed pull requests: the PR-close job can fail to run (a disabled workflow, a runner
// outage, a cancelled run), leaving a closed pull request's live lease on a slot for days. With a
// github-token, gc looks up the pull request behind every live `pr-<n>` lease and takes back the slot
// of a closed or merged one the way cleanup would: a conditional release (only while that holder still
// holds that generation, checked by the semaphore), then the erase under gc's own lease. Without a
// token, or when GitHub does not answer, nothing changes and the run says so.
import type { PullRequestState } from '../github/pull-requests.ts';
import { pullRequestOf } from '../report/format.ts';
import type { ListAnswer, Slot } from '../semaphore/protocol.ts';
import type { CommandContext } from './context.ts';
import { livePullRequestHolders, lookUpPullRequests } from './pull-request-holders.ts';

export interface ClosedPullRequestSlot {
  slot: Slot;
  holder: string;
  pullRequest: number;
  state: Exclude<PullRequestState, 'open'>;
}

/** The live leases of closed or merged pull requests, as far as GitHub could tell this run. */
export async function findClosedPullRequestSlots(
  ctx: CommandContext,
  listing: ListAnswer,
  warnings: string[],
): Promise<ClosedPullRequestSlot[]> {
  const numbers = livePullRequestHolders(listing.resources, ctx.repository);
  if (numbers.length === 0) return [];
  if (ctx.github === undefined) return [];
  if (ctx.github === null) {
    warnings.push(
      `${numbers.length} pull request${numbers.length === 1 ? ' holds' : 's hold'} a live lease; without a github-token (pull-requests: read) gc cannot tell whether any of them closed, so their slots wait for the cleanup workflow or for their lease to end.`,
    );
    return [];
  }
  const holding = `${numbers.length} pull request${numbers.length === 1 ? ' holds' : 's hold'} a live lease`;
  const states = await lookUpPullRequests(
    ctx,
    numbers,
    warnings,
    `reconcile was skipped: ${holding}, and gc cannot tell whether any of them closed, so their slots wait for the cleanup workflow or for their lease to end`,
  );
  return listing.resources.flatMap((slot): ClosedPullRequestSlot[] => {
    const { holder } = slot;
    const pullRequest =
      slot.leaseState === 'leased' && !slot.expired ? pullRequestOf(holder, ctx.repository) : null;
    const state = pullRequest === null ? undefined : states.get(pullRequest)?.state;
    if (holder === null || pullRequest === null || state === undefined || state === 'open') return [];
    return [{ slot, holder, pullRequest, state }];
  });
}

export type LeaseEnd =
  | { ended: true }
  /** The slot is not (or no longer) the lease gc read: who has it now, for the report. */
  | { ended: false; holder: string | null; generation: number; leaseVersion: number | null };

/**
 * Ends the closed pull request's lease, only while it is still the lease gc read: the same holder at
 * the same generation and lease version. A pull request that was reopened and pushed (its lease
 * extended, a newer version; or a new lease, a newer generation) or a slot a person took meanwhile is
 * left alone.
 */
export async function endClosedPullRequestLease(
  ctx: CommandContext,
  closed: ClosedPullRequestSlot,
): Promise<LeaseEnd> {
  const { slot } = closed;
  const answer = await ctx.semaphore.release({
    type: ctx.pool,
    slug: slot.slug,
    force: true,
    ifHolder: closed.holder,
    ifGeneration: slot.generation,
    ...(slot.leaseVersion === null ? {} : { ifLeaseVersion: slot.leaseVersion }),
    note: `gc: pull request #${closed.pullRequest} is ${closed.state}`,
  });
  return answer.released
    ? { ended: true }
    : {
        ended: false,
        holder: answer.holder,
        generation: answer.generation,
        leaseVersion: answer.leaseVersion,
      };
}

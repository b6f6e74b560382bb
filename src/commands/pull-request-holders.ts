// The pull requests behind live `pr-<n>` leases, looked up on GitHub: gc reclaims the slots of closed
// ones, acquire names them when no slot is free. Bounded (a pathological pool must not turn into API
// spam), at most one lookup per pull request per run (the reader remembers), and best effort: a
// lookup that fails changes nothing and becomes one warning.
import { GitHubError } from '../github/github-error.ts';
import type { PullRequestInfo } from '../github/pull-requests.ts';
import { pullRequestOf } from '../report/format.ts';
import type { PullRequestLabel, RunReport } from '../report/model.ts';
import type { Slot } from '../semaphore/protocol.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';

export const MAX_PULL_REQUEST_LOOKUPS = 20;

/** Distinct pull request numbers of the pool's live `pr-<n>` leases, in slot order. */
export function livePullRequestHolders(slots: readonly Slot[], repository: string | undefined): number[] {
  const numbers = slots
    .filter((slot) => slot.leaseState === 'leased' && !slot.expired)
    .map((slot) => pullRequestOf(slot.holder, repository))
    .filter((number) => number !== null);
  return [...new Set(numbers)];
}

/**
 * The one warning of a run whose github-token may not read pull requests: GitHub refused a lookup
 * (401, or a 403 that is not a rate limit), or answered 404 for every one asked. What that cost the
 * run is `effect`; the fix is the workflow's `permissions:`. The same words each time, so a run that
 * meets it twice says it once.
 */
export function pullRequestsUnreadableWarning(status: number | undefined, effect: string): string {
  const answer =
    status === 404
      ? 'GitHub answered HTTP 404 for every pull request looked up: the github-token cannot see them (or none of them exists)'
      : `GitHub refused to show pull requests to the github-token (HTTP ${status ?? 'error'})`;
  return `${answer}, so ${effect}. ${UNREADABLE_FIX}`;
}

/** The fix every unreadable-pull-requests warning ends with: a run that has one needs no second. */
const UNREADABLE_FIX =
  "Fix: give the workflow's job `permissions: pull-requests: read` (or set the github-token input to a token that can read this repository's pull requests).";

/** Whether the run already said its github-token may not read pull requests. */
export function saidUnreadable(warnings: readonly string[]): boolean {
  return warnings.some((warning) => warning.endsWith(UNREADABLE_FIX));
}

/** Adds a warning unless the run already has it, word for word. */
export function warnOnce(warnings: string[], warning: string): void {
  if (!warnings.includes(warning)) warnings.push(warning);
}

/** What a failed lookup is, when it says the token cannot read pull requests at all. */
function refusal(error: unknown): GitHubError | undefined {
  return error instanceof GitHubError && error.failure === 'refused' ? error : undefined;
}

/**
 * Looks up at most MAX_PULL_REQUEST_LOOKUPS pull requests. Answers by number; every failure and the
 * ones left out are summed up in one warning each. The first is asked alone: a token that may not
 * read pull requests is refused for every one alike, so the others are not sent to GitHub, and the
 * one warning names the permission and says `effect` (what the run did without the answers).
 * `unanswered` says what became of the slots of the pull requests GitHub could not tell about.
 */
export async function lookUpPullRequests(
  ctx: Pick<CommandContext, 'github'>,
  numbers: readonly number[],
  warnings: string[],
  effect: string,
  unanswered = 'so their slots were left as they are',
): Promise<Map<number, PullRequestInfo>> {
  const answers = new Map<number, PullRequestInfo>();
  const github = ctx.github;
  if (!github || numbers.length === 0) return answers;
  const asked = numbers.slice(0, MAX_PULL_REQUEST_LOOKUPS);
  const [first, ...others] = asked;
  const failures: unknown[] = [];
  const lookUp = async (number: number) => {
    try {
      answers.set(number, await github.get(number));
    } catch (error) {
      failures.push(error);
    }
  };
  // After a refusal the reader answers the others without asking GitHub (and counts them as asked).
  if (first !== undefined) await lookUp(first);
  await Promise.all(others.map(lookUp));
  const refused = failures.map(refusal).find((error) => error !== undefined);
  const noneVisible =
    answers.size === 0 &&
    failures.length > 0 &&
    failures.every((error) => error instanceof GitHubError && error.failure === 'not-found');
  if (refused !== undefined || noneVisible) {
    warnOnce(warnings, pullRequestsUnreadableWarning(refused?.status ?? 404, effect));
    return answers;
  }
  if (failures.length > 0) {
    warnings.push(
      `GitHub could not tell the state of ${failures.length} pull request${failures.length === 1 ? '' : 's'}, ${unanswered}: ${failures.map(oneLineError).sort().join('; ')}.`,
    );
  }
  if (numbers.length > asked.length) {
    warnings.push(
      `${numbers.length - asked.length} more pull requests hold slots; at most ${MAX_PULL_REQUEST_LOOKUPS} are looked up per run, the next run goes on.`,
    );
  }
  return answers;
}

/** What this run learnt about pull requests, for the report's labels. */
export function pullRequestLabels(
  ctx: Pick<CommandContext, 'github'>,
): Pick<RunReport, 'pullRequests' | 'pullRequestsAsked'> {
  const github = ctx.github;
  if (!github || github.asked().length === 0) return {};
  const labels = [...github.known().values()].map((info): [string, PullRequestLabel] => [
    String(info.number),
    { title: info.title, state: info.state },
  ]);
  return {
    pullRequestsAsked: github.asked(),
    ...(labels.length === 0 ? {} : { pullRequests: Object.fromEntries(labels) }),
  };
}

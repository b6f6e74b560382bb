// The pull requests behind live `pr-<n>` leases, looked up on GitHub: gc reclaims the slots of closed
// ones, acquire names them when no slot is free. Bounded (a pathological pool must not turn into API
// spam), at most one lookup per pull request per run (the reader remembers), and best effort: a
// lookup that fails changes nothing and becomes one warning.
import type { PullRequestInfo } from '../github/pull-requests.ts';
import { pullRequestOf } from '../report/format.ts';
import type { PullRequestLabel, RunReport } from '../report/model.ts';
import type { Slot } from '../semaphore/protocol.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';

export const MAX_PULL_REQUEST_LOOKUPS = 20;

/** Distinct pull request numbers of the pool's live `pr-<n>` leases, in slot order. */
export function livePullRequestHolders(slots: readonly Slot[]): number[] {
  const numbers = slots
    .filter((slot) => slot.leaseState === 'leased' && !slot.expired)
    .map((slot) => pullRequestOf(slot.holder))
    .filter((number) => number !== null);
  return [...new Set(numbers)];
}

/**
 * Looks up at most MAX_PULL_REQUEST_LOOKUPS pull requests. Answers by number; every failure and the
 * ones left out are summed up in one warning each.
 */
export async function lookUpPullRequests(
  ctx: Pick<CommandContext, 'github'>,
  numbers: readonly number[],
  warnings: string[],
): Promise<Map<number, PullRequestInfo>> {
  const answers = new Map<number, PullRequestInfo>();
  const github = ctx.github;
  if (!github || numbers.length === 0) return answers;
  const asked = numbers.slice(0, MAX_PULL_REQUEST_LOOKUPS);
  const failures: string[] = [];
  await Promise.all(
    asked.map(async (number) => {
      try {
        answers.set(number, await github.get(number));
      } catch (error) {
        failures.push(oneLineError(error));
      }
    }),
  );
  if (failures.length > 0) {
    warnings.push(
      `GitHub could not tell the state of ${failures.length} pull request${failures.length === 1 ? '' : 's'}, so their slots were left as they are: ${failures.sort().join('; ')}.`,
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

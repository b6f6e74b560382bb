// Labels `pr-<n>` holders with their pull request's title and state, so the summary says whose slot
// it was. Optional and best effort: without a token, or when GitHub does not answer, the report
// keeps plain links and the run is unaffected.
import * as z from '../zod.ts';
import { pullRequestOf } from './format.ts';
import type { PullRequestLabel, RunReport } from './model.ts';

/** A sweep touches a handful of pull requests; a pathological pool must not turn into API spam. */
const MAX_LOOKUPS = 20;
const LOOKUP_TIMEOUT_MS = 5_000;

const pullRequestAnswer = z.object({
  title: z.string(),
  state: z.enum(['open', 'closed']),
  merged_at: z.string().nullable().optional(),
});

export interface LabelOptions {
  token: string | undefined;
  /** GITHUB_API_URL, e.g. https://api.github.com. */
  apiUrl: string;
  fetch?: typeof fetch;
}

function holdersOf(report: RunReport): number[] {
  const holders = [
    ...report.slots.map((slot) => slot.previousHolder),
    ...(report.poolAfter ?? []).flatMap((row) => [row.holder, row.lastHolder]),
  ];
  const repository = report.repository?.nameWithOwner;
  const numbers = holders.map((holder) => pullRequestOf(holder, repository)).filter((n) => n !== null);
  return [...new Set(numbers)].slice(0, MAX_LOOKUPS);
}

async function lookUp(
  number: number,
  report: RunReport,
  options: LabelOptions,
): Promise<PullRequestLabel | null> {
  const doFetch = options.fetch ?? fetch;
  try {
    const response = await doFetch(
      `${options.apiUrl}/repos/${report.repository?.nameWithOwner}/pulls/${number}`,
      {
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/vnd.github+json',
          'x-github-api-version': '2022-11-28',
        },
        signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS),
      },
    );
    if (!response.ok) return null;
    const answer = pullRequestAnswer.safeParse(await response.json());
    if (!answer.success) return null;
    const { title, state, merged_at } = answer.data;
    return { title: title.slice(0, 120), state: merged_at ? 'merged' : state };
  } catch {
    return null;
  }
}

export async function labelPullRequests(report: RunReport, options: LabelOptions): Promise<RunReport> {
  if (options.token === undefined || report.repository === undefined) return report;
  // Pull requests the run looked up already (gc's reconcile, acquire) are not asked about again.
  const asked = new Set(report.pullRequestsAsked ?? []);
  const numbers = holdersOf(report).filter((number) => !asked.has(number));
  if (numbers.length === 0) return report;
  const labels = await Promise.all(numbers.map((number) => lookUp(number, report, options)));
  const pullRequests: Record<string, PullRequestLabel> = { ...report.pullRequests };
  numbers.forEach((number, index) => {
    const label = labels[index];
    if (label) pullRequests[String(number)] = label;
  });
  return Object.keys(pullRequests).length === 0 ? report : { ...report, pullRequests };
}

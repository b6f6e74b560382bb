// The action's GitHub for one run, loaded on first use: most runs never ask GitHub anything, and
// Octokit is the largest module the action would otherwise parse before its first request.
import { readFileSync } from 'node:fs';
import type { GitHubPullRequests, PullRequestInfo } from './pull-requests.ts';

/** GitHub for one run: only with a token and a repository to ask about. */
export function gitHubForRun(
  token: string | undefined,
  repository: { nameWithOwner: string } | undefined,
): GitHubPullRequests | null {
  if (token === undefined || repository === undefined) return null;
  let client: GitHubPullRequests | undefined;
  let loading: Promise<GitHubPullRequests> | undefined;
  const load = () => {
    loading ??= import('./pull-requests.ts').then((module) => {
      client = module.createGitHubPullRequests({ token, repository: repository.nameWithOwner });
      return client;
    });
    return loading;
  };
  return {
    get: async (number) => (await load()).get(number),
    list: async (options) => (await load()).list(options),
    // Nothing is known or asked before the first lookup loads the client.
    known: () => client?.known() ?? new Map<number, PullRequestInfo>(),
    asked: () => client?.asked() ?? [],
    upsertComment: async (number, marker, body) => (await load()).upsertComment(number, marker, body),
    commentOnce: async (number, marker, body, options) =>
      (await load()).commentOnce(number, marker, body, options),
  };
}

/**
 * The number of the pull request whose event started the run, read from the event payload the
 * runner writes to GITHUB_EVENT_PATH (what @actions/github's context reads, without loading Octokit).
 */
export function eventPullRequestNumber(): number | undefined {
  const path = process.env.GITHUB_EVENT_PATH;
  if (path === undefined || path === '') return undefined;
  try {
    const payload: unknown = JSON.parse(readFileSync(path, 'utf8'));
    const number = (payload as { pull_request?: { number?: unknown } } | null)?.pull_request?.number;
    return typeof number === 'number' && Number.isSafeInteger(number) && number > 0 ? number : undefined;
  } catch {
    return undefined;
  }
}

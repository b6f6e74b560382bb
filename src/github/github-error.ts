// What a GitHub call that failed says, in a module of its own: the commands tell a token that may not
// read pull requests from a GitHub that did not answer, without loading Octokit (pull-requests.ts).

/**
 * Why a call failed: `refused` (401, or a 403 that is not a rate limit: the token may not do this,
 * such as a workflow without `pull-requests: read`), `not-found` (404: missing, or not visible to
 * the token), `rate-limited`, or `other` (no answer, a 5xx, an answer that does not fit).
 */
export type GitHubFailure = 'refused' | 'not-found' | 'rate-limited' | 'other';

export class GitHubError extends Error {
  readonly status: number | undefined;
  readonly failure: GitHubFailure;
  constructor(message: string, status: number | undefined, failure: GitHubFailure = 'other') {
    super(message);
    this.name = 'GitHubError';
    this.status = status;
    this.failure = failure;
  }
}

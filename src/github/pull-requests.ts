// The pull requests behind `pr-<n>` holders, through @actions/github's Octokit (which honours
// GITHUB_API_URL, so GitHub Enterprise Server and a test double work alike). Every answer is checked
// with zod; every failure (an error answer, a rate limit, a timeout, an answer that does not fit) is a
// GitHubError whose message names only the status, never a header or the token. Each pull request is
// looked up at most once per run: the reader remembers answers and failures alike, and after GitHub
// refused the token one lookup, it asks about no other pull request (the answer would be the same).
import { getOctokit } from '@actions/github';
import * as z from '../zod.ts';
import { GitHubError, type GitHubFailure } from './github-error.ts';

export { GitHubError } from './github-error.ts';

const LOOKUP_TIMEOUT_MS = 10_000;
/** GitHub's largest page of comments. */
const COMMENTS_PER_PAGE = 100;
/**
 * How much of a long thread the sticky comment is looked for in: its first pages, where the first
 * deploy wrote it, and its last pages, where a comment written after them would be. A pull request
 * with more than 1,000 comments costs at most ten requests, not dozens.
 */
const FIRST_PAGES = 5;
const LAST_PAGES = 5;
/** A title is shown in summaries and comments; longer ones are cut. */
const MAX_TITLE_LENGTH = 120;

export type PullRequestState = 'open' | 'closed' | 'merged';

export interface PullRequestInfo {
  number: number;
  title: string;
  state: PullRequestState;
  /**
   * The head branch's name (`head.ref`), what `wrangler preview` names a preview after; only for a
   * branch of this repository. A fork's branch is named by whoever opened the pull request (`main`,
   * `staging`): it ties nothing here, or a stranger's closed pull request would delete our preview.
   */
  headRef?: string;
  /** Its labels' names (`get` only): gc keeps the lease of an open pull request with the keep label. */
  labels?: string[];
}

/** A pull request as the repository's listing shows it: its state and the branch it comes from. */
export type ListedPullRequest = PullRequestInfo;

export interface GitHubPullRequests {
  /**
   * The repository's pull requests, open and closed, most recently updated first, a page of 100 at a
   * time: reading stops after `maxPages`, or once `enough` says the pages so far answer the question.
   * Throws GitHubError.
   */
  list(options: {
    maxPages: number;
    enough: (sofar: readonly ListedPullRequest[]) => boolean;
  }): Promise<ListedPullRequest[]>;
  /** The pull request's state; throws GitHubError. A second call for the same number asks nobody. */
  get(number: number): Promise<PullRequestInfo>;
  /** Answers already known this run, by number (failures left out). */
  known(): ReadonlyMap<number, PullRequestInfo>;
  /** Every pull request asked about this run, answered or not. */
  asked(): number[];
  /** Creates the comment that carries `marker`, or updates it in place; throws GitHubError. */
  upsertComment(number: number, marker: string, body: string): Promise<'created' | 'updated'>;
  /**
   * Creates the comment that carries `marker` unless the bot wrote one already (a new comment, so
   * people are notified; never edited); throws GitHubError. A dry run only looks (`would-create`).
   */
  commentOnce(
    number: number,
    marker: string,
    body: string,
    options?: { dryRun?: boolean },
  ): Promise<'created' | 'exists' | 'would-create'>;
}

export interface GitHubOptions {
  token: string;
  /** `owner/repo`. */
  repository: string;
  /** Only where the caller must override GITHUB_API_URL (a test in one process with several doubles). */
  apiUrl?: string;
}

/** The head's repository: null once a fork is deleted. */
const headRepoSchema = z.object({ full_name: z.string() }).nullable().optional();

const pullRequestSchema = z.object({
  number: z.int().positive(),
  title: z.string(),
  state: z.enum(['open', 'closed']),
  merged_at: z.string().nullable().optional(),
  head: z.object({ ref: z.string(), repo: headRepoSchema }).optional(),
  labels: z.array(z.object({ name: z.string() })).optional(),
});
/** Labels kept of a pull request: GitHub allows 100 a pull request, each name at most 50 characters. */
const MAX_LABELS = 100;

const listedSchema = z.array(
  z.object({
    number: z.int().positive(),
    title: z.string(),
    state: z.enum(['open', 'closed']),
    merged_at: z.string().nullable().optional(),
    head: z.object({ ref: z.string(), repo: headRepoSchema }),
  }),
);
/** GitHub's largest page of pull requests. */
const PULLS_PER_PAGE = 100;

const commentsSchema = z.array(
  z.object({
    id: z.int().positive(),
    body: z.string().nullable().optional(),
    user: z.object({ type: z.string() }).nullable().optional(),
  }),
);

/**
 * The sticky comment is one a bot (the workflow's token) wrote, starting with the marker. Anyone may
 * comment on a pull request: a person's comment that quotes the marker must not be overwritten, and a
 * stranger's must not become the comment the slot is announced in (its author could edit it after).
 */
function isStickyComment(comment: z.infer<typeof commentsSchema>[number], marker: string): boolean {
  return comment.user?.type === 'Bot' && (comment.body ?? '').startsWith(marker);
}

/**
 * A comment posted once is never edited, so whoever wrote the marker counts: a token that comments as
 * a user (a personal token, not the workflow's bot) still finds its own warning and never repeats it.
 * A person who quotes the marker only spares that pull request one warning.
 */
function startsWithMarker(comment: z.infer<typeof commentsSchema>[number], marker: string): boolean {
  return (comment.body ?? '').startsWith(marker);
}

/** The number of the last page a `link` header names, if it names one (a sane one). */
function lastPageOf(link: string | undefined): number | undefined {
  // Split, not one pattern over the whole header: an answer is data, and a backtracking pattern
  // could be made to take seconds.
  for (const part of (link ?? '').slice(0, 4096).split(',')) {
    const address = /^\s*<([^<>]*)>\s*;\s*rel="last"\s*$/.exec(part)?.[1];
    if (address === undefined) continue;
    const page = URL.canParse(address) ? new URL(address).searchParams.get('page') : null;
    return page !== null && /^[1-9]\d{0,5}$/.test(page) ? Number(page) : undefined;
  }
  return undefined;
}

/** Page 1 first; a thread of more pages than FIRST_PAGES + LAST_PAGES is searched at both ends. */
function pagesToSearch(last: number): number[] {
  const count = Math.max(1, last);
  if (count <= FIRST_PAGES + LAST_PAGES) return Array.from({ length: count }, (_, i) => i + 1);
  return [
    ...Array.from({ length: FIRST_PAGES }, (_, i) => i + 1),
    ...Array.from({ length: LAST_PAGES }, (_, i) => count - i),
  ];
}

/** What a failed call says: its status and whether GitHub meant a rate limit. Nothing else is copied. */
function gitHubErrorOf(error: unknown, what: string): GitHubError {
  if (error instanceof GitHubError) return error;
  const status =
    typeof error === 'object' && error !== null && 'status' in error && typeof error.status === 'number'
      ? error.status
      : undefined;
  const headers =
    typeof error === 'object' && error !== null && 'response' in error
      ? (error.response as { headers?: Record<string, unknown> } | undefined)?.headers
      : undefined;
  const rateLimited =
    status === 429 || (status === 403 && String(headers?.['x-ratelimit-remaining'] ?? '') === '0');
  if (status === undefined) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return new GitHubError(
      `${what}: GitHub ${timedOut ? 'did not answer in time' : 'could not be reached'}`,
      undefined,
    );
  }
  const why = rateLimited
    ? ' (rate limit reached)'
    : status === 404
      ? ' (not found, or not visible to the token)'
      : '';
  const failure: GitHubFailure = rateLimited
    ? 'rate-limited'
    : status === 401 || status === 403
      ? 'refused'
      : status === 404
        ? 'not-found'
        : 'other';
  return new GitHubError(`${what}: GitHub answered HTTP ${status}${why}`, status, failure);
}

function parsed<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (!result.success) throw new GitHubError(`${what}: GitHub's answer does not look like one`, undefined);
  return result.data;
}

export function createGitHubPullRequests(options: GitHubOptions): GitHubPullRequests {
  const [owner = '', repo = ''] = options.repository.split('/');
  /** The head branch, when it is one of this repository's (see PullRequestInfo.headRef). */
  const ownBranch = (head: { ref: string; repo?: { full_name: string } | null } | undefined) =>
    head !== undefined && head.repo?.full_name.toLowerCase() === options.repository.toLowerCase()
      ? { headRef: head.ref }
      : {};
  const octokit = getOctokit(options.token, options.apiUrl === undefined ? {} : { baseUrl: options.apiUrl });
  const answers = new Map<number, Promise<PullRequestInfo>>();
  const known = new Map<number, PullRequestInfo>();
  /** A refusal (the token may not read pull requests) answers every later lookup of the run alike. */
  let refusedBy: GitHubError | undefined;
  const request = () => ({ signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
  /** A new comment on the pull request: the sticky one's first version, or a one-time warning. */
  const createComment = (number: number, body: string) =>
    octokit.rest.issues.createComment({ owner, repo, issue_number: number, body, request: request() });

  async function lookUp(number: number): Promise<PullRequestInfo> {
    const what = `looking up pull request #${number}`;
    try {
      const answer = await octokit.rest.pulls.get({ owner, repo, pull_number: number, request: request() });
      const pull = parsed(pullRequestSchema, answer.data, what);
      // gc releases slots on this answer: one about another pull request must not count for this one.
      if (pull.number !== number)
        throw new GitHubError(
          `${what}: GitHub answered about pull request #${pull.number} instead`,
          undefined,
        );
      const info: PullRequestInfo = {
        number,
        title: pull.title.slice(0, MAX_TITLE_LENGTH),
        state: pull.merged_at ? 'merged' : pull.state,
        ...ownBranch(pull.head),
        labels: (pull.labels ?? []).slice(0, MAX_LABELS).map((label) => label.name.slice(0, 50)),
      };
      known.set(number, info);
      return info;
    } catch (error) {
      const failure = gitHubErrorOf(error, what);
      if (failure.failure === 'refused') refusedBy ??= failure;
      throw failure;
    }
  }

  /**
   * The bot's comment with `marker` (or, with `isMarked`, any comment it accepts), page by page: the first pages oldest first, then, in a longer
   * thread, the last pages newest first. Pages are asked for by number: of the `link` header only the
   * last page's number is read, never its address (Octokit's paginate would send the token to
   * whatever URL an answer names, and drops each call's timeout).
   */
  async function stickyComment(
    number: number,
    marker: string,
    what: string,
    isMarked: typeof isStickyComment = isStickyComment,
  ) {
    const page = async (index: number) => {
      const listed = await octokit.rest.issues.listComments({
        owner,
        repo,
        issue_number: number,
        per_page: COMMENTS_PER_PAGE,
        page: index,
        request: request(),
      });
      const comments = parsed(commentsSchema, listed.data, what);
      return { found: comments.find((comment) => isMarked(comment, marker)), listed, comments };
    };
    const first = await page(1);
    if (first.found !== undefined || first.comments.length < COMMENTS_PER_PAGE) return first.found;
    // Without a `link` header (GitHub sends one, but an answer is data), page on until a short one.
    const last = lastPageOf(first.listed.headers.link);
    for (const index of pagesToSearch(last ?? FIRST_PAGES + LAST_PAGES).slice(1)) {
      const { found, comments } = await page(index);
      if (found !== undefined) return found;
      if (last === undefined && comments.length < COMMENTS_PER_PAGE) return undefined;
    }
    return undefined;
  }

  async function list(options: {
    maxPages: number;
    enough: (sofar: readonly ListedPullRequest[]) => boolean;
  }): Promise<ListedPullRequest[]> {
    const what = 'listing pull requests';
    if (refusedBy !== undefined) throw refusedBy;
    const pulls: ListedPullRequest[] = [];
    try {
      for (let page = 1; page <= options.maxPages; page++) {
        const answer = await octokit.rest.pulls.list({
          owner,
          repo,
          state: 'all',
          sort: 'updated',
          direction: 'desc',
          per_page: PULLS_PER_PAGE,
          page,
          request: request(),
        });
        const listed = parsed(listedSchema, answer.data, what);
        for (const pull of listed) {
          const info: ListedPullRequest = {
            number: pull.number,
            title: pull.title.slice(0, MAX_TITLE_LENGTH),
            state: pull.merged_at ? 'merged' : pull.state,
            ...ownBranch(pull.head),
          };
          pulls.push(info);
          known.set(pull.number, { number: info.number, title: info.title, state: info.state });
        }
        if (listed.length < PULLS_PER_PAGE || options.enough(pulls)) break;
      }
      return pulls;
    } catch (error) {
      const failure = gitHubErrorOf(error, what);
      if (failure.failure === 'refused') refusedBy ??= failure;
      throw failure;
    }
  }

  return {
    list,
    get(number) {
      let answer = answers.get(number);
      if (answer === undefined) {
        answer = refusedBy === undefined ? lookUp(number) : Promise.reject(refusedBy);
        answers.set(number, answer);
      }
      return answer;
    },
    known: () => known,
    asked: () => [...answers.keys()],
    async upsertComment(number, marker, body) {
      const what = `the comment on pull request #${number}`;
      try {
        const existing = await stickyComment(number, marker, what);
        if (existing === undefined) {
          await createComment(number, body);
          return 'created';
        }
        await octokit.rest.issues.updateComment({
          owner,
          repo,
          comment_id: existing.id,
          body,
          request: request(),
        });
        return 'updated';
      } catch (error) {
        throw gitHubErrorOf(error, what);
      }
    },
    async commentOnce(number, marker, body, options) {
      const what = `the comment on pull request #${number}`;
      try {
        if ((await stickyComment(number, marker, what, startsWithMarker)) !== undefined) return 'exists';
        if (options?.dryRun === true) return 'would-create';
        await createComment(number, body);
        return 'created';
      } catch (error) {
        throw gitHubErrorOf(error, what);
      }
    },
  };
}

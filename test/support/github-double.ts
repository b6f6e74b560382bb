// A GitHub REST API double on a loopback port, for the real Octokit client of @actions/github (the
// bundled action points at it through GITHUB_API_URL). It answers the few routes preview-gc calls, in
// the shapes GitHub's REST reference gives them: "Get a pull request" (`state` open/closed, `merged_at`),
// "List pull requests" (`head.ref`), "List / Create issue comments" and "Update an issue comment"; a missing pull request is 404
// `{ message: 'Not Found' }`; an exhausted rate limit is 403 with `x-ratelimit-remaining: 0`, as the
// "Rate limits for the REST API" page describes; GitHub down is 503 (`unavailable`); a workflow token without `pull-requests: read` gets
// 403 `Resource not accessible by integration` (what GitHub answers an integration token that lacks
// the permission, as the comment routes below answer one without `pull-requests: write`). Every request is logged; a hook may act before an
// answer goes out (to change the world between GitHub's answer and the caller's next step).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PullRequestBehaviour =
  | 'open'
  | 'closed'
  | 'merged'
  | 'missing'
  | 'rate-limited'
  | 'forbidden'
  | 'unavailable';

export interface GitHubRequest {
  method: string;
  path: string;
  /** The Authorization header as sent. */
  authorization: string | undefined;
}

export interface GitHubDouble {
  /** e.g. http://127.0.0.1:4321, what GITHUB_API_URL is set to. */
  url: string;
  token: string;
  pullRequests: Map<number, PullRequestBehaviour>;
  /** The head branch of a pull request (`head.ref`), by number; `pr-<n>-branch` when unset. */
  heads: Map<number, string>;
  /** The labels of a pull request (`labels[].name`), by number; none when unset. */
  labels: Map<number, string[]>;
  /** The repository a pull request's head branch is in (`head.repo.full_name`), by number; `acme/shop` when unset. */
  headRepositories: Map<number, string>;
  /** Comments by pull request number. */
  comments: Map<number, { id: number; body: string; user: { login: string; type: 'User' | 'Bot' } }[]>;
  /** Comment routes answer 403 (a token without pull-requests: write) while this is true. */
  refuseComments: boolean;
  requests: GitHubRequest[];
  /** Runs before a pull request's answer is sent. */
  beforePullRequestAnswer?: (number: number) => Promise<void>;
  close(): Promise<void>;
}

const DOCS = 'https://docs.github.com/rest';
export const GITHUB_ACTIONS_BOT = { login: 'github-actions[bot]', type: 'Bot' } as const;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'x-github-media-type': 'github.v3; format=json',
    ...headers,
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text);
}

/**
 * The page a GitHub list endpoint answers: `per_page` (default 30, at most 100) and `page` (from 1),
 * with the `link` header that names the next and the last page when there is more than one.
 */
export function listPage<T>(
  list: readonly T[],
  url: string,
): { items: T[]; headers: Record<string, string> } {
  const address = new URL(url, 'https://api.github.com');
  const perPage = Math.min(Number(address.searchParams.get('per_page') ?? 30), 100);
  const page = Number(address.searchParams.get('page') ?? 1);
  const last = Math.max(1, Math.ceil(list.length / perPage));
  const pageUrl = (number: number) => {
    address.searchParams.set('page', String(number));
    return address.href;
  };
  const links = [
    ...(page < last ? [`<${pageUrl(page + 1)}>; rel="next"`] : []),
    ...(last > 1 ? [`<${pageUrl(last)}>; rel="last"`] : []),
  ];
  return {
    items: list.slice((page - 1) * perPage, page * perPage),
    headers: links.length === 0 ? {} : { link: links.join(', ') },
  };
}

function pullRequestAnswer(
  number: number,
  behaviour: 'open' | 'closed' | 'merged',
  head: string,
  headRepository: string,
  labels: readonly string[] = [],
) {
  return {
    labels: labels.map((name, index) => ({ id: 7000 + index, name, color: 'ededed', default: false })),
    head: {
      ref: head,
      label: `${headRepository.split('/')[0]}:${head}`,
      repo: { full_name: headRepository },
    },
    base: { ref: 'main', label: 'acme:main', repo: { full_name: 'acme/shop' } },
    url: `https://api.github.com/repos/acme/shop/pulls/${number}`,
    number,
    state: behaviour === 'open' ? 'open' : 'closed',
    title: `Change number ${number}`,
    merged_at: behaviour === 'merged' ? '2026-11-30T09:00:00Z' : null,
    closed_at: behaviour === 'open' ? null : '2026-11-30T09:00:00Z',
  };
}

export async function startGitHubDouble(token: string): Promise<GitHubDouble> {
  let nextCommentId = 1000;
  const double: Omit<GitHubDouble, 'url' | 'close'> = {
    token,
    pullRequests: new Map(),
    heads: new Map(),
    labels: new Map(),
    headRepositories: new Map(),
    comments: new Map(),
    refuseComments: false,
    requests: [],
  };

  async function pullRequest(res: ServerResponse, number: number): Promise<void> {
    await double.beforePullRequestAnswer?.(number);
    const behaviour = double.pullRequests.get(number) ?? 'missing';
    if (behaviour === 'missing') send(res, 404, { message: 'Not Found', documentation_url: DOCS });
    else if (behaviour === 'unavailable')
      send(res, 503, { message: 'Service Unavailable', documentation_url: DOCS });
    else if (behaviour === 'forbidden')
      send(res, 403, { message: 'Resource not accessible by integration', documentation_url: DOCS });
    else if (behaviour === 'rate-limited') {
      send(
        res,
        403,
        { message: 'API rate limit exceeded for installation ID 4242.', documentation_url: DOCS },
        { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1764500000' },
      );
    } else
      send(
        res,
        200,
        pullRequestAnswer(
          number,
          behaviour,
          headOf(number),
          headRepositoryOf(number),
          double.labels.get(number),
        ),
      );
  }

  const headOf = (number: number) => double.heads.get(number) ?? `pr-${number}-branch`;
  const headRepositoryOf = (number: number) => double.headRepositories.get(number) ?? 'acme/shop';

  /**
   * "List pull requests": `state=all` gives open and closed ones alike, paged like every list
   * endpoint. Most recently updated first stands in as the highest number first.
   */
  function pullRequestList(req: IncomingMessage, res: ServerResponse): void {
    const all = [...double.pullRequests.entries()]
      .filter((entry): entry is [number, 'open' | 'closed' | 'merged'] =>
        ['open', 'closed', 'merged'].includes(entry[1]),
      )
      .sort(([a], [b]) => b - a)
      .map(([number, behaviour]) =>
        pullRequestAnswer(number, behaviour, headOf(number), headRepositoryOf(number)),
      );
    const { items, headers } = listPage(all, req.url ?? '/');
    send(res, 200, items, headers);
  }

  /** GET lists a pull request's comments, POST adds one. */
  async function issueComments(req: IncomingMessage, res: ServerResponse, number: number): Promise<void> {
    const list = double.comments.get(number) ?? [];
    if (req.method === 'POST') {
      const body = (await readBody(req)) as { body: string };
      // The token of a workflow run comments as the GitHub Actions app, a user of type Bot.
      const created = { id: nextCommentId++, body: body.body, user: GITHUB_ACTIONS_BOT };
      double.comments.set(number, [...list, created]);
      send(res, 201, created);
    } else {
      const { items, headers } = listPage(list, req.url ?? '/');
      send(res, 200, items, headers);
    }
  }

  async function updateComment(req: IncomingMessage, res: ServerResponse, id: number): Promise<void> {
    const body = (await readBody(req)) as { body: string };
    const found = [...double.comments.values()].flat().find((entry) => entry.id === id);
    if (found === undefined) {
      send(res, 404, { message: 'Not Found', documentation_url: DOCS });
      return;
    }
    found.body = body.body;
    send(res, 200, found);
  }

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://double').pathname;
    double.requests.push({ method, path, authorization: req.headers.authorization });
    // GitHub takes the token as `token <t>` (what Octokit sends) or `Bearer <t>`.
    if (req.headers.authorization !== `token ${token}` && req.headers.authorization !== `Bearer ${token}`) {
      send(res, 401, { message: 'Bad credentials', documentation_url: DOCS });
      return;
    }
    // acme/blog's pull requests are answered as acme/shop's of the same number: a test of two
    // repositories tells by the path which one a run asked.
    const pull = /^\/repos\/acme\/(?:shop|blog)\/pulls\/(\d+)$/.exec(path);
    const comments = /^\/repos\/acme\/shop\/issues\/(\d+)\/comments$/.exec(path);
    const comment = /^\/repos\/acme\/shop\/issues\/comments\/(\d+)$/.exec(path);
    if (pull !== null && method === 'GET') return pullRequest(res, Number(pull[1]));
    if (path === '/repos/acme/shop/pulls' && method === 'GET') return pullRequestList(req, res);
    if ((comments !== null || comment !== null) && double.refuseComments) {
      send(res, 403, { message: 'Resource not accessible by integration', documentation_url: DOCS });
      return;
    }
    if (comments !== null && (method === 'GET' || method === 'POST'))
      return issueComments(req, res, Number(comments[1]));
    if (comment !== null && method === 'PATCH') return updateComment(req, res, Number(comment[1]));
    send(res, 404, { message: 'Not Found', documentation_url: DOCS });
  }

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => send(res, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(double, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  });
}

/** Lookups of each pull request, by number: the run must ask about each at most once. */
export function lookupsByPullRequest(double: Pick<GitHubDouble, 'requests'>): Map<number, number> {
  const counts = new Map<number, number>();
  for (const request of double.requests) {
    const match = /\/pulls\/(\d+)$/.exec(request.path);
    if (match !== null) counts.set(Number(match[1]), (counts.get(Number(match[1])) ?? 0) + 1);
  }
  return counts;
}

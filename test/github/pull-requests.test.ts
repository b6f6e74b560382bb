// The GitHub client (src/github/pull-requests.ts) against a loopback stand-in for the REST API: an
// answer about another pull request is no answer, and the sticky comment is only the bot's own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubPullRequests } from '../../src/github/pull-requests.ts';
import { listPage } from '../support/github-double.ts';

const MARKER = '<!-- preview-gc:slot:pool-a -->';
const BOT = { login: 'github-actions[bot]', type: 'Bot' };
let server: Server;
let apiUrl: string;
let comments: { id: number; body: string; user: { login: string; type: string } }[];
let patched: number[];
let created: string[];
let pagesRead: number[];
/** A `link` header to send instead of the one the listing would have. */
let linkOverride: string | undefined;

beforeEach(() => {
  patched = [];
  created = [];
  comments = [];
  pagesRead = [];
  linkOverride = undefined;
});

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = request.url ?? '';
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    // Pull request 5 is answered with pull request 6 (a proxy or a server mixing up its answers).
    const pull = /\/pulls\/(\d+)$/.exec(url);
    if (pull)
      return reply(200, { number: Number(pull[1]) + 1, title: 't', state: 'closed', merged_at: null });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (request.method === 'GET') {
        pagesRead.push(Number(new URL(url, 'http://double').searchParams.get('page')));
        const { items, headers } = listPage(comments, url);
        return reply(
          200,
          items,
          linkOverride === undefined ? headers : linkOverride === '' ? {} : { link: linkOverride },
        );
      }
      if (request.method === 'POST') {
        created.push(body.body);
        return reply(201, { id: 99, body: body.body });
      }
      patched.push(Number(/\/comments\/(\d+)$/.exec(url)?.[1]));
      return reply(200, { id: 1, body: body.body });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A pull request's comments by people, with the bot's sticky comment at index `sticky`, if given. */
function thread(length: number, sticky?: number) {
  return Array.from({ length }, (_, i) =>
    i === sticky
      ? { id: 7, body: `${MARKER}\nold`, user: BOT }
      : { id: 100 + i, body: `comment ${i}`, user: { login: 'ana', type: 'User' } },
  );
}

const client = () => createGitHubPullRequests({ token: 'gh-token', repository: 'acme/shop', apiUrl });

describe('createGitHubPullRequests', () => {
  it('refuses an answer about another pull request: gc must not release pr-5 on #6 being closed', async () => {
    await expect(client().get(5)).rejects.toThrow(/answered about pull request #6 instead/);
  });

  it("updates the bot's own comment that starts with the marker, never a person's that quotes it", async () => {
    comments = [
      { id: 11, body: `see ${MARKER}`, user: { login: 'ana', type: 'User' } },
      {
        id: 12,
        body: `${MARKER}\nslot of pr-5, edited by a stranger`,
        user: { login: 'mallory', type: 'User' },
      },
      { id: 13, body: `${MARKER}\nold`, user: { login: 'github-actions[bot]', type: 'Bot' } },
    ];
    expect(await client().upsertComment(5, MARKER, `${MARKER}\nnew`)).toBe('updated');
    expect(patched).toEqual([13]);
  });

  it('finds its comment after the first hundred, and reads no page past it', async () => {
    comments = thread(251, 230);
    expect(await client().upsertComment(5, MARKER, `${MARKER}\nnew`)).toBe('updated');
    expect(patched).toEqual([7]);
    expect(created).toEqual([]);
    expect(pagesRead).toEqual([1, 2, 3]);
  });

  it('looks through the first five pages and the last five of a long pull request, newest last first', async () => {
    // Written after the thousandth comment: found on the last page, the first one read after page 5.
    comments = thread(1_100, 1_050);
    expect(await client().upsertComment(5, MARKER, `${MARKER}\nnew`)).toBe('updated');
    expect(pagesRead).toEqual([1, 2, 3, 4, 5, 11]);
    // In the middle of eleven pages: not looked for, and a new comment is written.
    comments = thread(1_100, 550);
    pagesRead = [];
    expect(await client().upsertComment(5, MARKER, `${MARKER}\nnew`)).toBe('created');
    expect(pagesRead).toEqual([1, 2, 3, 4, 5, 11, 10, 9, 8, 7]);
  });

  it('pages on until a short page when an answer carries no link header', async () => {
    linkOverride = '';
    comments = thread(250, 230);
    expect(await client().upsertComment(5, MARKER, `${MARKER}\nnew`)).toBe('updated');
    expect(pagesRead).toEqual([1, 2, 3]);
    // No sticky comment: page 3 is short, so there is no page 4 to ask for.
    comments = thread(250);
    pagesRead = [];
    expect(await client().upsertComment(5, MARKER, `${MARKER}\nnew`)).toBe('created');
    expect(pagesRead).toEqual([1, 2, 3]);
  });

  it('takes only the number of the last page from the link header, never its address', async () => {
    comments = Array.from({ length: 300 }, (_, i) => ({ id: 100 + i, body: `c ${i}`, user: BOT }));
    const elsewhere: string[] = [];
    const trap = createServer((request, response) => {
      elsewhere.push(request.url ?? '');
      response.end('[]');
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = trap.address() as AddressInfo;
      linkOverride = `<http://127.0.0.1:${port}/steal?page=3>; rel="last"`;
      expect(await client().upsertComment(5, MARKER, `${MARKER}\nnew`)).toBe('created');
      expect(pagesRead).toEqual([1, 2, 3]);
      expect(elsewhere).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => trap.close(() => resolve()));
    }
  });

  it('writes a comment of its own when only people quoted the marker', async () => {
    comments = [{ id: 12, body: `${MARKER}\nfake`, user: { login: 'mallory', type: 'User' } }];
    expect(await client().upsertComment(5, MARKER, `${MARKER}\nnew`)).toBe('created');
    expect(patched).toEqual([]);
    expect(created).toEqual([`${MARKER}\nnew`]);
  });
});

describe('a comment posted once (the warning before reclaim)', () => {
  const WARNING = '<!-- preview-gc:reclaim-warning:pool-a:preview-3:g7:v2 -->';

  it('is written when no comment carries its marker, and never edited or written again once one does', async () => {
    comments = [{ id: 12, body: `${MARKER}\nthe sticky one`, user: BOT }];
    expect(await client().commentOnce(5, WARNING, `${WARNING}\nwarned`)).toBe('created');
    expect(created).toEqual([`${WARNING}\nwarned`]);
    comments.push({ id: 13, body: `${WARNING}\nwarned`, user: BOT });
    expect(await client().commentOnce(5, WARNING, `${WARNING}\nwarned`)).toBe('exists');
    expect(created).toHaveLength(1);
    expect(patched).toEqual([]);
  });

  it('counts a marker whoever wrote it: a token that comments as a user never repeats its warning', async () => {
    comments = [{ id: 14, body: `${WARNING}\nwarned`, user: { login: 'release-bot-pat', type: 'User' } }];
    expect(await client().commentOnce(5, WARNING, `${WARNING}\nwarned`)).toBe('exists');
    expect(created).toEqual([]);
  });

  it('only looks on a dry run', async () => {
    expect(await client().commentOnce(5, WARNING, `${WARNING}\nwarned`, { dryRun: true })).toBe(
      'would-create',
    );
    expect(pagesRead).toEqual([1]);
    expect(created).toEqual([]);
  });
});

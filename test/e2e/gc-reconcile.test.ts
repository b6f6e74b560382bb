// gc reconciles closed pull requests, through the bundled action against the real semaphore, the
// Cloudflare twin and a GitHub double the real Octokit client talks to (GITHUB_API_URL): the slots of
// closed and merged pull requests are released (conditionally) and erased; open ones, unknown ones
// (404), a rate limit (403) and holders that are not pull requests change nothing; a holder that
// changes between GitHub's answer and the release is left alone; a dry run shows what it would do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { type ActionStack, actionInputs, expectNoLeaks, startActionStack } from '../support/action-stack.ts';
import { lookupsByPullRequest } from '../support/github-double.ts';
import { isErased, slotContents, slotSeed, tenantData } from '../support/twin-slot.ts';

const TOKENS = {
  semaphore: 'sem-reconcile-8c1f2b7d40',
  cloudflare: 'cf-reconcile-e69a3d05b2',
  github: 'ghs-reconcile-17f4c9a2e8',
};
const DAY = 24 * 3_600_000;

let stack: ActionStack;

beforeAll(async () => {
  stack = await startActionStack(TOKENS);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

async function gc(pool: string, extra: Record<string, string> = {}): Promise<ActionRunResult> {
  stack.github.requests.length = 0;
  const result = await runAction(
    actionInputs(stack, pool, { command: 'gc', 'github-token': TOKENS.github, ...extra }),
    { env: { GITHUB_API_URL: stack.github.url } },
  );
  expectNoLeaks(result, Object.values(TOKENS));
  return result;
}

const reportOf = (result: ActionRunResult): RunReport => JSON.parse(result.outputs.report ?? '{}');

/** Slots, each held live by its holder, who deployed data into it. */
async function heldSlots(pool: string, holders: Record<string, string>): Promise<void> {
  const slugs = Object.keys(holders);
  stack.twin.seed(slotSeed(stack.config, slugs, slugs));
  for (const [slug, holder] of Object.entries(holders)) {
    await stack.client.add({ type: pool, slug });
    await stack.client.acquireSpecific({ type: pool, slug, holder, leaseMs: DAY });
    stack.twin.seed(tenantData(stack.config, slug, holder));
  }
}

describe('gc reconciles closed pull requests', () => {
  const pool = 'reconcile';
  const holders = {
    'rec-open': 'pr-81',
    'rec-closed': 'pr-82',
    'rec-merged': 'pr-83',
    'rec-missing': 'pr-84',
    'rec-limited': 'pr-85',
    'rec-person': 'manual-ana',
  };

  beforeAll(async () => {
    await heldSlots(pool, holders);
    stack.github.pullRequests.set(81, 'open');
    stack.github.pullRequests.set(82, 'closed');
    stack.github.pullRequests.set(83, 'merged');
    stack.github.pullRequests.set(84, 'missing');
    stack.github.pullRequests.set(85, 'rate-limited');
  });

  it('a dry run shows the slots of closed and merged pull requests it would reclaim, and changes nothing', async () => {
    const before = await stack.client.list(pool);
    const run = await gc(pool, { 'dry-run': 'true' });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(reportOf(run).slots).toMatchObject([
      { slug: 'rec-closed', reason: 'closed-pr', outcome: 'would-reclaim', previousHolder: 'pr-82' },
      { slug: 'rec-merged', reason: 'closed-pr', outcome: 'would-reclaim', previousHolder: 'pr-83' },
    ]);
    expect(run.summary).toContain('pull request closed');
    expect((await stack.client.list(pool)).resources).toEqual(
      before.resources.map((slot) =>
        expect.objectContaining({ holder: slot.holder, generation: slot.generation }),
      ),
    );
  });

  it('releases and erases them; open, unknown and rate-limited pull requests and other holders keep their slots', async () => {
    const run = await gc(pool);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(reportOf(run).slots).toMatchObject([
      { slug: 'rec-closed', reason: 'closed-pr', outcome: 'reclaimed', previousHolder: 'pr-82' },
      { slug: 'rec-merged', reason: 'closed-pr', outcome: 'reclaimed', previousHolder: 'pr-83' },
    ]);
    const after = new Map((await stack.client.list(pool)).resources.map((slot) => [slot.slug, slot]));
    for (const slug of ['rec-closed', 'rec-merged']) {
      expect(after.get(slug)).toMatchObject({ leaseState: 'available', dirty: false, lastHolder: 'gc' });
      expect(isErased(slotContents(stack.twin, stack.config, slug))).toBe(true);
    }
    for (const [slug, holder] of Object.entries(holders).filter(
      ([slug]) => !['rec-closed', 'rec-merged'].includes(slug),
    )) {
      expect(after.get(slug)).toMatchObject({ leaseState: 'leased', holder });
      expect(slotContents(stack.twin, stack.config, slug).rows).toBe(2);
    }
    // The release names why, in the slot's history.
    const released = (await stack.client.events(pool, 'rec-closed')).find(
      (event) => event.event === 'force-released',
    );
    expect(released).toMatchObject({
      holder: 'pr-82',
      detail: expect.objectContaining({ note: 'gc: pull request #82 is closed' }),
    });

    // GitHub errors are warnings, not failures; every pull request was asked about once.
    expect(run.stdout).toMatch(
      /::warning title=preview-gc::GitHub could not tell the state of 2 pull requests, so their slots were left as they are: .*#84: GitHub answered HTTP 404.*#85: GitHub answered HTTP 403 \(rate limit reached\)/,
    );
    expect(run.summary).toContain('> [!WARNING]');
    expect(lookupsByPullRequest(stack.github)).toEqual(
      new Map([
        [81, 1],
        [82, 1],
        [83, 1],
        [84, 1],
        [85, 1],
      ]),
    );
    // The summary names the pull requests with their state.
    expect(run.summary).toMatch(
      /\[pr-82\]\(https:\/\/github\.com\/acme\/shop\/pull\/82\) Change number 82 \(closed\)/,
    );
  });

  it('without a github-token changes nothing and says why', async () => {
    const run = await gc(pool, { 'github-token': '' });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(reportOf(run).slots).toEqual([]);
    expect(run.stdout).toMatch(
      /::warning title=preview-gc::3 pull requests hold a live lease; without a github-token/,
    );
    expect(stack.github.requests).toEqual([]);
  });
});

describe("gc reconcile: the holder changes between GitHub's answer and the release", () => {
  it('releases nothing when another holder, a newer lease of the same pull request, or the same lease renewed has the slot', async () => {
    const pool = 'reconcile-race';
    await heldSlots(pool, { 'race-taken': 'pr-91', 'race-reopened': 'pr-92', 'race-renewed': 'pr-93' });
    stack.github.pullRequests.set(91, 'closed');
    stack.github.pullRequests.set(92, 'closed');
    stack.github.pullRequests.set(93, 'closed');
    stack.github.beforePullRequestAnswer = async (number) => {
      // While GitHub answers "closed": a person takes pr-91's slot, and pr-92 is reopened and pushed
      // (its lease ends and it gets the slot again, a newer generation).
      if (number === 91) {
        await stack.client.acquireSpecific({
          type: pool,
          slug: 'race-taken',
          holder: 'manual-bo',
          leaseMs: DAY,
          force: true,
        });
      }
      // Found by a hostile read: pr-93 is reopened and its deploy extends the lease it still holds
      // (acquired g1, renewed g1): holder and generation stay, so only the lease version tells.
      if (number === 93) {
        await stack.client.acquire({ type: pool, holder: 'pr-93', leaseMs: DAY, reuseHeld: true });
      }
      if (number === 92) {
        await stack.client.release({ type: pool, slug: 'race-reopened', force: true });
        await stack.client.acquireSpecific({
          type: pool,
          slug: 'race-reopened',
          holder: 'pr-92',
          leaseMs: DAY,
        });
      }
    };
    const before = new Map(
      (await stack.client.list(pool)).resources.map((slot) => [slot.slug, slot.generation]),
    );
    try {
      const run = await gc(pool);
      expect(run.exitCode, run.stdout).toBe(0);
      expect(reportOf(run).slots).toMatchObject([
        {
          slug: 'race-taken',
          outcome: 'skipped',
          problem: expect.stringMatching(
            /^pr-91 no longer holds it at generation \d+ \(now manual-bo, generation \d+\); nothing was released$/,
          ),
        },
        {
          slug: 'race-reopened',
          outcome: 'skipped',
          problem: expect.stringMatching(
            /^pr-92 no longer holds it at generation \d+ \(now pr-92, generation \d+\); nothing was released$/,
          ),
        },
        {
          slug: 'race-renewed',
          outcome: 'skipped',
          problem:
            'pr-93 renewed its lease since it was read (a deploy of it is running: reopened?); nothing was released',
        },
      ]);
    } finally {
      stack.github.beforePullRequestAnswer = undefined;
    }
    const after = new Map((await stack.client.list(pool)).resources.map((slot) => [slot.slug, slot]));
    expect(after.get('race-taken')).toMatchObject({
      holder: 'manual-bo',
      generation: (before.get('race-taken') ?? 0) + 1,
    });
    expect(after.get('race-reopened')).toMatchObject({
      holder: 'pr-92',
      generation: (before.get('race-reopened') ?? 0) + 1,
    });
    expect(slotContents(stack.twin, stack.config, 'race-reopened').rows).toBe(2);
    expect(after.get('race-renewed')).toMatchObject({
      holder: 'pr-93',
      leaseState: 'leased',
      generation: before.get('race-renewed'),
      leaseVersion: 2,
    });
    expect(slotContents(stack.twin, stack.config, 'race-renewed').rows).toBe(2);
  });
});

describe('gc with a github-token that may not read pull requests', () => {
  const count = (text: string, part: string) => text.split(part).length - 1;

  it.each([
    ['refuses it (HTTP 403, a workflow without pull-requests: read)', 'forbidden', 200, 1, 'HTTP 403'],
    ['answers HTTP 404 for every pull request', 'missing', 300, 3, 'HTTP 404 for every pull request'],
  ] as const)(
    'when GitHub %s: nothing fails, and one warning says reconcile was skipped and which permission the workflow needs',
    async (_, behaviour, first, lookups, answer) => {
      const pool = `reconcile-${behaviour}`;
      const numbers = [first + 1, first + 2, first + 3];
      for (const number of numbers) stack.github.pullRequests.set(number, behaviour);
      await heldSlots(
        pool,
        Object.fromEntries(numbers.map((number, index) => [`${behaviour}-${index + 1}`, `pr-${number}`])),
      );
      const before = await stack.client.list(pool);

      const run = await gc(pool);
      expect(run.exitCode, run.stdout).toBe(0);
      expect(reportOf(run).slots).toEqual([]);
      const warnings = run.stdout.split('\n').filter((line) => line.startsWith('::warning'));
      expect(warnings, run.stdout).toHaveLength(1);
      expect(warnings[0]).toContain(answer);
      expect(warnings[0]).toContain(
        'so reconcile was skipped: 3 pull requests hold a live lease, and gc cannot tell whether any of them closed',
      );
      expect(warnings[0]).toContain("Fix: give the workflow's job `permissions: pull-requests: read`");
      expect(count(run.summary, 'pull-requests: read')).toBe(1);
      expect(run.summary).toContain('> [!WARNING]');
      // A refusal is the same for every pull request: only the first is asked.
      const asked = stack.github.requests.filter((request) => request.path.includes('/pulls/'));
      expect(asked).toHaveLength(lookups);
      expect((await stack.client.list(pool)).resources).toEqual(
        before.resources.map((slot) =>
          expect.objectContaining({ holder: slot.holder, generation: slot.generation }),
        ),
      );
    },
  );
});

// Two repositories lease in one pool through OIDC, so their pull requests' holders name them. Each
// repository's gc reconciles its own closed pull requests and never another's: it cannot tell another
// repository's pull request 91 from its own by number, so it does not ask GitHub about it and does not
// release it, however its own pull request 91 ended.
describe('gc reconciles the closed pull requests of its own repository only', () => {
  const pool = 'reconcile-repos';

  beforeAll(async () => {
    await heldSlots(pool, { 'repo-shop': 'acme/shop/pr-91', 'repo-blog': 'acme/blog/pr-91' });
    stack.github.pullRequests.set(91, 'closed');
  });

  it("acme/shop's gc takes back acme/shop/pr-91's slot, and acme/blog's gc acme/blog/pr-91's", async () => {
    const shop = await gc(pool);
    expect(shop.exitCode, shop.stdout).toBe(0);
    expect(reportOf(shop).slots).toMatchObject([
      { slug: 'repo-shop', reason: 'closed-pr', outcome: 'reclaimed', previousHolder: 'acme/shop/pr-91' },
    ]);
    expect(await stack.client.find(pool, 'repo-blog')).toMatchObject({
      leaseState: 'leased',
      holder: 'acme/blog/pr-91',
    });
    expect(slotContents(stack.twin, stack.config, 'repo-blog').rows).toBe(2);
    expect(lookupsByPullRequest(stack.github)).toEqual(new Map([[91, 1]]));

    stack.github.requests.length = 0;
    const blog = await runAction(
      actionInputs(stack, pool, { command: 'gc', 'github-token': TOKENS.github }),
      { env: { GITHUB_API_URL: stack.github.url, GITHUB_REPOSITORY: 'acme/blog' } },
    );
    expectNoLeaks(blog, Object.values(TOKENS));
    expect(blog.exitCode, blog.stdout).toBe(0);
    expect(reportOf(blog).slots).toMatchObject([
      { slug: 'repo-blog', reason: 'closed-pr', outcome: 'reclaimed', previousHolder: 'acme/blog/pr-91' },
    ]);
    expect(isErased(slotContents(stack.twin, stack.config, 'repo-blog'))).toBe(true);
    // The blog's gc asked its own repository's pull request, not the shop's.
    expect(stack.github.requests.some(({ path }) => path.includes('/repos/acme/blog/pulls/91'))).toBe(true);
    expect(stack.github.requests.some(({ path }) => path.includes('/repos/acme/shop/'))).toBe(false);
  });
});

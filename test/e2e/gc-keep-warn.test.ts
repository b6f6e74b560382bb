// gc before it reclaims (issue 31), through the bundled action against the real semaphore (its test
// clock moves the leases' time), the Cloudflare twin and the GitHub double: a pull request whose lease
// ends within warn-minutes gets one comment, never repeated; an expired lease whose open pull request
// has the keep label is extended, not reclaimed, up to keep-max-hours; a closed pull request's lease is
// reclaimed whatever its labels; and GitHub answers that fail (503, a rate limit) never block a reclaim.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import { runCli } from '../cli/run-cli.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { type ActionStack, actionInputs, expectNoLeaks, startActionStack } from '../support/action-stack.ts';
import { startSemaphoreProxy } from '../support/semaphore-proxy.ts';
import { advanceClock } from '../support/test-clock.ts';
import { isErased, slotContents, slotSeed, tenantData } from '../support/twin-slot.ts';

const TOKENS = {
  semaphore: 'sem-keepwarn-4b9e1d27c3',
  cloudflare: 'cf-keepwarn-0d6a83f51e',
  github: 'ghs-keepwarn-a51c7e90b4',
};
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let stack: ActionStack;

beforeAll(async () => {
  stack = await startActionStack(TOKENS, { testClock: true });
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

/** Slots, each leased by its holder for its time, who deployed data into it. */
async function leasedSlots(pool: string, leases: Record<string, [holder: string, leaseMs: number]>) {
  const slugs = Object.keys(leases);
  stack.twin.seed(slotSeed(stack.config, slugs, slugs));
  for (const [slug, [holder, leaseMs]] of Object.entries(leases)) {
    await stack.client.add({ type: pool, slug });
    await stack.client.acquireSpecific({ type: pool, slug, holder, leaseMs });
    stack.twin.seed(tenantData(stack.config, slug, holder));
  }
}

const commentsOn = (number: number) => stack.github.comments.get(number) ?? [];

describe('gc warns before reclaim and keeps on request', () => {
  const pool = 'keep-warn';

  beforeAll(async () => {
    // Two hours pass after these leases began: kw-warn then ends in 30 minutes, the others ended an hour ago.
    await leasedSlots(pool, {
      'kw-warn': ['pr-71', 2 * HOUR + 30 * MINUTE],
      'kw-keep': ['pr-72', HOUR],
      'kw-closed': ['pr-73', HOUR],
      'kw-down': ['pr-74', HOUR],
      'kw-limited': ['pr-75', 2 * HOUR + 30 * MINUTE],
    });
    await advanceClock(stack.semaphore, pool, 2 * HOUR);
    stack.github.pullRequests.set(71, 'open');
    stack.github.pullRequests.set(72, 'open');
    stack.github.labels.set(72, ['needs-review', 'preview-keep']);
    stack.github.pullRequests.set(73, 'closed');
    stack.github.labels.set(73, ['preview-keep']);
    stack.github.pullRequests.set(74, 'unavailable');
    stack.github.pullRequests.set(75, 'rate-limited');
  });

  it('a dry run says what it would keep and warn, and changes nothing', async () => {
    const before = await stack.client.list(pool);
    const run = await gc(pool, { 'dry-run': 'true' });
    expect(run.exitCode, run.stdout).toBe(0);
    expect(reportOf(run).leaseEnds).toMatchObject([
      { slug: 'kw-warn', pullRequest: 71, action: 'would-warn' },
      { slug: 'kw-keep', pullRequest: 72, action: 'would-keep' },
      { slug: 'kw-down', pullRequest: 74, action: 'unchecked' },
      { slug: 'kw-limited', pullRequest: 75, action: 'unchecked' },
    ]);
    expect(reportOf(run).slots.map((slot) => [slot.slug, slot.outcome])).toEqual([
      ['kw-closed', 'would-reclaim'],
      ['kw-down', 'would-reclaim'],
    ]);
    expect(commentsOn(71)).toEqual([]);
    expect((await stack.client.list(pool)).resources).toEqual(
      before.resources.map((slot) =>
        expect.objectContaining({ holder: slot.holder, leaseVersion: slot.leaseVersion }),
      ),
    );
  });

  it('warns pr-71 once, keeps pr-72 (extended, not reclaimed), reclaims closed pr-73 whatever its labels, and a GitHub failure blocks no reclaim', async () => {
    const run = await gc(pool);
    expect(run.exitCode, run.stdout).toBe(0);
    const report = reportOf(run);

    // The closed pull request's expired lease and the one GitHub could not tell about are reclaimed.
    expect(report.slots.map((slot) => [slot.slug, slot.outcome])).toEqual([
      ['kw-closed', 'reclaimed'],
      ['kw-down', 'reclaimed'],
    ]);
    for (const slug of ['kw-closed', 'kw-down']) {
      expect(await stack.client.find(pool, slug)).toMatchObject({ leaseState: 'available', dirty: false });
      expect(isErased(slotContents(stack.twin, stack.config, slug))).toBe(true);
    }

    // The kept lease: the same lease of pr-72, extended (not reclaimed), its data still there.
    const kept = await stack.client.find(pool, 'kw-keep');
    expect(kept).toMatchObject({ holder: 'pr-72', expired: false, generation: 1, leaseVersion: 2 });
    expect(kept.keptUntil).toBe((kept.lastAcquiredAt ?? 0) + 72 * HOUR);
    expect(slotContents(stack.twin, stack.config, 'kw-keep').rows).toBe(2);
    expect(report.leaseEnds).toMatchObject([
      { slug: 'kw-warn', pullRequest: 71, action: 'warned' },
      {
        slug: 'kw-keep',
        pullRequest: 72,
        action: 'kept',
        endsAt: new Date(kept.leasedUntil ?? 0).toISOString(),
        keptUntil: new Date(kept.keptUntil ?? 0).toISOString(),
      },
      {
        slug: 'kw-down',
        action: 'unchecked',
        problem: 'GitHub did not answer about the pull request',
      },
      { slug: 'kw-limited', action: 'unchecked' },
    ]);
    const [event] = await stack.client.events(pool, 'kw-keep');
    expect(event).toMatchObject({
      event: 'renewed',
      detail: expect.objectContaining({
        extended: true,
        note: 'gc: pull request #72 has the label preview-keep',
      }),
    });

    // One comment: when the slot is taken back and the three ways to keep it.
    expect(commentsOn(71)).toHaveLength(1);
    const warning = commentsOn(71)[0]?.body ?? '';
    expect(warning).toMatch(/^<!-- preview-gc:reclaim-warning:keep-warn:kw-warn:g1:v1 -->\n/);
    expect(warning).toContain('will be taken back at **');
    expect(warning).toMatch(/\(in about (29|30) min\)/);
    expect(warning).toContain('push to this pull request, or re-run its deploy');
    expect(warning).toContain('add the label `preview-keep`');
    for (const number of [72, 73, 74, 75]) expect(commentsOn(number)).toEqual([]);

    // The summary says which lease is kept and until when, and which were neither kept nor warned.
    expect(run.summary).toContain('### Leases near their end');
    expect(run.summary).toMatch(
      /`kw-keep` \| .*pr-72.* \| .* UTC \| 🔒 kept for its label: extended, at most until .* UTC \|/,
    );
    expect(run.summary).toMatch(/`kw-warn` \| .* \| 💬 warned/);
    expect(run.summary).toMatch(/`kw-limited` \| .* \| ⚠️ neither kept nor warned: GitHub did not answer/);
    expect(run.summary).toMatch(/ends in (1 h 59 min|2 h), kept \(at most 2 d 2[23] h more\)/);
    expect(run.stdout).toMatch(
      /::warning title=preview-gc::GitHub could not tell the state of 1 pull request, so their slots were neither kept nor warned about \(expired ones were reclaimed\): .*#74: GitHub answered HTTP 503/,
    );
  });

  it('preview-gc status says which lease is kept and for how long at most, as does status --json', async () => {
    const env = { SEMAPHORE_URL: stack.semaphore.url, SEMAPHORE_TOKEN: TOKENS.semaphore };
    const status = await runCli(['status', '--pool', pool], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(
      /kw-keep +leased +pr-72 +ends in (1 h 59 min|2 h), kept \(at most 2 d 2[23] h more\)/,
    );
    const json = await runCli(['status', '--pool', pool, '--json'], env);
    const row = (JSON.parse(json.stdout) as RunReport).poolAfter?.find((slot) => slot.slug === 'kw-keep');
    expect(row?.keptForMs).toBeGreaterThan(69 * HOUR);
  });

  it('the next run does not warn again, and a kept lease beyond the warning window needs nothing', async () => {
    await advanceClock(stack.semaphore, pool, 10 * MINUTE);
    // A dry run reads what a run reads: the warning is there already.
    const looked = await gc(pool, { 'dry-run': 'true' });
    expect(reportOf(looked).leaseEnds).toEqual(
      expect.arrayContaining([expect.objectContaining({ slug: 'kw-warn', action: 'warned-before' })]),
    );
    const run = await gc(pool);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(commentsOn(71)).toHaveLength(1);
    expect(reportOf(run).leaseEnds).toEqual(
      expect.arrayContaining([expect.objectContaining({ slug: 'kw-warn', action: 'warned-before' })]),
    );
    // kw-keep ends in 1 h 50 min, beyond the warning window: nothing to do yet.
    expect(reportOf(run).leaseEnds?.some((end) => end.slug === 'kw-keep')).toBe(false);
    expect(reportOf(run).slots).toEqual([]);
  });

  it('once the label is gone the kept lease is warned about like any other, and then reclaimed', async () => {
    stack.github.labels.set(72, []);
    await advanceClock(stack.semaphore, pool, HOUR + 20 * MINUTE);
    const warned = await gc(pool);
    expect(warned.exitCode, warned.stdout).toBe(0);
    expect(commentsOn(72)).toHaveLength(1);
    expect(commentsOn(72)[0]?.body).toMatch(/^<!-- preview-gc:reclaim-warning:keep-warn:kw-keep:g1:v2 -->/);

    await advanceClock(stack.semaphore, pool, HOUR);
    const reclaimed = await gc(pool);
    expect(reclaimed.exitCode, reclaimed.stdout).toBe(0);
    expect(reportOf(reclaimed).slots).toEqual(
      expect.arrayContaining([expect.objectContaining({ slug: 'kw-keep', outcome: 'reclaimed' })]),
    );
  });
});

describe('a kept lease ends at keep-max-hours', () => {
  const pool = 'keep-cap';

  it('is extended up to the cap, its pull request is told the keep ends, and past the cap it is reclaimed', async () => {
    await leasedSlots(pool, { 'cap-1': ['pr-76', HOUR] });
    stack.github.pullRequests.set(76, 'open');
    stack.github.labels.set(76, ['preview-keep']);
    await advanceClock(stack.semaphore, pool, 2 * HOUR);

    // Two hours after the lease began, with a cap of three: kept to the cap, an hour from now.
    const capped = await gc(pool, { 'keep-max-hours': '3' });
    expect(capped.exitCode, capped.stdout).toBe(0);
    const slot = await stack.client.find(pool, 'cap-1');
    expect(slot).toMatchObject({ holder: 'pr-76', expired: false, leaseVersion: 2 });
    expect(slot.leasedUntil).toBe((slot.lastAcquiredAt ?? 0) + 3 * HOUR);
    expect(reportOf(capped).slots).toEqual([]);

    // The next run finds the end at the cap within the warning window: one warning, that the keep ends.
    await advanceClock(stack.semaphore, pool, 10 * MINUTE);
    const told = await gc(pool, { 'keep-max-hours': '3' });
    expect(reportOf(told).leaseEnds).toMatchObject([{ slug: 'cap-1', action: 'warned' }]);
    expect(commentsOn(76)).toHaveLength(1);
    expect(commentsOn(76)[0]?.body).toContain('as long as it may: 3 hours after the lease began');

    // Past the cap the label no longer keeps it: reclaimed.
    await advanceClock(stack.semaphore, pool, HOUR);
    const past = await gc(pool, { 'keep-max-hours': '3' });
    expect(past.exitCode, past.stdout).toBe(0);
    expect(reportOf(past).slots).toMatchObject([{ slug: 'cap-1', reason: 'expired', outcome: 'reclaimed' }]);
    expect(commentsOn(76)).toHaveLength(1);
  });
});

describe('a keep the semaphore fails', () => {
  it.each([
    [
      'answers 500 (it did nothing)',
      { kind: 'answer', status: 500, body: '{"error":{"code":"internal","message":"failed"}}' },
      /^the semaphore refused the keep \(.*\); left as it is this run, the next run tries again$/,
    ],
    [
      'loses its answer after extending (reset)',
      { kind: 'after-forward', answer: { kind: 'reset' } },
      /^the semaphore did not answer the keep \(.*\), so it may or may not have been extended; left as it is this run, the next run tries again$/,
    ],
  ] as const)(
    'that %s leaves the kept slot alone and the run does not fail; the other expired lease is reclaimed',
    async (name, intervention, problem) => {
      const pool = `keep-fault-${name.includes('500') ? '500' : 'reset'}`;
      const number = name.includes('500') ? 78 : 79;
      await leasedSlots(pool, {
        [`${pool}-kept`]: [`pr-${number}`, HOUR],
        [`${pool}-gone`]: ['pr-80', HOUR],
      });
      stack.github.pullRequests.set(number, 'open');
      stack.github.labels.set(number, ['preview-keep']);
      stack.github.pullRequests.set(80, 'open');
      await advanceClock(stack.semaphore, pool, 2 * HOUR);
      const proxy = await startSemaphoreProxy(stack.semaphore.url, {
        intervene: (request) => (request.path === '/api/resources/extend' ? intervention : undefined),
      });
      try {
        const run = await gc(pool, { 'semaphore-url': proxy.url });
        expect(run.exitCode, run.stdout).toBe(0);
        const report = reportOf(run);
        expect(report.leaseEnds).toMatchObject([
          { slug: `${pool}-kept`, action: 'keep-failed', problem: expect.stringMatching(problem) },
        ]);
        expect(report.slots).toMatchObject([{ slug: `${pool}-gone`, outcome: 'reclaimed' }]);
        expect(run.summary).toMatch(new RegExp(`\`${pool}-kept\` \\| .* \\| ⚠️ not kept: `));
        // The pull request's data is still there, its lease still its own.
        expect(await stack.client.find(pool, `${pool}-kept`)).toMatchObject({ holder: `pr-${number}` });
        expect(slotContents(stack.twin, stack.config, `${pool}-kept`).rows).toBe(2);
      } finally {
        await proxy.close();
      }
    },
  );
});

describe('a warning GitHub refuses to post', () => {
  it('is reported, and tried again by the next run', async () => {
    const pool = 'keep-refused';
    await leasedSlots(pool, { 'ref-1': ['pr-77', 2 * HOUR + 30 * MINUTE] });
    stack.github.pullRequests.set(77, 'open');
    await advanceClock(stack.semaphore, pool, 2 * HOUR);
    stack.github.refuseComments = true;
    try {
      const refused = await gc(pool);
      expect(refused.exitCode, refused.stdout).toBe(0);
      expect(reportOf(refused).leaseEnds).toMatchObject([
        {
          slug: 'ref-1',
          action: 'warn-failed',
          problem: expect.stringContaining('GitHub answered HTTP 403'),
        },
      ]);
    } finally {
      stack.github.refuseComments = false;
    }
    const posted = await gc(pool);
    expect(reportOf(posted).leaseEnds).toMatchObject([{ slug: 'ref-1', action: 'warned' }]);
    expect(commentsOn(77)).toHaveLength(1);
  });
});

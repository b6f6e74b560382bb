// Spend, end to end: the bundled action's gc against the real semaphore (workerd, its clock moved by the
// test), the Cloudflare twin's GraphQL Analytics API and a GitHub double. A live lease burning $5 an
// hour raises one warning a day and shows in `spend`; a slot parked an hour ago whose alarms still fire
// is reported still running, released dirty and parked again; a token without Account Analytics Read
// costs one warning and nothing else; a quiet pool makes one call to each side.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { type ActionStack, actionInputs, expectNoLeaks, startActionStack } from '../support/action-stack.ts';
import { type SemaphoreProxy, startSemaphoreProxy } from '../support/semaphore-proxy.ts';
import { advanceClock } from '../support/test-clock.ts';
import { isErased, slotContents, slotSeed, tenantData } from '../support/twin-slot.ts';

const TOKENS = {
  semaphore: 'sem-spend-5b2e9d71c3',
  cloudflare: 'cf-spend-a04f7c3e96',
  github: 'ghs-spend-38d1e6f0b2',
};
/** A token with every permission the erase needs, and not Account Analytics Read. */
const NO_ANALYTICS_TOKEN = 'cf-spend-noanalytics-7e21c9';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let stack: ActionStack;
let proxy: SemaphoreProxy;

beforeAll(async () => {
  stack = await startActionStack(TOKENS, { testClock: true });
  proxy = await startSemaphoreProxy(stack.semaphore.url);
  stack.twin.account.addToken(NO_ANALYTICS_TOKEN, {
    status: 'active',
    owner: 'user',
    permissions: [
      'Workers Scripts Write',
      'D1 Write',
      'Workers KV Storage Write',
      'Workers R2 Storage Write',
      'Workers Containers Read',
    ],
  });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await stack?.close();
});

async function gc(pool: string, extra: Record<string, string> = {}): Promise<ActionRunResult> {
  const result = await runAction(
    actionInputs({ ...stack, semaphore: { url: proxy.url, token: TOKENS.semaphore } }, pool, {
      command: 'gc',
      'github-token': TOKENS.github,
      ...extra,
    }),
    { env: { GITHUB_API_URL: stack.github.url } },
  );
  expectNoLeaks(result, [...Object.values(TOKENS), NO_ANALYTICS_TOKEN]);
  return result;
}

const reportOf = (result: ActionRunResult): RunReport => JSON.parse(result.outputs.report ?? '{}');
const spendOf = (result: ActionRunResult, slug: string) =>
  (JSON.parse(result.outputs.spend ?? '[]') as { slot: string }[]).find((entry) => entry.slot === slug) as
    | Record<string, unknown>
    | undefined;
/** The warning annotations of a run, as the runner reads them from the log. */
const warnings = (result: ActionRunResult) =>
  result.stdout.split('\n').filter((line) => line.startsWith('::warning'));

/** The Durable Object namespace of a slot's Worker, as the twin lists it now. */
function namespaceOf(slug: string): string {
  const namespace = stack.twin
    .state()
    .durableObjectNamespaces.find((candidate) => candidate.script === `rel-${slug}`);
  if (namespace === undefined) throw new Error(`rel-${slug} has no Durable Object namespace`);
  return namespace.id;
}

/** The pool's clock: the semaphore's, which the listing carries and the read's hour ends at. */
async function poolNow(pool: string): Promise<number> {
  return (await stack.client.list(pool)).now;
}

describe('spend, end to end', () => {
  it('a live lease burning $5/h raises one warning naming it, once a day, and shows in the spend output', async () => {
    const pool = 'spend-live';
    stack.twin.seed(slotSeed(stack.config, ['sl-1', 'sl-2']));
    for (const slug of ['sl-1', 'sl-2']) await stack.client.add({ type: pool, slug });
    await stack.client.acquireSpecific({ type: pool, slug: 'sl-2', holder: 'pr-1601', leaseMs: 2 * DAY });
    stack.github.pullRequests.set(1601, 'open');
    const now = await poolNow(pool);
    // Some 870 objects woken by alarms, each active all the time: 399,360 GB-s and 312,000 alarms an hour.
    stack.twin.account.analytics.add({
      script: 'rel-sl-2',
      namespaceId: namespaceOf('sl-2'),
      from: now - 2 * HOUR,
      until: now + 2 * DAY,
      perMinute: { alarms: 5_200, activeSeconds: 52_000 },
    });

    const first = await gc(pool);
    expect(first.exitCode, first.stdout).toBe(0);
    expect(warnings(first)).toEqual([
      "::warning title=preview-gc%3A sl-2 spends $5.04/h::sl-2, leased by pr-1601 (https://github.com/acme/shop/pull/1601), spends about $5.04/h (alert above $1.00/h): Durable Object class Room of rel-sl-2, woken by alarms (312,000 alarms in the hour, 867 object-hours active). Its lease is live, so gc leaves it alone. If the preview is not needed: `preview-gc release --pool spend-live --slot sl-2 --force --holder pr-1601 --generation 1 --note 'spend alert'` (it asks you to type the slot's name) ends the lease only while pr-1601 still holds it at generation 1 (the console's Force-release does the same); the next gc then parks it. This alert comes once a day per lease.",
    ]);
    expect(spendOf(first, 'sl-2')).toMatchObject({
      holder: 'pr-1601',
      state: 'leased',
      usdPerHour: expect.closeTo(5.04, 2),
      alarms: 312_000,
      objectRequests: 312_000,
      activeSeconds: 3_120_000,
      overAlert: true,
      alerted: true,
    });
    expect(spendOf(first, 'sl-1')).toMatchObject({ state: 'free', usdPerHour: 0, alerted: false });
    expect(first.summary).toContain('| $5.04/h 🔥 above the alert |');

    const second = await gc(pool);
    expect(warnings(second)).toEqual([]);
    expect(spendOf(second, 'sl-2')).toMatchObject({ overAlert: true, alerted: false });
    // Automation never touches the live lease.
    expect(await stack.client.find(pool, 'sl-2')).toMatchObject({ holder: 'pr-1601', generation: 1 });
  });

  it('a slot parked an hour ago whose alarms still fire is reported still running, released dirty and parked again', async () => {
    const pool = 'spend-parked';
    stack.twin.seed(slotSeed(stack.config, ['sp-1']));
    await stack.client.add({ type: pool, slug: 'sp-1', dirty: true });
    const namespaceId = namespaceOf('sp-1');
    const parked = await gc(pool);
    expect(reportOf(parked).slots).toMatchObject([{ slug: 'sp-1', outcome: 'reclaimed' }]);
    expect(isErased(slotContents(stack.twin, stack.config, 'sp-1'))).toBe(true);
    const parkedAt = (await stack.client.find(pool, 'sp-1')).lastReleasedAt ?? 0;

    // An hour later, its objects still wake themselves: 6 alarms a minute, one object active throughout.
    await advanceClock(stack.semaphore, pool, HOUR);
    stack.twin.account.analytics.add({
      script: 'rel-sp-1',
      namespaceId,
      from: parkedAt,
      until: parkedAt + DAY,
      perMinute: { alarms: 6, activeSeconds: 60 },
    });
    proxy.requests.length = 0;
    const running = await gc(pool);

    expect(running.exitCode, running.stdout).toBe(0);
    const [slot] = reportOf(running).slots;
    expect(slot).toMatchObject({ slug: 'sp-1', reason: 'parked', outcome: 'still-running' });
    expect(slot?.problem).toMatch(
      /^\d+ alarms, [\d.]+ object-hours active after its last park; parked again and released dirty, the next sweep reads whether it stopped$/,
    );
    // Parked again: the erase ran, compute first, under gc's lease, and the release kept it dirty.
    expect(slot?.erase?.steps[0]?.kind).toBe('compute');
    expect(running.outputs.reclaimed).toBe('0');
    expect(running.summary).toContain('⚠️ still running');
    expect(spendOf(running, 'sp-1')).toMatchObject({ stillRunning: true, state: 'free' });
    expect(proxy.requests.map((request) => `${request.method} ${request.path.replace(/\?.*/, '')}`)).toEqual([
      'GET /api/resources',
      'POST /api/resources/activity',
      'POST /api/resources/acquire-specific',
      ...Array(3).fill('POST /api/resources/renew'),
      'POST /api/resources/release',
      'GET /api/resources',
    ]);
    const after = await stack.client.find(pool, 'sp-1');
    expect(after).toMatchObject({ dirty: true, eraseFailures: 1, lastHolder: 'gc' });
    expect(after.lastEraseFailure?.message).toMatch(/^still running after its park: \d+ alarms/);
    const events = (await stack.client.events(pool, 'sp-1', 6)).filter((event) => event.event !== 'renewed');
    // No mark-dirty: gc's acquire, which the semaphore grants only while the slot is free, makes it dirty.
    expect(events.slice(0, 2).map((event) => event.event)).toEqual(['released', 'acquired']);
    expect(events.map((event) => event.event)).not.toContain('marked-dirty');
    expect(events[0]?.detail).toMatchObject({ clean: false, eraseFailure: { step: 'compute' } });

    // The alarms stop; the next sweep's hour shows nothing after this park, and the slot is clean again.
    stack.twin.account.analytics.clear();
    await advanceClock(stack.semaphore, pool, HOUR);
    const stopped = await gc(pool);
    expect(reportOf(stopped).slots).toMatchObject([{ slug: 'sp-1', reason: 'dirty', outcome: 'reclaimed' }]);
    expect(await stack.client.find(pool, 'sp-1')).toMatchObject({ dirty: false, eraseFailures: 0 });
  });

  it('a live lease above the park limit in two runs in a row is parked: compute stopped, data and lease kept, its comment says so', async () => {
    const pool = 'spend-park';
    const slugs = ['sk-1', 'sk-2', 'sk-3'];
    stack.twin.seed(slotSeed(stack.config, slugs));
    for (const [index, slug] of slugs.entries()) {
      await stack.client.add({ type: pool, slug });
      await stack.client.acquireSpecific({
        type: pool,
        slug,
        holder: `pr-170${index + 1}`,
        leaseMs: 2 * DAY,
      });
      stack.github.pullRequests.set(1701 + index, 'open');
    }
    const now = await poolNow(pool);
    const runaway = { alarms: 5_200, activeSeconds: 52_000 };
    // sk-1 runs away for days; sk-2 spends cents; sk-3 runs away in the first read's hour only.
    const spans = [
      { slug: 'sk-1', until: now + 2 * DAY, perMinute: runaway },
      { slug: 'sk-2', until: now + 2 * DAY, perMinute: { alarms: 6, activeSeconds: 60 } },
      { slug: 'sk-3', until: now, perMinute: runaway },
    ];
    for (const span of spans)
      stack.twin.account.analytics.add({
        script: `rel-${span.slug}`,
        namespaceId: namespaceOf(span.slug),
        from: now - 2 * HOUR,
        until: span.until,
        perMinute: span.perMinute,
      });
    const park = { 'spend-park-usd-per-hour': '2' };
    const deployed = (slug: string) =>
      stack.twin.state().workers.find((worker) => worker.name === `rel-${slug}`);

    // One read above the limit: nothing is parked.
    const first = await gc(pool, park);
    expect(first.exitCode, first.stdout).toBe(0);
    expect(reportOf(first).spendParks).toBeUndefined();
    for (const slug of slugs) expect(deployed(slug)?.mainModule).not.toBe('parked.js');

    await advanceClock(stack.semaphore, pool, HOUR);
    const second = await gc(pool, park);

    expect(second.exitCode, second.stdout).toBe(0);
    expect(reportOf(second).spendParks).toMatchObject([
      {
        slug: 'sk-1',
        holder: 'pr-1701',
        stopped: true,
        comment: 'written',
        usdPerHour: expect.closeTo(5.04, 2),
      },
    ]);
    // Compute stopped: the parked Worker is deployed; data kept: its class is live, its objects remain.
    expect(deployed('sk-1')).toMatchObject({
      mainModule: 'parked.js',
      liveClasses: ['Room'],
      tombstonedClasses: [],
    });
    const namespace = stack.twin.state().durableObjectNamespaces.find((ns) => ns.id === namespaceOf('sk-1'));
    expect(namespace?.objects).toBe(1);
    // The lease stays with its pull request, marked parked for spend.
    const slot = await stack.client.find(pool, 'sk-1');
    expect(slot).toMatchObject({ holder: 'pr-1701', generation: 1, leaseState: 'leased' });
    expect(slot.activity?.parkedForSpend).toMatchObject({
      generation: 1,
      usdPerHour: expect.closeTo(5.04, 2),
    });
    const [comment] = stack.github.comments.get(1701) ?? [];
    expect(comment?.body).toContain('was **parked for spend**: its compute cost about **$5.04 an hour**');
    expect(comment?.body).toContain('**the next deploy brings it back**');
    expect(second.summary).toContain('### Parked for spend');
    // Below the limit, or above it in one read only: untouched, no comment.
    for (const slug of ['sk-2', 'sk-3']) {
      expect(deployed(slug)?.mainModule).not.toBe('parked.js');
      expect((await stack.client.find(pool, slug)).activity?.parkedForSpend).toBeUndefined();
    }
    expect(stack.github.comments.get(1702)).toBeUndefined();
    expect(stack.github.comments.get(1703)).toBeUndefined();
  });

  it("a live lease's cost grows with each gc run's read, and the run that ends the lease says what it cost", async () => {
    const pool = 'spend-cost';
    stack.twin.seed(slotSeed(stack.config, ['sc-1']));
    await stack.client.add({ type: pool, slug: 'sc-1' });
    await stack.client.acquireSpecific({ type: pool, slug: 'sc-1', holder: 'pr-1801', leaseMs: 3 * DAY });
    stack.github.pullRequests.set(1801, 'open');
    const now = await poolNow(pool);
    stack.twin.account.analytics.add({
      script: 'rel-sc-1',
      namespaceId: namespaceOf('sc-1'),
      from: now - 2 * HOUR,
      until: now + 2 * DAY,
      perMinute: { alarms: 5_200, activeSeconds: 52_000 },
    });
    const cost = async () => (await stack.client.find(pool, 'sc-1')).activity?.leaseCost;

    // The first read's hour is before the lease began: none of it is the lease's.
    await gc(pool);
    expect(await cost()).toBeUndefined();
    await advanceClock(stack.semaphore, pool, HOUR);
    await gc(pool);
    const first = await cost();
    // The part of the hour since the lease began, at $5.04 an hour.
    expect(first?.coveredMs).toBeGreaterThan(0);
    expect(first?.usd).toBeCloseTo((5.04 * (first?.coveredMs ?? 0)) / HOUR, 1);
    await advanceClock(stack.semaphore, pool, HOUR);
    const shown = await gc(pool);
    const second = await cost();
    expect(second?.usd).toBeCloseTo((first?.usd ?? 0) + 5.04, 1);
    expect(second).toMatchObject({ coveredMs: (first?.coveredMs ?? 0) + HOUR, missingMs: 0 });
    // The run's pool table shows the cost as its listing, before this read, had it.
    expect(reportOf(shown).poolAfter?.[0]?.leaseCost).toMatchObject({ usd: first?.usd });

    // The pull request closes: gc takes the slot back and says what the lease cost.
    stack.github.pullRequests.set(1801, 'closed');
    await advanceClock(stack.semaphore, pool, HOUR);
    const ended = await gc(pool);
    expect(reportOf(ended).slots).toMatchObject([
      { slug: 'sc-1', reason: 'closed-pr', leaseCost: { usd: second?.usd } },
    ]);
    expect(ended.summary).toContain('### What the ended leases cost');
    // Two reads an hour apart on the semaphore's test clock, plus the seconds the runs took: just
    // under two hours, or two on a slow machine.
    expect(ended.summary).toMatch(
      /- `sc-1`, held by \[pr-1801\]\([^)]+\)[^:]*: about \$\d+\.\d\d over (?:1 h \d+ min|2 h)\b/,
    );
  });

  it('tells the webhook once per subject a day, and a webhook that fails never fails gc', async () => {
    const received: { text: string }[] = [];
    let status = 200;
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push(JSON.parse(body));
        response.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const webhook = { 'webhook-url': `http://127.0.0.1:${port}/hooks/secret-path-4b1d` };
    try {
      const pool = 'spend-webhook';
      stack.twin.seed(slotSeed(stack.config, ['sw-1']));
      await stack.client.add({ type: pool, slug: 'sw-1' });
      await stack.client.acquireSpecific({ type: pool, slug: 'sw-1', holder: 'pr-1901', leaseMs: 3 * DAY });
      stack.github.pullRequests.set(1901, 'open');
      const now = await poolNow(pool);
      stack.twin.account.analytics.add({
        script: 'rel-sw-1',
        namespaceId: namespaceOf('sw-1'),
        from: now - 2 * HOUR,
        until: now + 3 * DAY,
        perMinute: { alarms: 5_200, activeSeconds: 52_000 },
      });

      const first = await gc(pool, webhook);
      expect(first.exitCode, first.stdout).toBe(0);
      expect(received.map((notice) => notice.text)).toEqual([
        expect.stringMatching(
          /^preview-gc: slot `sw-1` of pool `spend-webhook`, leased by `pr-1901`, spends about \$5\.\d\d\/h/,
        ),
      ]);
      // The same runaway an hour later: not told again the same day.
      await advanceClock(stack.semaphore, pool, HOUR);
      await gc(pool, webhook);
      expect(received).toHaveLength(1);

      // A day later the webhook fails: tried three times, one warning, the run succeeds.
      status = 500;
      await advanceClock(stack.semaphore, pool, DAY);
      const failing = await gc(pool, webhook);
      expect(failing.exitCode, failing.stdout).toBe(0);
      expect(received).toHaveLength(4);
      expect(warnings(failing)).toContain(
        '::warning title=preview-gc::A notice to webhook-url was not delivered (HTTP 500, after 3 tries); the run is not affected.',
      );
      // The URL is a secret: masked for the runner, and nowhere else in the run's output.
      const lines = failing.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::'));
      expect(lines.filter((line) => line.includes('secret-path-4b1d'))).toEqual([]);
      expect(failing.stdout).toContain(`::add-mask::${webhook['webhook-url']}`);
      expect(failing.summary).not.toContain('secret-path-4b1d');
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('a token without Account Analytics Read costs one warning, and the sweep reclaims as it would', async () => {
    const pool = 'spend-refused';
    stack.twin.seed(slotSeed(stack.config, ['sr-1']));
    await stack.client.add({ type: pool, slug: 'sr-1', dirty: true });
    stack.twin.seed(tenantData(stack.config, 'sr-1', 'tenant'));

    const run = await gc(pool, { 'cloudflare-api-token': NO_ANALYTICS_TOKEN });

    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.outputs).toMatchObject({ reclaimed: '1', failed: '0', spend: '[]' });
    expect(warnings(run)).toEqual([
      "::warning title=preview-gc::The spend read (Cloudflare's GraphQL Analytics API) did not answer: HTTP 403: not authorized for that account (authz). Nothing else is affected: the sweep went on without it; give the Cloudflare API token 'Account Analytics: Read' (README, step 2) to see what each slot costs.",
    ]);
    expect(isErased(slotContents(stack.twin, stack.config, 'sr-1'))).toBe(true);
  });

  it('a quiet pool makes exactly one semaphore call and one Cloudflare call, the analytics read', async () => {
    const pool = 'spend-quiet';
    stack.twin.seed(slotSeed(stack.config, ['sq-1', 'sq-2'], ['sq-1', 'sq-2']));
    for (const slug of ['sq-1', 'sq-2']) await stack.client.add({ type: pool, slug });
    proxy.requests.length = 0;
    stack.twin.resetRequests();

    const run = await gc(pool);

    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.summary.split('\n')[0]).toBe('## ✅ preview-gc gc on pool `spend-quiet`: nothing to reclaim');
    expect(proxy.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `GET /api/resources?type=${pool}`,
    ]);
    expect(stack.twin.requests().map((request) => request.route)).toEqual(['POST /graphql']);
    expect(reportOf(run).cloudflare).toMatchObject({ requests: 1, byKind: { 'analytics.graphql': 1 } });
  });
});

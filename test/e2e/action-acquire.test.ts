// `command: acquire` through the bundled action (dist/index.js as the runner starts it), against the
// real semaphore (workerd) and the Cloudflare twin: one slot per pull request, many pull requests
// racing, erase-on-acquire of a dirty and of an expired slot, an erase that fails, a slot that keeps
// failing (avoided and flagged until an erase works), a closed pull request, the sticky comment and
// waiting for a slot. GitHub is a loopback double that the real Octokit talks to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import type { Slot } from '../../src/semaphore/protocol.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { type ActionStack, actionInputs, expectNoLeaks, startActionStack } from '../support/action-stack.ts';
import { everyKind } from '../support/every-kind.ts';
import { advanceClock } from '../support/test-clock.ts';
import { isErased, requestsTouching, slotContents, slotSeed, tenantData } from '../support/twin-slot.ts';
import { until } from '../support/until.ts';

const TOKENS = {
  semaphore: 'sem-acquire-3e81c0f5a9',
  cloudflare: 'cf-acquire-92b4d17e6c',
  github: 'ghs-acquire-5d0a7c3f18',
};
const HOUR = 3_600_000;

let stack: ActionStack;

beforeAll(async () => {
  stack = await startActionStack(TOKENS, { testClock: true });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

function inputs(pool: string, extra: Record<string, string> = {}): Record<string, string> {
  return actionInputs(stack, pool, { command: 'acquire', ...extra });
}

/** The action for pull request `pr`; with GitHub when `withGitHub`. */
async function acquire(
  pool: string,
  pr: number,
  extra: Record<string, string> = {},
  withGitHub = false,
): Promise<ActionRunResult> {
  const result = await runAction(
    inputs(pool, {
      'pull-request': String(pr),
      ...(withGitHub ? { 'github-token': TOKENS.github } : {}),
      ...extra,
    }),
    withGitHub ? { env: { GITHUB_API_URL: stack.github.url } } : {},
  );
  expectNoLeaks(result, Object.values(TOKENS));
  return result;
}

const reportOf = (result: ActionRunResult): RunReport => JSON.parse(result.outputs.report ?? '{}');

/** Adds the slots, each with its resources in the twin (empty unless a tenant moves in). */
async function addSlots(pool: string, slugs: readonly string[]): Promise<void> {
  stack.twin.seed(slotSeed(stack.config, slugs, slugs));
  for (const slug of slugs) await stack.client.add({ type: pool, slug });
}

/** A tenant leases the slot and deploys into it: rows, keys and a Worker with a Durable Object class. */
async function moveIn(pool: string, slug: string, holder: string, leaseMs = HOUR) {
  const lease = await stack.client.acquireSpecific({ type: pool, slug, holder, leaseMs });
  if (lease === null) throw new Error(`${slug} could not be leased`);
  stack.twin.seed(tenantData(stack.config, slug, holder));
  return lease;
}

async function slotOf(pool: string, slug: string): Promise<Slot> {
  return stack.client.find(pool, slug);
}

describe('acquire: one slot per pull request', () => {
  it('gives a second push of the same pull request the same slot, its lease extended', async () => {
    const pool = 'acq-push';
    await addSlots(pool, ['push-1', 'push-2']);

    const first = await acquire(pool, 101, { 'lease-minutes': '120' });
    expect(first.exitCode, first.stdout).toBe(0);
    const slug = first.outputs.slot ?? '';
    expect(['push-1', 'push-2']).toContain(slug);
    // Each name with the id the deploy binds, as the account lists it.
    const state = stack.twin.state();
    const uuid = state.d1.find((db) => db.name === `rel-${slug}-db`)?.uuid;
    const namespaceId = state.kv.find((ns) => ns.title === `rel-${slug}-kv`)?.id;
    expect(uuid).toBeDefined();
    expect(first.outputs).toMatchObject({
      'slot-number': slug.slice(-1),
      'was-dirty': 'false',
      resources: JSON.stringify(
        everyKind({
          workers: [{ name: `rel-${slug}` }],
          d1: [{ name: `rel-${slug}-db`, id: uuid }],
          kv: [{ name: `rel-${slug}-kv`, id: namespaceId }],
          r2: [{ name: `rel-${slug}-files` }],
        }),
      ),
    });
    // A clean slot: no erase, but the credential check, one listing per kind for the ids, the
    // bucket's objects read for what the last tenant may have left (nothing here), and the account's
    // workers.dev subdomain for the preview's url.
    expect(reportOf(first).cloudflare?.requests).toBe(7);
    expect(first.outputs.url).toBe(`https://rel-${slug}.${stack.twin.account.workers.subdomain}.workers.dev`);
    const held = await slotOf(pool, slug);
    expect(first.outputs['lease-expires-at']).toBe(new Date(held.leasedUntil ?? 0).toISOString());
    expect(first.summary.split('\n')[0]).toBe(
      `## ✅ preview-gc acquire on pool \`${pool}\`: pull request #101 has \`${slug}\` until ${first.outputs['lease-expires-at']?.slice(0, 10)} ${first.outputs['lease-expires-at']?.slice(11, 16)} UTC, a clean slot`,
    );

    // The second push comes as the pull_request event; the number is the event's.
    await advanceClock(stack.semaphore, pool, 60_000);
    const second = await runAction(inputs(pool, { 'lease-minutes': '120' }), {
      event: { name: 'pull_request', payload: { action: 'synchronize', pull_request: { number: 101 } } },
    });
    expect(second.exitCode, second.stdout).toBe(0);
    expect(second.outputs.slot).toBe(slug);
    expect(second.outputs['was-dirty']).toBe('false');
    expect(Date.parse(second.outputs['lease-expires-at'] ?? '')).toBeGreaterThan(
      Date.parse(first.outputs['lease-expires-at'] ?? ''),
    );
    expect(reportOf(second).acquired).toMatchObject({ reused: true, generation: held.generation });
    expect(second.summary.split('\n')[0]).toMatch(/, its lease extended$/);

    const listing = await stack.client.list(pool);
    expect(listing.resources.filter((slot) => slot.holder === 'pr-101')).toHaveLength(1);
    expect(await slotOf(pool, slug)).toMatchObject({ generation: held.generation, holder: 'pr-101' });
  });

  it('leases for three hours by default, and the next acquire of the pull request (its e2e job) renews them', async () => {
    const pool = 'acq-ttl';
    await addSlots(pool, ['ttl-1']);
    const before = Date.now();
    const deploy = await acquire(pool, 111);
    const after = Date.now();
    expect(deploy.exitCode, deploy.stdout).toBe(0);
    const ends = Date.parse(deploy.outputs['lease-expires-at'] ?? '');
    expect(ends).toBeGreaterThanOrEqual(before + 3 * HOUR - 1_000);
    expect(ends).toBeLessThanOrEqual(after + 3 * HOUR + 1_000);

    // Two hours later the e2e job acquires again: the same slot, three hours from then.
    await advanceClock(stack.semaphore, pool, 2 * HOUR);
    const e2e = await acquire(pool, 111);
    expect(e2e.exitCode, e2e.stdout).toBe(0);
    expect(e2e.outputs.slot).toBe('ttl-1');
    const renewed = Date.parse(e2e.outputs['lease-expires-at'] ?? '');
    expect(renewed - ends).toBeGreaterThanOrEqual(2 * HOUR - 1_000);
    expect(renewed - ends).toBeLessThanOrEqual(2 * HOUR + (Date.now() - before) + 1_000);
  });

  it('ten pull requests racing for three slots: three leases, seven clear failures, no slot held twice', async () => {
    const pool = 'acq-race';
    await addSlots(pool, ['race-1', 'race-2', 'race-3']);
    const numbers = Array.from({ length: 10 }, (_, i) => 200 + i);

    const results = await Promise.all(numbers.map((pr) => acquire(pool, pr)));

    const won = results.filter((result) => result.exitCode === 0);
    const lost = results.filter((result) => result.exitCode !== 0);
    expect(won).toHaveLength(3);
    expect(lost).toHaveLength(7);
    expect(new Set(won.map((result) => result.outputs.slot))).toEqual(
      new Set(['race-1', 'race-2', 'race-3']),
    );
    for (const result of lost) {
      expect(result.outputs.slot).toBeUndefined();
      expect(result.stdout).toMatch(
        /::error::No slot of pool acq-race could be had for pr-2\d\d: 3 of 3 are held/,
      );
      expect(result.summary).toContain('### Pool after the run');
    }
    const listing = await stack.client.list(pool);
    const holders = listing.resources.map((slot) => slot.holder);
    expect(new Set(holders).size).toBe(3);
    for (const slug of ['race-1', 'race-2', 'race-3']) {
      const acquisitions = (await stack.client.events(pool, slug)).filter(
        (event) => event.event === 'acquired',
      );
      expect(acquisitions).toHaveLength(1);
    }
  }, 120_000);
});

describe('acquire: erase on acquire', () => {
  it('erases a slot released dirty before the deploy gets it; a later push keeps the new tenant data', async () => {
    const pool = 'acq-dirty';
    await addSlots(pool, ['dirty-1']);
    const old = await moveIn(pool, 'dirty-1', 'pr-7');
    await stack.client.release({ type: pool, slug: 'dirty-1', leaseId: old.leaseId });
    expect(isErased(slotContents(stack.twin, stack.config, 'dirty-1'))).toBe(false);

    const run = await acquire(pool, 8);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.outputs).toMatchObject({ slot: 'dirty-1', 'was-dirty': 'true' });
    expect(isErased(slotContents(stack.twin, stack.config, 'dirty-1'))).toBe(true);
    expect(reportOf(run).slots).toMatchObject([
      { slug: 'dirty-1', outcome: 'erased', reason: 'dirty', previousHolder: 'pr-7' },
    ]);
    expect(run.summary.split('\n')[0]).toMatch(/has `dirty-1` until .*, erased first$/);

    // pr-8 deploys; its next push must not erase its own data.
    stack.twin.seed(tenantData(stack.config, 'dirty-1', 'pr-8'));
    const again = await acquire(pool, 8);
    expect(again.exitCode, again.stdout).toBe(0);
    expect(again.outputs).toMatchObject({ slot: 'dirty-1', 'was-dirty': 'false' });
    expect(slotContents(stack.twin, stack.config, 'dirty-1').rows).toBe(2);
  });

  it("says whose data the slot held: none of gc's, and no '–' for a slot that was added dirty", async () => {
    const pool = 'acq-whose';
    stack.twin.seed(slotSeed(stack.config, ['whose-1', 'whose-2'], []));
    await stack.client.add({ type: pool, slug: 'whose-1', dirty: true });
    await stack.client.add({ type: pool, slug: 'whose-2' });
    // gc's erase of whose-2 stopped half-way: it released the slot dirty.
    const gcLease = await stack.client.acquireSpecific({
      type: pool,
      slug: 'whose-2',
      holder: 'gc',
      leaseMs: HOUR,
    });
    await stack.client.release({ type: pool, slug: 'whose-2', leaseId: gcLease?.leaseId ?? '' });

    const adopted = await acquire(pool, 120);
    expect(adopted.outputs.slot).toBe('whose-1');
    expect(adopted.summary).toContain(
      '| Erased first (`was-dirty`) | yes: it held data from before it joined the pool, or from whoever marked it dirty |',
    );
    const afterGc = await acquire(pool, 121);
    expect(afterGc.outputs.slot).toBe('whose-2');
    expect(afterGc.summary).toContain(
      '| Erased first (`was-dirty`) | yes: it held what an earlier erase (by gc) had not finished removing |',
    );
    expect(afterGc.summary).not.toContain('the data of gc');
  });

  it('erases a slot taken over from an expired lease', async () => {
    const pool = 'acq-expired';
    await addSlots(pool, ['exp-1']);
    await moveIn(pool, 'exp-1', 'pr-20', 60_000);
    await advanceClock(stack.semaphore, pool, 2 * 60_000);

    const run = await acquire(pool, 21);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.outputs).toMatchObject({ slot: 'exp-1', 'was-dirty': 'true', expired: '1' });
    expect(reportOf(run).slots).toMatchObject([
      { outcome: 'erased', reason: 'expired', previousHolder: 'pr-20' },
    ]);
    const contents = slotContents(stack.twin, stack.config, 'exp-1');
    expect(contents).toMatchObject({ rows: 0, keys: 0, parked: true });
    expect(await slotOf(pool, 'exp-1')).toMatchObject({ holder: 'pr-21', leaseState: 'leased' });
  });

  it('an erase that fails releases the slot dirty and fails the step, saying why', async () => {
    const pool = 'acq-fail';
    await addSlots(pool, ['fail-1']);
    const old = await moveIn(pool, 'fail-1', 'pr-30');
    await stack.client.release({ type: pool, slug: 'fail-1', leaseId: old.leaseId });
    const database = stack.twin.state().d1.find((db) => db.name === 'rel-fail-1-db');
    stack.twin.faults.add({ pathPattern: `/d1/database/${database?.uuid}/`, status: 500 });
    try {
      const run = await acquire(pool, 31);
      expect(run.exitCode).toBe(1);
      expect(run.outputs.slot).toBeUndefined();
      expect(run.stdout).toMatch(
        /::error::No slot was handed over: fail-1 the erase failed, so the slot was released dirty: d1 'rel-fail-1-db': .*HTTP 500/,
      );
      expect(run.summary).toContain('❌ erase failed');
      expect(await slotOf(pool, 'fail-1')).toMatchObject({
        leaseState: 'available',
        dirty: true,
        lastHolder: 'pr-31',
        eraseFailures: 1,
        lastEraseFailure: expect.objectContaining({ step: "d1 'rel-fail-1-db'" }),
      });
    } finally {
      stack.twin.faults.clear();
    }
  });
});

describe('acquire: Cloudflare credentials, checked once before an erase', () => {
  const OTHER_ACCOUNT = 'f'.repeat(32);
  beforeAll(() => {
    stack.twin.account.addToken('acq-other-account', {
      status: 'active',
      owner: 'user',
      accountId: OTHER_ACCOUNT,
    });
    stack.twin.account.addToken('acq-without-d1', {
      status: 'active',
      owner: 'user',
      permissions: ['Workers Scripts Write', 'Workers KV Storage Write', 'Workers R2 Storage Write'],
    });
  });

  const count = (text: string, part: string) => text.split(part).length - 1;

  it.each([
    [
      'a token Cloudflare never issued',
      'a-token-cloudflare-never-issued',
      'The Cloudflare API token is invalid or expired: Cloudflare does not accept it',
    ],
    [
      'a token of another account',
      'acq-other-account',
      `The Cloudflare API token cannot access account ${'023e105f4ecef8ad9ca31a8372d0c353'}`,
    ],
    ['a token without D1', 'acq-without-d1', 'The Cloudflare API token lacks D1: Edit for D1 databases'],
  ])(
    '%s on a dirty slot: one answer with the fix, the slot untouched and back in the pool',
    async (_, token, message) => {
      // A pool and a slot of its own for each token (the twin holds every pool's resources).
      const pool = `acq-cred-${token.slice(0, 12).replace(/[^a-z]/g, '')}`;
      const slug = `${pool.slice(4)}-1`;
      await addSlots(pool, [slug]);
      const old = await moveIn(pool, slug, 'pr-80');
      await stack.client.release({ type: pool, slug, leaseId: old.leaseId });
      const before = slotContents(stack.twin, stack.config, slug);
      stack.twin.resetRequests();

      const run = await acquire(pool, 81, { 'cloudflare-api-token': token });
      expect(run.exitCode).toBe(1);
      expect(run.outputs.slot).toBeUndefined();
      expect(count(run.stdout, message), run.stdout).toBe(1);
      expect(run.stdout).toContain(
        `so ${slug} was not erased and no slot was handed over (the slot went back to the pool dirty, untouched). Fix: `,
      );
      expect(run.stdout).toContain('then re-run the deploy job.');
      expect(run.stdout).not.toContain('try another slot');
      expect(run.stdout).not.toContain('401');
      expect(count(run.summary, message)).toBe(1);
      // Nothing of the slot was asked for, let alone changed; the token's fault is not the slot's.
      expect(requestsTouching(stack.twin, stack.config, slug)).toEqual([]);
      expect(slotContents(stack.twin, stack.config, slug)).toEqual(before);
      expect(await slotOf(pool, slug)).toMatchObject({
        leaseState: 'available',
        dirty: true,
        eraseFailures: 0,
      });
    },
  );

  it('says a wrong token once for a clean slot too, whose deploy needs the ids it cannot read; the pull request keeps the slot', async () => {
    const pool = 'acq-cred-clean';
    await addSlots(pool, ['clean-1']);
    stack.twin.resetRequests();
    const run = await acquire(pool, 82, { 'cloudflare-api-token': 'a-token-cloudflare-never-issued' });
    expect(run.exitCode, run.stdout).toBe(1);
    expect(run.outputs.slot).toBeUndefined();
    const message =
      "The Cloudflare API token is invalid or expired: Cloudflare does not accept it, so the slot's resources could not be read for its deploy. Fix: ";
    expect(count(run.stdout, message), run.stdout).toBe(1);
    expect(run.stdout).toContain(
      'then re-run the deploy job. pr-82 keeps clean-1 meanwhile (its lease stands).',
    );
    expect(run.stdout).not.toContain('try another slot');
    // The token check is the one call: nothing of the slot was asked for.
    expect(requestsTouching(stack.twin, stack.config, 'clean-1')).toEqual([]);
    expect(await slotOf(pool, 'clean-1')).toMatchObject({ leaseState: 'leased', holder: 'pr-82' });
  });
});

describe('acquire: a slot that cannot be erased', () => {
  it('never hands over a slot whose names the config refuses, even a clean one', async () => {
    const pool = 'acq-refused';
    // rel-prod-1 holds the protected word prod: no call may touch it, and no deploy may use it.
    await stack.client.add({ type: pool, slug: 'prod-1' });
    const run = await acquire(pool, 90);
    expect(run.exitCode).toBe(1);
    expect(run.outputs.slot).toBeUndefined();
    expect(run.stdout).toMatch(
      /::error::No slot was handed over: prod-1 .*refused before any call: .*contains the protected word 'prod'/,
    );
    expect(await slotOf(pool, 'prod-1')).toMatchObject({ leaseState: 'available', eraseFailures: 1 });
  });

  it('after two failed erases is avoided by the next acquire and flagged in every summary until an erase works', async () => {
    const pool = 'acq-repair';
    await addSlots(pool, ['rep-1', 'rep-2']);
    const away = await moveIn(pool, 'rep-2', 'pr-40');
    const dirty = await moveIn(pool, 'rep-1', 'pr-39');
    await stack.client.release({ type: pool, slug: 'rep-1', leaseId: dirty.leaseId });
    // rep-1's KV namespace was deleted by hand: every erase of rep-1 fails on it.
    const kvTitle = 'rel-rep-1-kv';
    stack.twin.account.kv.delete(stack.twin.state().kv.find((ns) => ns.title === kvTitle)?.id ?? '');

    for (const pr of [41, 42]) {
      const failed = await acquire(pool, pr);
      expect(failed.exitCode).toBe(1);
      expect(failed.stdout).toContain(`kv '${kvTitle}'`);
    }
    const broken = await slotOf(pool, 'rep-1');
    expect(broken).toMatchObject({ eraseFailures: 2, dirty: true, leaseState: 'available' });

    // Only rep-1 is free: it is not handed out, and the failure says why.
    const refused = await acquire(pool, 43);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toContain(
      'rep-1 needs repair (the erase failed twice in a row) and is not handed to deploys',
    );
    expect(refused.summary).toContain('### Needs repair');
    expect(refused.summary).toMatch(
      /\*\*`rep-1` needs repair:\*\* its erase failed 2 times in a row\. Last at .*, step `kv 'rel-rep-1-kv'`: .*Fix: Create the resource/,
    );

    // Once another slot is free, acquire takes it, and the summary still flags rep-1.
    await stack.client.release({ type: pool, slug: 'rep-2', leaseId: away.leaseId });
    const avoided = await acquire(pool, 44);
    expect(avoided.exitCode, avoided.stdout).toBe(0);
    expect(avoided.outputs.slot).toBe('rep-2');
    expect(avoided.summary).toContain('**`rep-1` needs repair:**');

    // status flags it too; an erase that works (the namespace is back, gc erases) clears the mark.
    const status = await runAction(inputs(pool, { command: 'status' }));
    expect(status.summary).toContain('**`rep-1` needs repair:**');
    stack.twin.seed({ kv: [{ title: kvTitle, keys: {} }] });
    const gc = await runAction(inputs(pool, { command: 'gc' }));
    expect(gc.exitCode, gc.stdout).toBe(0);
    expect(reportOf(gc).slots).toMatchObject([{ slug: 'rep-1', outcome: 'reclaimed' }]);
    expect(await slotOf(pool, 'rep-1')).toMatchObject({
      eraseFailures: 0,
      lastEraseFailure: null,
      dirty: false,
    });
    expect(gc.summary).not.toContain('needs repair');
  }, 120_000);
});

describe('acquire with GitHub', () => {
  it('refuses a pull request that is already closed', async () => {
    const pool = 'acq-closed';
    await addSlots(pool, ['closed-1']);
    stack.github.pullRequests.set(50, 'merged');
    const run = await acquire(pool, 50, {}, true);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain('::error::Pull request #50 is merged: no slot was acquired');
    expect(await slotOf(pool, 'closed-1')).toMatchObject({ leaseState: 'available', generation: 0 });
  });

  it('keeps one comment per pull request, updated in place; a refused comment never fails the step', async () => {
    const pool = 'acq-comment';
    await addSlots(pool, ['comment-1']);
    stack.github.pullRequests.set(60, 'open');
    const first = await acquire(pool, 60, { comment: 'true' }, true);
    expect(first.exitCode, first.stdout).toBe(0);
    const second = await acquire(pool, 60, { comment: 'true' }, true);
    expect(second.exitCode, second.stdout).toBe(0);
    const comments = stack.github.comments.get(60) ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain('<!-- preview-gc:slot:acq-comment -->');
    expect(comments[0]?.body).toContain(
      `**Preview slot** \`comment-1\` (pool \`acq-comment\`) is this pull request's until **${second.outputs['lease-expires-at']?.slice(0, 10)}`,
    );
    // Each run asked GitHub about the pull request once (the closed check), however many things it did.
    const lookups = stack.github.requests.filter((request) => request.path === '/repos/acme/shop/pulls/60');
    expect(lookups).toHaveLength(2);

    stack.github.refuseComments = true;
    try {
      const refused = await acquire(pool, 60, { comment: 'true' }, true);
      expect(refused.exitCode, refused.stdout).toBe(0);
      expect(refused.outputs.slot).toBe('comment-1');
      expect(refused.stdout).toMatch(
        /::warning title=preview-gc::The comment on pull request #60 was not written \(.*HTTP 403\)/,
      );
    } finally {
      stack.github.refuseComments = false;
    }
  });

  it('names the holders whose pull requests closed when no slot is free, and shows the pool', async () => {
    const pool = 'acq-full';
    await addSlots(pool, ['full-1', 'full-2']);
    await moveIn(pool, 'full-1', 'pr-55');
    await moveIn(pool, 'full-2', 'pr-57');
    stack.github.pullRequests.set(55, 'closed');
    stack.github.pullRequests.set(57, 'open');
    stack.github.pullRequests.set(56, 'open');
    const run = await acquire(pool, 56, {}, true);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(
      '::error::No slot of pool acq-full could be had for pr-56: 2 of 2 are held by live leases. Pull request #55 is closed but still holds a slot: the next gc with a github-token releases it, or run preview-gc cleanup --pr 55 now.',
    );
    expect(run.summary).toContain('### Pool after the run');
    expect(run.summary).toMatch(
      /\| `full-1` \| leased \| \[pr-55\]\(https:\/\/github\.com\/acme\/shop\/pull\/55\) Change number 55 \(closed\) \| ends in 1 h \|/,
    );
  });

  it('acquires anyway, with a warning, when GitHub cannot tell', async () => {
    const pool = 'acq-unknown';
    await addSlots(pool, ['unknown-1']);
    stack.github.pullRequests.set(61, 'rate-limited');
    const run = await acquire(pool, 61, {}, true);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.stdout).toMatch(
      /::warning title=preview-gc::Could not tell whether pull request #61 is still open \(.*HTTP 403 \(rate limit reached\)\); acquiring anyway/,
    );
  });
});

describe('acquire with a github-token that may not read pull requests', () => {
  it('acquires anyway, and says once which permission the workflow needs', async () => {
    const pool = 'acq-forbidden';
    await addSlots(pool, ['forbidden-1']);
    stack.github.pullRequests.set(62, 'forbidden');
    const run = await acquire(pool, 62, {}, true);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.outputs.slot).toBe('forbidden-1');
    const warnings = run.stdout.split('\n').filter((line) => line.startsWith('::warning'));
    expect(warnings).toEqual([
      "::warning title=preview-gc::GitHub refused to show pull requests to the github-token (HTTP 403), so acquire cannot tell whether this pull request, or one that holds a slot, has closed, and acquired anyway. Fix: give the workflow's job `permissions: pull-requests: read` (or set the github-token input to a token that can read this repository's pull requests).",
    ]);
  });
});

describe('acquire: waiting for a slot', () => {
  it('asks again with backoff until a slot is free (wait-minutes)', async () => {
    const pool = 'acq-wait';
    await addSlots(pool, ['wait-1']);
    const busy = await moveIn(pool, 'wait-1', 'pr-70');
    let released = false;
    const run = await runAction(inputs(pool, { 'pull-request': '71', 'wait-minutes': '1' }), {
      onSpawn: (_child, output) => {
        const poll = setInterval(() => {
          if (released || !output.stdout().includes('No slot can be had yet')) return;
          released = true;
          clearInterval(poll);
          void stack.client.release({ type: pool, slug: 'wait-1', leaseId: busy.leaseId });
        }, 20);
      },
    });
    expect(released).toBe(true);
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.outputs).toMatchObject({ slot: 'wait-1', 'was-dirty': 'true' });
    expect(await slotOf(pool, 'wait-1')).toMatchObject({ holder: 'pr-71' });
  }, 60_000);
});

describe('acquire: waiting in line (the pull request sees its place)', () => {
  it('names its place in the sticky comment while it waits, and leaves the line when its job is cancelled', async () => {
    const pool = 'acq-line';
    await addSlots(pool, ['line-1']);
    await moveIn(pool, 'line-1', 'pr-80');
    // Another pull request waits already, so this one is second.
    await stack.client.acquire({ type: pool, holder: 'pr-81', leaseMs: HOUR, wait: true }).catch(() => null);
    let commentWhileWaiting: string | undefined;
    const run = await runAction(
      inputs(pool, {
        'pull-request': '82',
        'wait-minutes': '5',
        comment: 'true',
        'github-token': TOKENS.github,
      }),
      {
        env: { GITHUB_API_URL: stack.github.url },
        onSpawn: (child, output) => {
          const poll = setInterval(() => {
            if (!output.stdout().includes('No slot can be had yet')) return;
            clearInterval(poll);
            commentWhileWaiting = stack.github.comments.get(82)?.[0]?.body;
            child.kill('SIGTERM');
          }, 20);
        },
      },
    );
    expectNoLeaks(run, Object.values(TOKENS));
    expect(run.stdout).toContain(`No slot can be had yet: 2nd in line for ${pool}, 1 slot, all leased;`);
    expect(commentWhileWaiting).toContain(
      `**Waiting for a preview slot**: this pull request is 2nd in line for \`${pool}\`, 1 slot, all leased.`,
    );
    expect(run.exitCode).not.toBe(0);
    expect(run.summary).toContain(
      `It was 2nd in line for \`${pool}\`, 1 slot, all leased, when the wait ended; it has left the line.`,
    );
    const comments = stack.github.comments.get(82) ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain('**No preview slot yet**');
    // Left at once: only pr-81 still waits.
    expect((await stack.client.list(pool)).queue?.waiters.map((waiter) => waiter.holder)).toEqual(['pr-81']);
  }, 60_000);

  // Issue 31's promise: first come, first served. Before the queue, whoever polled first after a
  // release won, and an acquire that did not wait could take the slot from under the waiters.
  it('gives a one-slot pool to three waiting pull requests in the order they started; one that does not wait never jumps the line', async () => {
    const pool = 'acq-order';
    await addSlots(pool, ['order-1']);
    await moveIn(pool, 'order-1', 'pr-90');
    const waiters = [91, 92, 93];
    const runs: Promise<ActionRunResult>[] = [];
    const done: number[] = [];
    for (const [index, pr] of waiters.entries()) {
      // Each starts once the one before it is in line, so the order they started is known.
      runs.push(
        runAction(inputs(pool, { 'pull-request': String(pr), 'wait-minutes': '5' })).then((run) => {
          done.push(pr);
          return run;
        }),
      );
      await until(async () => ((await stack.client.list(pool)).queue?.length ?? 0) === index + 1);
    }
    expect((await stack.client.list(pool)).queue?.waiters.map((waiter) => waiter.holder)).toEqual([
      'pr-91',
      'pr-92',
      'pr-93',
    ]);
    for (const pr of waiters) {
      await stack.client.release({ type: pool, slug: 'order-1', force: true });
      // The slot is free, but kept for the first in line: an acquire that does not wait gets none.
      await expect(
        stack.client.acquire({ type: pool, holder: 'pr-99', leaseMs: HOUR }),
      ).rejects.toMatchObject({
        code: 'none_available',
      });
      await until(async () => (await slotOf(pool, 'order-1')).holder === `pr-${pr}`);
      const run = await runs[waiters.indexOf(pr)];
      expect(run?.exitCode, run?.stdout).toBe(0);
      expect(run?.outputs.slot).toBe('order-1');
    }
    expect(done).toEqual(waiters);
    expect((await stack.client.list(pool)).queue?.length ?? 0).toBe(0);
  }, 120_000);
});

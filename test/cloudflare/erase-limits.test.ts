// The erase under pressure: the account's rate limit, a 429 storm, the run's request budget and KV's
// eventual consistency. The twin and the pacer share one virtual clock, so a Retry-After of minutes
// is honoured (or refused) without anyone waiting for it.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { eraseSlot } from '../../src/erase/erase-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { eraseInNewRun, slotResources, slotSeed, startRun, VirtualClock } from './support.ts';

const LIFECYCLE_GET = 'GET /accounts/:account/r2/buckets/:bucket/lifecycle';
const KV_ONLY = 'pool: p\nresources:\n  kv:\n    - title: app-{slot}-cache\n';

const clock = new VirtualClock();
let twin: Twin;
beforeAll(async () => {
  twin = await startTwin({
    now: clock.now,
    rateLimit: { requests: 60, windowMs: 300_000 },
    // Deleted keys stay in listings for a minute of virtual time: through the whole erase.
    kvListingLagMs: 60_000,
  });
});
afterAll(async () => {
  await twin?.close();
});
beforeEach(() => {
  twin.account.limiter.reset();
  twin.faults.clear();
  twin.resetRequests();
});

function keyCountOf(title: string) {
  return twin.state().kv.find((candidate) => candidate.title === title)?.keyCount;
}

describe('KV eventual consistency', () => {
  it('ignores deleted keys that listings still show, and ends', async () => {
    const slug = 'lag-1';
    twin.seed({ kv: [{ title: `app-${slug}-cache`, generate: { prefix: 'cart:', count: 3_000 } }] });
    const { result } = await eraseInNewRun(twin, slotResources(slug, KV_ONLY), { pacer: { clock } });

    expect(result.status).toBe('complete');
    expect(result.steps[0]).toMatchObject({
      status: 'done',
      summary: 'deleted 3,000 keys',
      // Three pages to find the keys, one bulk delete, three pages that show only deleted keys.
      details: { keysDeleted: 3_000, listings: 6, retriedKeys: 0 },
      // Then the inventory: a listing that still names deleted keys, three of their values read
      // (gone), and listings after waits until the minute of lag is over (the fifth, at 65 s).
      requests: 8 + 1 + 3 + 5,
      inventory: { state: 'empty', summary: '0 keys' },
    });
    expect(keyCountOf(`app-${slug}-cache`)).toBe(0);
  });
});

describe('a 429 storm', () => {
  it('defers the slot at once when the block is longer than the cap, and the next run finishes it', async () => {
    const slug = 'storm-1';
    twin.seed(slotSeed(slug, { kvKeys: 25_000 }));
    const first = await eraseInNewRun(twin, slotResources(slug), { pacer: { clock } });

    expect(first.result.status).toBe('deferred');
    expect(first.result.steps.map((step) => step.status)).toEqual([
      'done',
      'done',
      'failed',
      'not-run',
      'not-run',
    ]);
    const kv = first.result.steps[2];
    expect(kv?.failure?.reason).toBe('rate-limited');
    expect(kv?.failure?.message).toMatch(/asked to wait 300 s, more than the cap of 60 s/);
    // Every key was deleted; the block came during the listing that verifies it.
    expect(kv?.details).toMatchObject({ keysDeleted: 25_000 });
    expect(first.pacer.usage()).toMatchObject({ requests: 61, rateLimited: 1, retries: 0 });
    // One 429 and no more: the pacer does not hammer a blocked account.
    expect(twin.requests().filter((request) => request.status === 429)).toHaveLength(1);

    clock.time += 300_000;
    const second = await eraseInNewRun(twin, slotResources(slug), { pacer: { clock } });
    expect(second.result.status).toBe('complete');
    expect(second.result.steps.map((step) => step.status)).toEqual([
      'unchanged',
      'unchanged',
      'unchanged',
      'done',
      'done',
    ]);
    expect(keyCountOf(`app-${slug}-cache`)).toBe(0);
  });

  it('honours Retry-After waits under the cap and carries on', async () => {
    const slug = 'storm-2';
    twin.seed(slotSeed(slug, { kvKeys: 20 }));
    twin.faults.add({ route: LIFECYCLE_GET, status: 429, retryAfter: 20, times: 3 });
    const startedAt = clock.now();
    const { result, pacer } = await eraseInNewRun(twin, slotResources(slug), { pacer: { clock } });

    expect(result.status).toBe('complete');
    expect(pacer.usage()).toMatchObject({ rateLimited: 3, retries: 3 });
    expect(pacer.usage().waitedMs).toBeGreaterThanOrEqual(60_000);
    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(60_000);
  });

  it('gives up after four attempts of short waits and defers the slot', async () => {
    const slug = 'storm-3';
    twin.seed(slotSeed(slug, { kvKeys: 20 }));
    twin.faults.add({ route: LIFECYCLE_GET, status: 429, retryAfter: 1 });
    const { result, pacer } = await eraseInNewRun(twin, slotResources(slug), { pacer: { clock } });

    expect(result.status).toBe('deferred');
    expect(result.steps.map((step) => step.status)).toEqual(['done', 'done', 'done', 'failed', 'not-run']);
    expect(result.steps[3]?.failure?.message).toMatch(/gave up after 4 attempts \(HTTP 429, code 971/);
    expect(pacer.usage()).toMatchObject({ rateLimited: 4, retries: 3 });
  });
});

describe('the request budget', () => {
  it('defers the slot when the budget runs out mid-step, keeping what was deleted', async () => {
    const slug = 'budget-1';
    twin.seed(slotSeed(slug, { kvKeys: 25_000 }));
    // The compute step takes 9 (its cron triggers read among them; its inventory comes after the
    // steps) and D1 4: KV gets 12 before the budget is gone.
    const first = await eraseInNewRun(twin, slotResources(slug), { pacer: { clock, budget: 25 } });

    expect(first.result.status).toBe('deferred');
    expect(first.result.steps[2]).toMatchObject({
      status: 'failed',
      summary: "deleted 10,000 keys, then stopped: the run's request budget is used up",
      failure: {
        reason: 'budget',
        message: 'kv.keys.list: the request budget of 25 for this run is used up',
      },
      details: { keysDeleted: 10_000 },
      requests: 12,
    });
    expect(first.pacer.usage()).toMatchObject({ requests: 25, budgetLeft: 0 });
    expect(keyCountOf(`app-${slug}-cache`)).toBe(15_000);

    // The next run, with the account's real limit (this file's 60 requests in 5 minutes are for the
    // 429 storms; a whole erase of this slot with its inventory takes more).
    clock.time += 3_600_000;
    twin.account.limiter.configure({ requests: 1_200, windowMs: 300_000 });
    try {
      const second = await eraseInNewRun(twin, slotResources(slug), { pacer: { clock } });
      expect(second.result.status).toBe('complete');
      expect(keyCountOf(`app-${slug}-cache`)).toBe(0);
    } finally {
      twin.account.limiter.configure({ requests: 60, windowMs: 300_000 });
    }
  });

  it('defers the slot when the run deadline has passed, before any request', async () => {
    const slug = 'deadline-1';
    twin.seed(slotSeed(slug, { kvKeys: 20 }));
    const { result } = await eraseInNewRun(twin, slotResources(slug), {
      pacer: { clock, deadlineAt: clock.now() - 1 },
    });
    expect(result.status).toBe('deferred');
    expect(result.steps[0]?.failure?.reason).toBe('deadline');
    expect(result.steps.slice(1).every((step) => step.status === 'not-run')).toBe(true);
    expect(twin.requests()).toEqual([]);
  });
});

describe('SIGTERM', () => {
  it('aborts the call in flight and stops the erase, reporting it as aborted', async () => {
    const slug = 'abort-1';
    twin.seed(slotSeed(slug, { kvKeys: 20 }));
    // The D1 listing hangs; the fault is used up the moment the request arrives.
    twin.faults.add({ route: 'GET /accounts/:account/d1/database', delayMs: 30_000, times: 1 });
    const controller = new AbortController();
    const run = startRun(twin, { clock, signal: controller.signal });
    const erasing = eraseSlot({
      api: run.api,
      resolver: run.resolver,
      resources: slotResources(slug),
      fence: async () => true,
      dryRun: false,
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(twin.state().faults).toEqual([]));
    controller.abort();
    const result = await erasing;

    expect(result.status).toBe('aborted');
    expect(result.steps.map((step) => step.status)).toEqual([
      'done',
      'failed',
      'not-run',
      'not-run',
      'not-run',
    ]);
    expect(result.steps[1]?.failure).toEqual({ reason: 'aborted', message: 'd1.list: the run was stopped' });
    expect(result.steps[2]?.summary).toBe('not run: the run was stopped');
  });
});

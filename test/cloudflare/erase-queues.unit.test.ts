// The queue purge step against the twin's queues in-process (the real SDK; msw's handlers answer its
// fetch, no server): only the slot's queue loses its messages, a dry run writes nothing, a purge that
// does not finish in the step's wait is reported as still running, a missing queue is named, and
// 429s go through the pacer. Twin and pacer share one virtual clock, so waits cost no time.

import type Cloudflare from 'cloudflare';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PacerOptions } from '../../src/cloudflare/pacer.ts';
import { POLL_SECONDS } from '../../src/cloudflare/poll.ts';
import { createCloudflareEraser } from '../../src/commands/cloudflare-eraser.ts';
import { ACTION_PLACE } from '../../src/config/run-place.ts';
import { parseSlotConfig, resourcesForSlot, type SlotConfig } from '../../src/config/slot-config.ts';
import { eraseSlot } from '../../src/erase/erase-slot.ts';
import { purgeFinished } from '../../src/kinds/queues/erase.ts';
import type { TwinAccount } from '../twin/twin.ts';
import {
  BASE_URL,
  eraseInNewRun,
  type InProcessTwin,
  inProcessTwin,
  newRun,
  routesServed,
} from './in-process-twin.ts';
import type { VirtualClock } from './support.ts';

const CONFIG = parseSlotConfig(
  'pool: preview-slot\nresources:\n  queues:\n    - name: app-{slot}-jobs\n',
  'preview-slots.yml',
);
const PURGE = 'POST /accounts/:account/queues/:queue/purge';
const PURGE_STATUS = 'GET /accounts/:account/queues/:queue/purge';
const LIST = 'GET /accounts/:account/queues';
const METRICS = 'GET /accounts/:account/queues/:queue/metrics';

let env: InProcessTwin;
let clock: VirtualClock;
let twin: TwinAccount;
let sdk: Cloudflare;

beforeEach(() => {
  env = inProcessTwin();
  ({ clock, twin, sdk } = env);
});

/** A queue with `messages` JSON messages in it, put there through the API. */
async function queueWith(name: string, messages: number): Promise<string> {
  const queue = await sdk.queues.create({ account_id: twin.accountId, queue_name: name });
  const queueId = queue.queue_id ?? '';
  const batch = Array.from({ length: messages }, (_, n) => ({
    body: { job: n },
    content_type: 'json' as const,
  }));
  if (messages > 0)
    await sdk.queues.messages.bulkPush(queueId, { account_id: twin.accountId, messages: batch });
  return queueId;
}

async function backlogOf(queueId: string): Promise<number> {
  const metrics = await sdk.queues.getMetrics(queueId, { account_id: twin.accountId });
  return metrics.backlog_count;
}

function eraseQueuesOf(
  slug: string,
  options: { dryRun?: boolean; pacer?: PacerOptions; config?: SlotConfig } = {},
) {
  return eraseInNewRun(env, resourcesForSlot(options.config ?? CONFIG, slug), options);
}

const routes = () => routesServed(env);

describe('erasing a slot with a queue', () => {
  it("purges every message of the slot's queue and only of that queue", async () => {
    const mine = await queueWith('app-preview-1-jobs', 40);
    const theirs = await queueWith('app-preview-2-jobs', 2);
    await sdk.queues.messages.push(theirs, {
      account_id: twin.accountId,
      body: 'hello',
      content_type: 'text',
    });

    const { result } = await eraseQueuesOf('preview-1');

    expect(result.status).toBe('complete');
    expect(result.steps).toEqual([
      {
        kind: 'queues',
        resource: 'app-preview-1-jobs',
        status: 'done',
        summary: 'purged every message',
        details: { purge: 'finished', statusReads: 1 },
        requests: 4,
        inventory: { state: 'empty', summary: '0 messages' },
      },
    ]);
    // The purge goes first: nothing depends on what the status route answers for a queue never
    // purged. Then the inventory reads the backlog, apart from the purge's own status.
    expect(routes()).toEqual([
      `${LIST} -> 200`,
      `${PURGE} -> 200`,
      `${PURGE_STATUS} -> 200`,
      `${METRICS} -> 200`,
    ]);
    expect(await backlogOf(mine)).toBe(0);
    expect(await backlogOf(theirs)).toBe(3);
  });

  it('describes the purge in a dry run and writes nothing', async () => {
    const mine = await queueWith('app-preview-1-jobs', 12);

    const { result } = await eraseQueuesOf('preview-1', { dryRun: true });

    expect(result.steps[0]).toMatchObject({
      status: 'would-change',
      summary: 'would purge every message (about 12 messages waiting)',
      details: { purge: 'not-started', statusReads: 0, backlog: 12 },
    });
    expect(twin.requests().every((request) => request.method === 'GET')).toBe(true);
    expect(await backlogOf(mine)).toBe(12);
  });

  it('reports a purge that has not finished within the wait as still running, and goes on', async () => {
    const first = await queueWith('app-preview-1-jobs', 5);
    await queueWith('app-preview-1-mail', 5);
    twin.queues.purgeDurationMs = Number.POSITIVE_INFINITY;
    const twoQueues = parseSlotConfig(
      'pool: p\nresources:\n  queues:\n    - name: app-{slot}-jobs\n    - name: app-{slot}-mail\n',
      'preview-slots.yml',
    );
    const started = clock.now();
    const { result } = await eraseQueuesOf('preview-1', { config: twoQueues });

    // Not clean, but nothing a person must do: the slot is deferred to the next run.
    expect(result.status).toBe('deferred');
    expect(result.steps.map((step) => [step.resource, step.status, step.failure?.reason])).toEqual([
      ['app-preview-1-jobs', 'failed', 'pending'],
      ['app-preview-1-mail', 'failed', 'pending'],
    ]);
    expect(result.steps[0]?.summary).toBe('still running at Cloudflare; the next run checks again');
    expect(result.steps[0]?.failure?.message).toBe(
      'the purge started, but Cloudflare did not report it finished within 31 s (7 status reads); the next run purges again and checks',
    );
    expect(result.steps[0]?.details).toEqual({ purge: 'running', statusReads: 7 });
    expect(clock.now() - started).toBeGreaterThanOrEqual(2 * POLL_SECONDS * 1000);
    expect(await backlogOf(first)).toBe(5);

    // Once Cloudflare purges at once again, the next run finishes the slot.
    twin.queues.purgeDurationMs = 0;
    const next = await eraseQueuesOf('preview-1');
    expect(next.result.status).toBe('complete');
    expect(await backlogOf(first)).toBe(0);
  });

  it('names a queue that does not exist, like every other kind', async () => {
    await queueWith('app-preview-1-jobs', 1);
    const { result } = await eraseQueuesOf('preview-9');

    expect(result.status).toBe('failed');
    expect(result.steps[0]).toMatchObject({
      status: 'failed',
      summary: 'failed: not found in the account',
      failure: {
        reason: 'missing',
        message:
          "Queue 'app-preview-9-jobs' does not exist in the account (from 'app-{slot}-jobs' at resources.queues[0].name); create it or fix the template",
      },
    });
    expect(routes()).toEqual([`${LIST} -> 200`]);
  });

  it('lists the queues once per run, following the pages', async () => {
    for (let n = 1; n <= 25; n++) await queueWith(`app-preview-${n}-jobs`, 1);
    const run = newRun(env);
    twin.resetRequests();
    for (const slug of ['preview-24', 'preview-25']) {
      const result = await eraseSlot({
        ...run,
        resources: resourcesForSlot(CONFIG, slug),
        fence: async () => true,
        dryRun: false,
      });
      expect(result.status).toBe('complete');
    }
    // 25 queues at the twin's 20 a page: two pages, once for both slots.
    expect(twin.requests().filter((request) => request.route === LIST)).toHaveLength(2);
  });
});

describe('429 on the queue routes', () => {
  it('waits out a short Retry-After through the pacer and completes', async () => {
    const mine = await queueWith('app-preview-1-jobs', 2);
    twin.faults.add({ route: PURGE, status: 429, retryAfter: 2, times: 1 });

    const { result, pacer } = await eraseQueuesOf('preview-1');

    expect(result.status).toBe('complete');
    expect(pacer.usage()).toMatchObject({ rateLimited: 1, retries: 1 });
    expect(pacer.usage().waitedMs).toBeGreaterThanOrEqual(2_000);
    expect(await backlogOf(mine)).toBe(0);
  });

  it('defers the slot on a long block after the purge started, and says the purge had started', async () => {
    await queueWith('app-preview-1-jobs', 2);
    // The account's limit runs out at the first status read after the purge: a block of five minutes.
    twin.limiter.configure({ requests: 2, windowMs: 300_000 });

    const { result, pacer } = await eraseQueuesOf('preview-1');

    expect(result.status).toBe('deferred');
    expect(result.steps[0]).toMatchObject({
      status: 'failed',
      summary: 'stopped: Cloudflare rate-limits the token',
      details: { purge: 'running', statusReads: 0 },
    });
    expect(result.steps[0]?.failure?.reason).toBe('rate-limited');
    expect(result.steps[0]?.failure?.message).toMatch(
      /^queues\.purge\.status: Cloudflare asked to wait 300 s, more than the cap of 60 s .*; the purge had started, not seen finished$/,
    );
    // One 429, no hammering of a blocked account.
    expect(pacer.usage()).toMatchObject({ requests: 3, rateLimited: 1 });
  });
});

describe('the run deadline', () => {
  it('stops waiting for a purge at the deadline and says the purge had started', async () => {
    await queueWith('app-preview-1-jobs', 2);
    twin.queues.purgeDurationMs = Number.POSITIVE_INFINITY;

    const { result } = await eraseQueuesOf('preview-1', { pacer: { deadlineAt: clock.now() + 5_000 } });

    expect(result.status).toBe('deferred');
    expect(result.steps[0]?.failure).toEqual({
      reason: 'deadline',
      message:
        'queues.purge.status: the run deadline comes before the next request may start; the purge had started, not seen finished',
    });
  });
});

describe('a token without the Queues permission', () => {
  it('tells the person which permission the token needs', async () => {
    await queueWith('app-preview-1-jobs', 1);
    twin.faults.add({ route: LIST, status: 403, code: 10000, message: 'Authentication error' });
    const { eraser } = createCloudflareEraser(CONFIG, {
      apiToken: twin.token,
      accountId: twin.accountId,
      baseUrl: BASE_URL,
      budget: 50,
      ratePerSecond: 1000,
      deadlineAt: Date.now() + 60_000,
      signal: new AbortController().signal,
      place: ACTION_PLACE,
      fetch: env.fetch,
    });

    const outcome = await eraser.erase({ slug: 'preview-1', fence: async () => true, dryRun: false });

    expect(outcome.status).toBe('failed');
    expect(outcome.problem).toBe(
      "queues 'app-preview-1-jobs': queues.list: HTTP 403, code 10000: Authentication error",
    );
    expect(outcome.nextStep).toMatch(/give the API token Queues: Edit\.$/);
  });
});

describe('purgeFinished', () => {
  it('reads the flag as the SDK types it (a string) and as wrangler types it (a boolean)', () => {
    expect(purgeFinished({ completed: 'true' })).toBe(true);
    expect(purgeFinished({ completed: 'TRUE' })).toBe(true);
    expect(purgeFinished({ completed: true })).toBe(true);
    expect(purgeFinished({ complete: true })).toBe(true);
    expect(purgeFinished({ completed: '2026-11-20T12:00:03Z' })).toBe(true);
  });

  it('takes anything else as still running', () => {
    for (const fields of [
      { completed: 'false' },
      { completed: '' },
      { complete: false },
      {},
      { completed: '1' },
    ])
      expect(purgeFinished({ started_at: '2026-11-20T12:00:00.000Z', ...fields })).toBe(false);
  });
});

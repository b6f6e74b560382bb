// "Reclaimed" is what the inventory reads back, for the stores whose state Cloudflare changes after
// the request that asked for it, through the bundled action against the real semaphore and the twin:
// R2's objects stay until the lifecycle rule removes them (the summary says which and by when), a KV
// key written again after its delete is data left (not a listing that lags), and a queue is purged
// even when its purge status cannot be read.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { type ActionStack, actionInputs, expectNoLeaks, startActionStack } from '../support/action-stack.ts';

const TOKENS = {
  semaphore: 'sem-stores-5e1c8a9b27',
  cloudflare: 'cf-stores-3d7f0b6e41',
  github: 'ghs-stores-9a2c4e6f80',
};
const CONFIG = fileURLToPath(new URL('fixtures/stores.yml', import.meta.url));
const POOL = 'stores';
const HOUR = 3_600_000;
const PURGE_STATUS = 'GET /accounts/:account/queues/:queue/purge';

let stack: ActionStack;

beforeAll(async () => {
  stack = await startActionStack(TOKENS);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

async function gc(): Promise<ActionRunResult> {
  const result = await runAction(actionInputs(stack, POOL, { command: 'gc' }, CONFIG));
  expectNoLeaks(result, Object.values(TOKENS));
  return result;
}

const reportOf = (result: ActionRunResult): RunReport => JSON.parse(result.outputs.report ?? '{}');

/** A dirty slot whose KV, bucket and queue hold the last tenant's data; the bucket's objects are an hour old. */
async function dirtySlot(slug: string): Promise<void> {
  stack.twin.seed({
    kv: [{ title: `st-${slug}-cache`, keys: { 'session:1': 'alice', 'session:2': 'bob' } }],
    r2: [
      {
        bucket: `st-${slug}-files`,
        objects: [
          { key: 'uploads/a.png', size: 10, ageSeconds: 3_600 },
          { key: 'uploads/b.png', size: 20, ageSeconds: 3_600 },
        ],
      },
    ],
    queues: [{ name: `st-${slug}-jobs`, messages: 4 }],
  });
  await stack.client.add({ type: POOL, slug, dirty: true });
}

function stepOf(report: RunReport, slug: string, kind: string) {
  return report.slots.find((slot) => slot.slug === slug)?.erase?.steps.find((step) => step.kind === kind);
}

const queueMessages = (name: string) =>
  stack.twin.state().queues.find((queue) => queue.name === name)?.messages;

describe("stores Cloudflare empties after the erase's own request", () => {
  it('R2: the slot is reclaimed, and the summary says which objects are still there and by when they are expected gone', async () => {
    await dirtySlot('st-1');
    const started = Date.now();
    const run = await gc();

    expect(run.exitCode, run.stdout).toBe(0);
    const report = reportOf(run);
    expect(report.slots.map((slot) => [slot.slug, slot.outcome])).toEqual([['st-1', 'reclaimed']]);
    const r2 = stepOf(report, 'st-1', 'r2');
    expect(r2?.left?.state).toBe('expiring');
    // Written an hour ago, expired by the 3 h rule two hours from now, and removed within a day after.
    const goneBy = Date.parse(r2?.left?.goneBy ?? '');
    expect(goneBy).toBeGreaterThanOrEqual(started + 26 * HOUR - 60_000);
    expect(goneBy).toBeLessThanOrEqual(Date.now() + 26 * HOUR + 60_000);
    expect(run.summary).toMatch(
      /\*\*left:\*\* 0 keys, 2 objects written before .* UTC, expected gone by .* UTC/,
    );
    expect((await stack.client.find(POOL, 'st-1')).dirty).toBe(false);
  });

  it('KV: a key an old version writes again right after its delete is data left, and the slot stays dirty', async () => {
    await dirtySlot('st-2');
    let rewritten = false;
    stack.twin.account.kv.afterBulkDelete = (namespace, deleted) => {
      const [first] = deleted;
      if (rewritten || namespace.title !== 'st-st-2-cache' || first === undefined) return;
      rewritten = true;
      namespace.put(first, { value: new TextEncoder().encode('written again by the last version') });
    };
    try {
      const run = await gc();

      expect(run.exitCode).toBe(1);
      const kv = stepOf(reportOf(run), 'st-2', 'kv');
      expect(kv).toMatchObject({ status: 'failed', left: { state: 'left' } });
      expect(kv?.summary).toContain('key "session:1" has a value');
      expect(run.summary).toContain('session:1');
      const slot = await stack.client.find(POOL, 'st-2');
      expect(slot.dirty).toBe(true);
      expect(slot.lastEraseFailure?.message).toContain('session:1');
    } finally {
      stack.twin.account.kv.afterBulkDelete = undefined;
    }
  });

  it('Queues: the purge goes out even when the purge status cannot be read', async () => {
    await dirtySlot('st-3');
    expect(queueMessages('st-st-3-jobs')).toBe(4);
    // Every read of the status fails: the first read's four attempts and more.
    stack.twin.faults.add({ route: PURGE_STATUS, status: 500, times: 8 });
    try {
      const run = await gc();

      const queues = stepOf(reportOf(run), 'st-3', 'queues');
      expect(queues?.status).toBe('failed');
      expect(queueMessages('st-st-3-jobs')).toBe(0);
    } finally {
      stack.twin.faults.clear();
    }
  });
});

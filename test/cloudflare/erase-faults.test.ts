// Every route an erase uses, broken in every way the API breaks: 5xx, a timeout, a connection reset
// (each retried, and the erase completes) and a 200 with success:false (the step that made the call
// fails, the other steps still run, nothing crashes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlotResources } from '../../src/config/slot-config.ts';
import { type FaultRule, startTwin, type Twin } from '../twin/twin.ts';
import { eraseInNewRun, slotResources, slotSeed } from './support.ts';

/** Each route with the index of the erase step that calls it (compute, d1, kv, r2 files, r2 sandboxes). */
const ROUTES: [route: string, step: number][] = [
  ['GET /accounts/:account/workers/scripts', 0],
  ['GET /accounts/:account/workers/durable_objects/namespaces', 0],
  ['GET /accounts/:account/containers/applications', 0],
  ['PUT /accounts/:account/workers/scripts/:name', 0],
  ['GET /accounts/:account/d1/database', 1],
  ['POST /accounts/:account/d1/database/:id/query', 1],
  ['GET /accounts/:account/storage/kv/namespaces', 2],
  ['GET /accounts/:account/storage/kv/namespaces/:ns/keys', 2],
  ['POST /accounts/:account/storage/kv/namespaces/:ns/bulk/delete', 2],
  ['GET /accounts/:account/r2/buckets', 3],
  ['GET /accounts/:account/r2/buckets/:bucket/lifecycle', 3],
  ['PUT /accounts/:account/r2/buckets/:bucket/lifecycle', 3],
  ['GET /accounts/:account/r2/buckets/:bucket/objects', 3],
];

/**
 * Each attempt's time: short, so the hung answer below times out quickly, but long enough that a
 * loaded 2-core runner (a Worker upload parsed under other test files) answers in it; at 150 ms a
 * busy machine timed out all four attempts of a plain 500's retry.
 */
const TIMEOUT_MS = 400;
const RECOVERED: [name: string, fault: Omit<FaultRule, 'route'>][] = [
  ['HTTP 500', { status: 500 }],
  ['a timeout', { delayMs: TIMEOUT_MS * 4 }],
  ['a connection reset', { reset: true }],
];
const SUCCESS_FALSE: Omit<FaultRule, 'route'> = { successFalse: true, code: 10013 };

let twin: Twin;
let slots = 0;
beforeAll(async () => {
  // Far above what the ~80 erases of this file send: the limiter has its own tests.
  twin = await startTwin({ rateLimit: { requests: 100_000, windowMs: 300_000 } });
});
afterAll(async () => {
  await twin?.close();
});

/** A dirty slot of its own, so that every route of the erase is really called. */
function dirtySlot() {
  const slug = `f-${++slots}`;
  twin.seed(slotSeed(slug, { kvKeys: 30, orders: 2 }));
  return slotResources(slug);
}

/** The slot's resources of one step's kind only (the step that meets the fault), to keep the test quick. */
function onlyKindOf(resources: SlotResources, step: number): SlotResources {
  const kind = ['compute', 'd1', 'kv', 'r2', 'r2'][step];
  return {
    ...resources,
    workers: kind === 'compute' ? resources.workers : [],
    d1: kind === 'd1' ? resources.d1 : [],
    kv: kind === 'kv' ? resources.kv : [],
    r2: kind === 'r2' ? resources.r2 : [],
  };
}

describe.each(ROUTES)('%s', (route, step) => {
  it.each(RECOVERED)('retries %s and completes the erase', async (_, fault) => {
    const resources = onlyKindOf(dirtySlot(), step);
    twin.faults.clear();
    twin.faults.add({ route, times: 1, ...fault });
    const { result, pacer } = await eraseInNewRun(twin, resources, { pacer: { timeoutMs: TIMEOUT_MS } });

    expect(result.status).toBe('complete');
    expect(result.steps.every((each) => each.status === 'done')).toBe(true);
    // At least the one retry; a loaded machine may add a slow answer of its own.
    expect(pacer.usage().retries).toBeGreaterThanOrEqual(1);
    expect(twin.state().faults).toEqual([]);
  });

  it('fails only the step that met success:false, without retrying it', async () => {
    const resources = dirtySlot();
    twin.faults.clear();
    twin.faults.add({ route, times: 1, ...SUCCESS_FALSE });
    const { result, pacer } = await eraseInNewRun(twin, resources);

    expect(result.status).toBe('failed');
    expect(result.steps.map((each) => each.status)).toEqual(
      result.steps.map((_, index) => (index === step ? 'failed' : 'done')),
    );
    expect(result.steps[step]?.failure).toEqual({
      reason: 'api',
      message: expect.stringMatching(/: HTTP 200 with success: false, code 10013: /),
    });
    expect(pacer.usage().retries).toBe(0);
  });
});

describe('a malformed answer', () => {
  it('fails the step as invalid-answer, naming the call, and is not retried', async () => {
    const resources = dirtySlot();
    twin.faults.clear();
    twin.faults.add({
      route: 'GET /accounts/:account/r2/buckets/:bucket/lifecycle',
      times: 1,
      malformed: true,
    });
    const { result, pacer } = await eraseInNewRun(twin, resources);
    expect(result.steps.map((each) => each.status)).toEqual(['done', 'done', 'done', 'failed', 'done']);
    expect(result.steps[3]?.failure).toEqual({
      reason: 'invalid-answer',
      message: expect.stringMatching(
        /^r2\.lifecycle\.get: HTTP 200 with a body that is not JSON \(\d+ bytes\)$/,
      ),
    });
    expect(pacer.usage().retries).toBe(0);
  });
});

describe('error messages', () => {
  it('never contain the API token', async () => {
    const resources = dirtySlot();
    twin.faults.clear();
    for (const [route] of ROUTES) twin.faults.add({ route, status: 400, message: 'bad request', times: 1 });
    const { result } = await eraseInNewRun(twin, resources);
    expect(result.status).toBe('failed');
    expect(JSON.stringify(result)).not.toContain(twin.token);
    expect(result.steps[0]?.failure?.message).toBe('workers.list: HTTP 400, code 10002: bad request');
  });
});

// The twin's hostile side, through the real SDK (no retries): the account rate limiter on a fake clock,
// every fault kind (programmatic and through /__twin/faults), auth, unknown routes and KV listing lag.
import Cloudflare, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'cloudflare';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTwin, type Twin } from './twin.ts';

let twin: Twin;
let cf: Cloudflare;
let account_id: string;
let clock = 1_800_000_000_000;

beforeAll(async () => {
  twin = await startTwin({
    now: () => clock,
    kvListingLagMs: 60_000,
    seed: { d1: [{ name: 'faulty-db' }], kv: [{ title: 'laggy', keys: { a: '1', b: '2' } }] },
  });
  account_id = twin.accountId;
  cf = new Cloudflare({ apiToken: twin.token, baseURL: twin.baseUrl, maxRetries: 0 });
});

afterEach(() => {
  twin.faults.clear();
  twin.account.latencyMs = 0;
  twin.account.limiter.configure({ requests: 1200, windowMs: 300_000 });
});

afterAll(async () => {
  await twin?.close();
});

const listDatabases = () => cf.d1.database.list({ account_id }).withResponse();

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

function admin(path: string, init?: RequestInit): Promise<Response> {
  return fetch(`${twin.adminUrl}${path}`, init);
}

describe('rate limiter', () => {
  it('sends Ratelimit headers, then 429 code 971 with Retry-After for the whole block', async () => {
    twin.account.limiter.configure({ requests: 3, windowMs: 1500 });
    const { response } = await listDatabases();
    expect(response.headers.get('ratelimit')).toBe('"default";r=2;t=2');
    expect(response.headers.get('ratelimit-policy')).toBe('"default";q=3;w=2');
    await listDatabases();
    await listDatabases();

    const limited = await failure(listDatabases());
    expect(limited).toBeInstanceOf(APIError);
    const error = limited as APIError;
    expect(error.status).toBe(429);
    expect(error.errors).toEqual([
      { code: 971, message: 'Please wait and consider throttling your request speed' },
    ]);
    expect(error.headers?.get('retry-after')).toBe('2');

    clock += 1000; // still inside the block: every call is refused, the wait shrinks
    const stillLimited = (await failure(listDatabases())) as APIError;
    expect(stillLimited.status).toBe(429);
    expect(stillLimited.headers?.get('retry-after')).toBe('1');
    expect((await admin('/state')).status).toBe(200); // admin routes are never limited

    clock += 600;
    const { response: after } = await listDatabases();
    expect(after.status).toBe(200);
  });
});

describe('faults', () => {
  it('answers a status with Retry-After for `times` matching requests, then serves normally', async () => {
    twin.faults.add({ route: 'GET /accounts/:account/d1/database', status: 503, retryAfter: 7, times: 2 });
    twin.resetRequests();
    for (let i = 0; i < 2; i += 1) {
      const error = (await failure(listDatabases())) as APIError;
      expect(error.status).toBe(503);
      expect(error.headers?.get('retry-after')).toBe('7');
    }
    expect((await listDatabases()).response.status).toBe(200);
    const log = (await (await admin('/requests')).json()) as { counts: Record<string, number> };
    expect(log.counts).toEqual({ 'GET /accounts/:account/d1/database': 3 });
  });

  it('resets the connection', async () => {
    twin.faults.add({ pathPattern: '/d1/database$', reset: true, times: 1 });
    expect(await failure(listDatabases())).toBeInstanceOf(APIConnectionError);
    expect(twin.requests().at(-1)?.status).toBe(0);
  });

  it('delays the answer past the client timeout', async () => {
    twin.faults.add({ method: 'GET', delayMs: 1000, times: 1 });
    const call = cf.d1.database.list({ account_id }, { timeout: 100 });
    expect(await failure(call)).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('adds latency to every API call', async () => {
    twin.account.latencyMs = 1000;
    const call = cf.d1.database.list({ account_id }, { timeout: 100 });
    expect(await failure(call)).toBeInstanceOf(APIConnectionTimeoutError);
  });

  it('leaves keys of a KV bulk delete undeleted and reports them as unsuccessful_keys', async () => {
    const ns = twin.account.kv.create('partial');
    twin.seed({ kv: [{ title: 'partial', keys: { x: '1', y: '2', z: '3' } }] });
    twin.faults.add({
      route: 'POST /accounts/:account/storage/kv/namespaces/:ns/bulk/delete',
      unsuccessfulKeys: 2,
      times: 1,
    });
    const first = await cf.kv.namespaces.bulkDelete(ns.id, { account_id, body: ['x', 'y', 'z'] });
    expect(first).toEqual({ successful_key_count: 1, unsuccessful_keys: ['x', 'y'] });
    const retry = await cf.kv.namespaces.bulkDelete(ns.id, { account_id, body: ['x', 'y'] });
    expect(retry).toEqual({ successful_key_count: 2, unsuccessful_keys: [] });
    expect(ns.size).toBe(0);
  });

  it('sends a malformed body, which the SDK fails to parse', async () => {
    twin.faults.add({ route: 'GET /accounts/:account/d1/database', malformed: true, times: 1 });
    expect(await failure(listDatabases())).toBeInstanceOf(SyntaxError);
    expect(twin.requests().at(-1)?.status).toBe(200);
  });

  it('answers 200 with success:false, which the SDK passes through as a null result', async () => {
    twin.faults.add({ route: 'GET /accounts/:account/d1/database/:id', successFalse: true, times: 1 });
    const db = await cf.d1.database.get('faulty-db', { account_id }).withResponse();
    expect(db.response.status).toBe(200);
    expect(db.data).toBeNull();
  });

  it('takes rules through POST /__twin/faults and validates them', async () => {
    const added = await admin('/faults', {
      method: 'POST',
      body: JSON.stringify([{ route: 'GET /accounts/:account/d1/database', status: 429, times: 1 }]),
    });
    expect(added.status).toBe(200);
    const error = (await failure(listDatabases())) as APIError;
    expect(error.status).toBe(429);
    expect(error.errors[0]).toMatchObject({ code: 971 });

    const bad = await admin('/faults', { method: 'POST', body: JSON.stringify({ status: 'soon' }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: 'fault rules: 0.status: Invalid input: expected number, received string',
    });
    expect((await admin('/faults', { method: 'DELETE' })).status).toBe(200);
  });
});

describe('auth and routing', () => {
  it('refuses a wrong token (401) and another account (403) with code 10000', async () => {
    const stranger = new Cloudflare({ apiToken: 'wrong', baseURL: twin.baseUrl, maxRetries: 0 });
    const unauthenticated = (await failure(stranger.d1.database.list({ account_id }))) as APIError;
    expect([unauthenticated.status, unauthenticated.errors]).toEqual([
      401,
      [{ code: 10000, message: 'Authentication error' }],
    ]);
    const elsewhere = (await failure(cf.d1.database.list({ account_id: 'f'.repeat(32) }))) as APIError;
    expect([elsewhere.status, elsewhere.errors[0]?.code]).toEqual([403, 10000]);
  });

  it('answers an unknown route with 404 code 7003 in the envelope', async () => {
    const error = (await failure(cf.get(`/accounts/${account_id}/no/such/thing`))) as APIError;
    expect(error.status).toBe(404);
    expect(error.error).toMatchObject({ success: false, result: null, errors: [{ code: 7003 }] });
  });
});

describe('seeding through /__twin/seed', () => {
  it('adds resources, and refuses a bad seed naming the field', async () => {
    const ok = await admin('/seed', {
      method: 'POST',
      body: JSON.stringify({ r2: [{ bucket: 'seeded-files' }] }),
    });
    expect(ok.status).toBe(200);
    expect(twin.state().r2.map((b) => b.name)).toContain('seeded-files');
    const bad = await admin('/seed', { method: 'POST', body: JSON.stringify({ kv: [{ title: '' }] }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: expect.stringContaining('seed: kv.0.title:') });
  });

  it('makes a queue with a backlog and a Vectorize index with vectors, and refuses an index too wide', async () => {
    const seed = {
      queues: [{ name: 'seeded-jobs', messages: 3 }],
      vectorize: [{ name: 'seeded-embeddings', dimensions: 8, vectors: 12 }],
    };
    expect((await admin('/seed', { method: 'POST', body: JSON.stringify(seed) })).status).toBe(200);
    const queue = twin.state().queues.find((q) => q.name === 'seeded-jobs');
    expect(queue?.messages).toBe(3);
    const metrics = await cf.queues.getMetrics(queue?.id ?? '', { account_id });
    expect(metrics?.backlog_count).toBe(3);
    const info = await cf.vectorize.indexes.info('seeded-embeddings', { account_id });
    expect(info).toMatchObject({ dimensions: 8, vectorCount: 12 });
    const listed = await cf.vectorize.indexes.listVectors('seeded-embeddings', { account_id, count: 5 });
    expect(listed?.vectors?.map((v) => v.id)).toEqual(['v00', 'v01', 'v02', 'v03', 'v04']);
    expect(twin.state().vectorize).toContainEqual({
      name: 'seeded-embeddings',
      dimensions: 8,
      metric: 'cosine',
      vectors: 12,
      pendingMutations: 0,
    });

    const wide = { vectorize: [{ name: 'too-wide', dimensions: 4096 }] };
    const bad = await admin('/seed', { method: 'POST', body: JSON.stringify(wide) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: expect.stringContaining('seed: vectorize.0.dimensions:') });
  });
});

describe('KV listing lag', () => {
  it('keeps deleted keys in listings for kvListingLagMs, then drops them', async () => {
    const id = twin.state().kv.find((ns) => ns.title === 'laggy')?.id ?? '';
    await cf.kv.namespaces.bulkDelete(id, { account_id, body: ['a'] });
    const names = async () =>
      (await cf.kv.namespaces.keys.list(id, { account_id })).result.map((k) => k.name);
    expect(await names()).toEqual(['a', 'b']);
    clock += 60_000;
    expect(await names()).toEqual(['b']);
  });
});

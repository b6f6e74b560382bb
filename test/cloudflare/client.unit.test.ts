// The API client's edges, with a scripted fetch under the real SDK: pagination that must end,
// answers that must be refused, the server's wait headers, and what goes on the wire.

import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/cloudflare/answer.ts';
import { CloudflareApi } from '../../src/cloudflare/client.ts';
import { Pacer } from '../../src/cloudflare/pacer.ts';
import { listD1Databases, queryD1 } from '../../src/kinds/d1/api.ts';
import { bulkDeleteKvKeys, listKvNamespaces } from '../../src/kinds/kv/api.ts';
import { getR2Lifecycle, listR2Buckets, putR2Lifecycle } from '../../src/kinds/r2/api.ts';
import {
  getWorkerContent,
  listContainerApplications,
  listDurableObjectNamespaces,
  listWorkerScripts,
  uploadWorker,
} from '../../src/kinds/workers/api.ts';
import { callFailureOf } from './call-failure.ts';
import { VirtualClock } from './support.ts';

const TOKEN = 'cf-secret-token-value';
const ACCOUNT = '0123456789abcdef0123456789abcdef';

interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  body: BodyInit | null | undefined;
}

type Reply = { status?: number; body: unknown; headers?: Record<string, string> };

/** An API client whose fetch answers from `replies` in turn and records what was sent. */
function scriptedApi(replies: Reply[], pacerOptions: ConstructorParameters<typeof Pacer>[0] = {}) {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    sent.push({
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init?.headers),
      body: init?.body,
    });
    const reply = replies.shift() ?? { status: 500, body: { success: false, errors: [], result: null } };
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    return new Response(text, {
      status: reply.status ?? 200,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  };
  const pacer = new Pacer({ ratePerSecond: 1000, clock: new VirtualClock(), ...pacerOptions });
  const api = new CloudflareApi({
    apiToken: TOKEN,
    accountId: ACCOUNT,
    baseUrl: 'http://127.0.0.1:9/client/v4',
    pacer,
    fetch,
  });
  return { api, pacer, sent };
}

const ok = (result: unknown, resultInfo?: unknown): Reply => ({
  body: {
    success: true,
    errors: [],
    messages: [],
    result,
    ...(resultInfo ? { result_info: resultInfo } : {}),
  },
});

describe('listings', () => {
  it('follows page numbers until the last page that result_info names', async () => {
    const { api, sent } = scriptedApi([
      ok([{ uuid: 'a', name: 'db-a' }], { page: 1, per_page: 1, total_pages: 2, total_count: 2 }),
      ok([{ uuid: 'b', name: 'db-b' }], { page: 2, per_page: 1, total_pages: 2, total_count: 2 }),
    ]);
    expect(await listD1Databases(api)).toEqual([
      { uuid: 'a', name: 'db-a' },
      { uuid: 'b', name: 'db-b' },
    ]);
    expect(sent.map((request) => request.url.searchParams.get('page'))).toEqual(['1', '2']);
  });

  it('stops on an empty page when the answer says nothing about pages', async () => {
    const { api, sent } = scriptedApi([ok([{ id: 'n1', title: 't1' }]), ok([])]);
    expect(await listKvNamespaces(api)).toEqual([{ id: 'n1', title: 't1' }]);
    expect(sent).toHaveLength(2);
  });

  it('follows R2 cursors and container page tokens', async () => {
    const buckets = scriptedApi([
      ok({ buckets: [{ name: 'b1' }] }, { cursor: 'next' }),
      ok({ buckets: [{ name: 'b2' }] }, { cursor: '' }),
    ]);
    expect(await listR2Buckets(buckets.api, 'eu')).toEqual(['b1', 'b2']);
    expect(buckets.sent.map((request) => request.url.searchParams.get('cursor'))).toEqual([null, 'next']);
    expect(buckets.sent.map((request) => request.headers.get('cf-r2-jurisdiction'))).toEqual(['eu', 'eu']);

    const apps = scriptedApi([
      ok([{ id: 'app1', name: 'a', durable_objects: { namespace_id: 'ns1' } }], { next_page_token: 'p2' }),
      ok([{ id: 'app2', name: 'b' }], {}),
    ]);
    expect(await listContainerApplications(apps.api)).toEqual([
      { id: 'app1', name: 'a', namespaceId: 'ns1' },
      { id: 'app2', name: 'b', namespaceId: undefined },
    ]);
    expect(apps.sent[1]?.url.searchParams.get('page_token')).toBe('p2');
  });

  it('ends a listing without totals on a page shorter than the page size the answer names', async () => {
    const { api, sent } = scriptedApi([
      ok(
        [
          { id: 'ns1', class: 'Room', script: 'app', use_sqlite: true },
          { id: 'ns2', class: 'Room', script: 'app', preview: { id: 'p1', slug: 'pr-7', name: 'app-pr-7' } },
        ],
        { page: 1, per_page: 1000, count: 2 },
      ),
    ]);
    expect(await listDurableObjectNamespaces(api)).toEqual([
      { id: 'ns1', className: 'Room', script: 'app', sqlite: true, preview: false },
      { id: 'ns2', className: 'Room', script: 'app', sqlite: false, preview: true },
    ]);
    expect(sent).toHaveLength(1);
  });

  it('sends no jurisdiction header for the default jurisdiction', async () => {
    const { api, sent } = scriptedApi([ok({ rules: [] })]);
    await getR2Lifecycle(api, 'bucket', 'default');
    expect(sent[0]?.headers.has('cf-r2-jurisdiction')).toBe(false);
  });
});

describe('answers that are refused', () => {
  it('treats a null result where one is required as an invalid answer', async () => {
    const { api } = scriptedApi([ok(null)]);
    const error = await callFailureOf(getR2Lifecycle(api, 'bucket', 'default'));
    expect(error.reason).toBe('invalid-answer');
    expect(error.message).toMatch(
      /^r2\.lifecycle\.get: HTTP 200 with an answer that does not match the API \(result: /,
    );
  });

  it('accepts the null and {} that older API versions answer to a bulk delete', async () => {
    const { api } = scriptedApi([ok(null), ok({})]);
    expect(await bulkDeleteKvKeys(api, 'ns', ['a'])).toEqual({ unsuccessful: [] });
    expect(await bulkDeleteKvKeys(api, 'ns', ['a'])).toEqual({ unsuccessful: [] });
  });

  it('refuses a D1 answer without one result per statement', async () => {
    const { api } = scriptedApi([ok([{ results: [], success: true }])]);
    const error = await callFailureOf(queryD1(api, 'db', [{ sql: 'SELECT 1' }, { sql: 'SELECT 2' }]));
    expect(error.reason).toBe('invalid-answer');
    expect(error.message).toMatch(/one result per statement \(2\)/);
  });

  it('reads the error codes of a failed call and never shows the token', async () => {
    const { api } = scriptedApi([
      {
        status: 403,
        body: { success: false, errors: [{ code: 10000, message: 'Authentication error' }], result: null },
      },
    ]);
    const error = await callFailureOf(listWorkerScripts(api));
    expect(error).toMatchObject({ reason: 'api', status: 403, codes: [10000] });
    expect(error.message).toBe('workers.list: HTTP 403, code 10000: Authentication error');
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(TOKEN);
  });
});

describe('a refused exports reconciliation', () => {
  it("keeps meta.details' well-formed entries and names them in the message", async () => {
    const details = [
      { class: 'Room', scenario: 'tombstone_delete_class_still_in_code', message: 'still exported' },
      {
        class: 'Agent',
        scenario: 'tombstone_delete_blocked_by_external_bindings',
        message: 'still bound',
        referencing_scripts: ['router'],
      },
      { scenario: 'no class at all' },
    ];
    const { api } = scriptedApi([
      {
        status: 400,
        body: {
          success: false,
          errors: [{ code: 100402, message: 'reconciliation failed', meta: { details } }],
          result: null,
        },
      },
    ]);
    const error = await callFailureOf(uploadWorker(api, 'app', { main_module: 'parked.js' }, []));
    expect(error.refusals).toEqual([
      {
        class: 'Room',
        scenario: 'tombstone_delete_class_still_in_code',
        message: 'still exported',
        referencingScripts: [],
      },
      {
        class: 'Agent',
        scenario: 'tombstone_delete_blocked_by_external_bindings',
        message: 'still bound',
        referencingScripts: ['router'],
      },
    ]);
    expect(error.message).toBe(
      'workers.upload: HTTP 400, code 100402: reconciliation failed (Room: tombstone_delete_class_still_in_code; Agent: tombstone_delete_blocked_by_external_bindings)',
    );
  });
});

describe('what goes on the wire', () => {
  it('asks for the R2 Data Catalog check on every lifecycle PUT', async () => {
    const { api, sent } = scriptedApi([ok({})]);
    await putR2Lifecycle(api, 'bucket', 'eu', []);
    expect(sent[0]?.headers.get('cf-r2-data-catalog-check')).toBe('true');
    expect(sent[0]?.headers.get('cf-r2-jurisdiction')).toBe('eu');
  });

  it('reads a Worker\'s code only up to the limit: a longer script is "too-large", unread', async () => {
    const form = new FormData();
    form.set(
      'parked.js',
      new File(['export default {}'], 'parked.js', { type: 'application/javascript+module' }),
    );
    const multipart = new Response(form);
    const type = multipart.headers.get('content-type') ?? '';
    const body = await multipart.text();
    const { api } = scriptedApi([
      { body, headers: { 'content-type': type } },
      { body: 'x'.repeat(100), headers: { 'content-type': 'application/javascript' } },
    ]);
    expect(await getWorkerContent(api, 'w', 1024)).toEqual([
      { name: 'parked.js', text: 'export default {}' },
    ]);
    expect(await getWorkerContent(api, 'w', 10)).toBe('too-large');
  });
});

describe("the server's wait", () => {
  it('prefers retry-after-ms, then Retry-After in seconds or as a date', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), now)).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': '9' }), now)).toBe(9000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(now + 4000).toUTCString() }), now)).toBe(4000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it('reaches the pacer through the SDK: a 429 with retry-after-ms is waited out', async () => {
    const { api, pacer } = scriptedApi([
      {
        status: 429,
        body: { success: false, errors: [{ code: 971, message: 'slow down' }], result: null },
        headers: { 'retry-after-ms': '2500' },
      },
      ok([]),
    ]);
    await listWorkerScripts(api);
    expect(pacer.usage()).toMatchObject({ requests: 2, rateLimited: 1, retries: 1, waitedMs: 2500 });
  });
});

describe('the Worker upload', () => {
  it('sends one JSON metadata part and the module as a file, with a multipart boundary', async () => {
    const { api, sent } = scriptedApi([ok({ id: 'w' })]);
    await uploadWorker(api, 'app-preview-1', { main_module: 'parked.js' }, [
      { name: 'parked.js', content: 'export default {}', type: 'application/javascript+module' },
    ]);
    const request = sent[0];
    expect(request?.method).toBe('PUT');
    expect(request?.url.pathname).toBe(`/client/v4/accounts/${ACCOUNT}/workers/scripts/app-preview-1`);
    const form = request?.body;
    if (!(form instanceof FormData)) throw new Error('the upload body is not FormData');
    expect([...form.keys()]).toEqual(['metadata', 'parked.js']);
    const metadata = form.get('metadata');
    const module = form.get('parked.js');
    if (!(metadata instanceof Blob) || !(module instanceof File)) throw new Error('parts are not files');
    expect(metadata.type).toBe('application/json');
    expect(JSON.parse(await metadata.text())).toEqual({ main_module: 'parked.js' });
    expect(module.type).toBe('application/javascript+module');
    // fetch sets multipart/form-data with the boundary itself; the SDK must not force another type.
    expect(request?.headers.get('content-type')).toBeNull();
  });
});

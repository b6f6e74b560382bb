// Every route and error case of the protocol, over raw HTTP against the real Worker in workerd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { slotSchema } from '../../src/semaphore/protocol.ts';
import { expectError, freshPool, newSlotRecord, type RawOptions, raw } from './helpers.ts';

let semaphore: LocalSemaphore;

beforeAll(async () => {
  semaphore = await startLocalSemaphore();
});

afterAll(async () => {
  await semaphore?.stop();
});

const lease = (type: string, slug: string, holder = 'pr-1') => ({ type, slug, holder, leaseMs: 60_000 });

async function addSlots(type: string, ...slugs: string[]): Promise<void> {
  for (const slug of slugs) {
    expect((await raw(semaphore, 'POST', '/api/resources', { body: { type, slug } })).status).toBe(201);
  }
}

describe('auth', () => {
  it('serves GET /api/health without a token', async () => {
    const answer = await raw(semaphore, 'GET', '/api/health', { authorization: null });
    expect(answer).toMatchObject({ status: 200, body: { ok: true, version: '0.1.0' } });
  });

  it('answers 401 without a token, with a wrong token and with another scheme', async () => {
    for (const authorization of [
      null,
      'Bearer wrong',
      `Basic ${semaphore.token}`,
      semaphore.token,
      'Bearer',
    ]) {
      const answer = await raw(semaphore, 'GET', '/api/resources?type=any', { authorization });
      const error = expectError(answer, 401, 'unauthorized');
      expect(error.message).toContain('Authorization: Bearer');
    }
  });

  it('matches the Bearer scheme case-insensitively', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const answer = await raw(semaphore, 'GET', '/api/resources?type=any', {
        authorization: `${scheme} ${semaphore.token}`,
      });
      expect(answer.status).toBe(200);
    }
  });

  it('checks auth before anything else, unknown routes included', async () => {
    const huge = { type: 'Not Valid', slug: 'x'.repeat(70_000) };
    expectError(
      await raw(semaphore, 'POST', '/api/resources', { body: huge, authorization: null }),
      401,
      'unauthorized',
    );
    expectError(await raw(semaphore, 'GET', '/api/nowhere', { authorization: null }), 401, 'unauthorized');
  });
});

describe('local server', () => {
  it('fails to start on a busy port with the reason, instead of waiting forever', async () => {
    const port = Number(new URL(semaphore.url).port);
    await expect(startLocalSemaphore({ port })).rejects.toThrow(`Address already in use (127.0.0.1:${port})`);
    expect((await raw(semaphore, 'GET', '/api/health')).status).toBe(200);
  });
});

describe('request checks', () => {
  it('answers 413 for a body over 64 KiB, before validating it', async () => {
    const huge = { type: 'Not Valid', data: { blob: 'x'.repeat(70_000) } };
    expectError(await raw(semaphore, 'POST', '/api/resources', { body: huge }), 413, 'too_large');
  });

  it('answers 413 when the body has no content-length and grows past 64 KiB', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1;
        if (sent > 5) controller.close();
        else controller.enqueue(chunk);
      },
    });
    expectError(await raw(semaphore, 'POST', '/api/resources', { rawBody: stream }), 413, 'too_large');
  });

  it('accepts a body of exactly 64 KiB as far as size goes', async () => {
    const base = JSON.stringify({ type: 'size-pool', slug: 's-1', data: { pad: '' } });
    const padded = { type: 'size-pool', slug: 's-1', data: { pad: 'x'.repeat(64 * 1024 - base.length) } };
    const answer = await raw(semaphore, 'POST', '/api/resources', { body: padded });
    const error = expectError(answer, 400, 'invalid_request');
    expect(error.issues).toEqual([
      { path: ['data'], message: 'data must be at most 8192 bytes of UTF-8 JSON' },
    ]);
  });

  it('answers 400 with issues for malformed JSON and empty bodies', async () => {
    for (const rawBody of ['{"type":', '', '   ']) {
      const error = expectError(
        await raw(semaphore, 'POST', '/api/resources', { rawBody }),
        400,
        'invalid_request',
      );
      expect(error.message).toContain('not valid JSON');
      expect(error.issues).toEqual([expect.objectContaining({ path: [] })]);
    }
  });

  it('lists every schema violation with its path', async () => {
    const body = {
      type: 'Bad_Type',
      holder: 'a\u0007b',
      leaseMs: 999,
      allowedSlugs: ['s-1', 's-1'],
      extra: 1,
    };
    const error = expectError(
      await raw(semaphore, 'POST', '/api/resources/acquire', { body }),
      400,
      'invalid_request',
    );
    const paths = (error.issues as { path: unknown[] }[]).map((issue) => issue.path.join('.'));
    expect(paths.sort()).toEqual(['', 'allowedSlugs', 'holder', 'leaseMs', 'type']);
    expect(error.message).toContain('leaseMs: leaseMs must be at least 1000');
  });

  it('applies the identifier, holder, leaseMs, data and requestId rules exactly', async () => {
    const type = freshPool('rules');
    await addSlots(type, 'slot-1');
    const accepted = [
      { slug: 'a', holder: 'x' },
      { slug: '1-a', holder: 'Az09-_.:@/'.repeat(20) },
      { slug: 'a'.repeat(63), holder: 'manual-jonas' },
    ];
    for (const { slug, holder } of accepted) {
      const answer = await raw(semaphore, 'POST', '/api/resources/acquire-specific', {
        body: { type, slug, holder, leaseMs: 2_592_000_000, requestId: 'r'.repeat(100) },
      });
      // Valid input: the slot does not exist, which is decided after validation.
      expectError(answer, 404, 'not_found');
    }
    const refused = [
      { slug: '-a' },
      { slug: 'a-' },
      { slug: '123' },
      { slug: 'a'.repeat(64) },
      { slug: 'A' },
      { holder: '' },
      { holder: 'x'.repeat(201) },
      { holder: 'é' },
      { holder: 'tab\there' },
      { holder: 'c1\u0085' },
      { holder: 'del\u007f' },
      { holder: '\ud800' },
      { leaseMs: 2_592_000_001 },
      { leaseMs: 1000.5 },
      { leaseMs: '60000' },
      { requestId: '' },
      { requestId: 'r'.repeat(101) },
      { force: 'yes' },
    ];
    for (const change of refused) {
      const body = { ...lease(type, 'slot-1'), ...change };
      const answer = await raw(semaphore, 'POST', '/api/resources/acquire-specific', { body });
      expect({ change, status: answer.status }).toEqual({ change, status: 400 });
    }
    const data = { blob: 'x'.repeat(8192 - '{"blob":""}'.length) };
    expect(
      (await raw(semaphore, 'POST', '/api/resources', { body: { type, slug: 'fits', data } })).status,
    ).toBe(201);
    const tooBig = { blob: `${data.blob}x` };
    expectError(
      await raw(semaphore, 'POST', '/api/resources', { body: { type, slug: 'too-big', data: tooBig } }),
      400,
      'invalid_request',
    );
    for (const notObject of [[1], 'text', null]) {
      const answer = await raw(semaphore, 'POST', '/api/resources', {
        body: { type, slug: 'x-1', data: notObject },
      });
      expectError(answer, 400, 'invalid_request');
    }
  });

  // Found by a hostile read: any text was a holder, so `рr-1601` (a Cyrillic р), a trailing no-break
  // space, `—` or a sentence rendered like another holder, "no holder", or the dialog's own words.
  it('takes a holder only as a name: ASCII letters, digits and -_.:@/, 1-200 of them', async () => {
    const type = freshPool('holders');
    await addSlots(type, 'slot-1');
    for (const holder of ['pr-1612', 'gc', 'manual-jonas', 'tenant-1', 'ci:depot/main@v2', 'a.b_c']) {
      const answer = await raw(semaphore, 'POST', '/api/resources/acquire', {
        body: { type, holder, leaseMs: 60_000 },
      });
      expect({ holder, status: answer.status }).toEqual({ holder, status: 200 });
      await raw(semaphore, 'POST', '/api/resources/release', { body: { type, slug: 'slot-1', force: true } });
    }
    const lookAlikes = [
      '\u0440r-1601',
      'pr-1601\u00a0',
      'pr-1601\u3000',
      'pr-1601 ',
      '\u2014',
      'pr\u200b-1601',
      "This ends gc's expired lease on preview-9 now. Nothing else is touched;",
    ];
    for (const holder of lookAlikes) {
      for (const [path, body] of [
        ['/api/resources/acquire', { type, holder, leaseMs: 60_000 }],
        ['/api/resources/acquire-specific', { type, slug: 'slot-1', holder, leaseMs: 60_000 }],
      ] as const) {
        const error = expectError(await raw(semaphore, 'POST', path, { body }), 400, 'invalid_request');
        expect(error.message).toContain(
          'holder: holder must be 1-200 characters of ASCII letters, digits and - _ . : @ /, no spaces',
        );
      }
    }
    expect((await raw(semaphore, 'GET', `/api/resources/${type}/slot-1`)).body).toMatchObject({
      holder: null,
    });
  });

  // Found by a hostile read: /api answers carried no nosniff and no framing headers.
  it('sends every /api answer with nosniff, no framing and a CSP that allows nothing, errors included', async () => {
    const type = freshPool('headers');
    await addSlots(type, 'slot-1');
    const calls: [string, string, RawOptions][] = [
      ['GET', '/api/health', {}],
      ['GET', `/api/resources?type=${type}`, {}],
      ['GET', '/api/pools', { authorization: null }],
      ['GET', '/api/nowhere', {}],
      ['POST', '/api/resources/acquire', { body: { type, holder: 'a b', leaseMs: 60_000 } }],
      ['DELETE', `/api/resources/${type}/slot-9?ifGeneration=0`, {}],
    ];
    for (const [method, path, options] of calls) {
      const response = await fetch(`${semaphore.url}${path}`, {
        method,
        headers: {
          ...(options.authorization === null ? {} : { authorization: `Bearer ${semaphore.token}` }),
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
      await response.body?.cancel();
      expect({
        path,
        status: response.status > 0,
        nosniff: response.headers.get('x-content-type-options'),
        frame: response.headers.get('x-frame-options'),
        csp: response.headers.get('content-security-policy'),
        type: response.headers.get('content-type'),
      }).toEqual({
        path,
        status: true,
        nosniff: 'nosniff',
        frame: 'DENY',
        csp: "default-src 'none'; frame-ancestors 'none'",
        type: 'application/json; charset=utf-8',
      });
    }
  });

  it('answers 404 for unknown routes and methods', async () => {
    for (const [method, path] of [
      ['GET', '/api'],
      ['GET', '/api/nowhere'],
      ['PUT', '/api/resources'],
      ['GET', '/api/resources/acquire-specific'],
      ['POST', '/api/resources/pool-a/slot-1'],
      ['DELETE', '/api/resources/pool-a/slot-1/events'],
      ['GET', '/api/resources/pool-a/slot-1/other'],
      ['POST', '/api/health'],
    ] as const) {
      const error = expectError(await raw(semaphore, method, path), 404, 'not_found');
      expect(error.message).toContain(`${method} ${path}`);
    }
  });

  it('validates before looking a slot up, and looks it up before anything else', async () => {
    const type = freshPool('order');
    expectError(await raw(semaphore, 'GET', `/api/resources/${type}/Bad_Slug`), 400, 'invalid_request');
    expectError(await raw(semaphore, 'GET', `/api/resources/${type}/slot-9`), 404, 'not_found');
    expectError(
      await raw(semaphore, 'GET', `/api/resources/${type}/slot-9/events?limit=0`),
      400,
      'invalid_request',
    );
  });
});

describe('slots', () => {
  it('adds a slot with the defaults of a new slot and finds it', async () => {
    const type = freshPool('add');
    const added = await raw(semaphore, 'POST', '/api/resources', { body: { type, slug: 'preview-1' } });
    expect(added.status).toBe(201);
    const slot = slotSchema.parse(added.body);
    expect(slot).toEqual(newSlotRecord(type, 'preview-1', slot.createdAt));
    const found = await raw(semaphore, 'GET', `/api/resources/${type}/preview-1`);
    expect(found).toMatchObject({ status: 200, body: slot });
    const withData = await raw(semaphore, 'POST', '/api/resources', {
      body: { type, slug: 'preview-2', data: { worker: 'app-preview-2', n: 2 } },
    });
    expect(withData.body).toMatchObject({ data: { worker: 'app-preview-2', n: 2 } });
  });

  it('refuses a slot that exists with 409 already_exists', async () => {
    const type = freshPool('dup');
    await addSlots(type, 'preview-1');
    const answer = await raw(semaphore, 'POST', '/api/resources', { body: { type, slug: 'preview-1' } });
    expectError(answer, 409, 'already_exists');
  });

  it('lists by createdAt then slug, with the server clock, and an empty list for an unknown type', async () => {
    const type = freshPool('list');
    await addSlots(type, 'preview-3', 'preview-1', 'preview-2');
    const answer = await raw(semaphore, 'GET', `/api/resources?type=${type}`);
    const body = answer.body as { now: number; resources: { slug: string; createdAt: number }[] };
    const expected = [...body.resources]
      .sort((a, b) => a.createdAt - b.createdAt || a.slug.localeCompare(b.slug))
      .map((slot) => slot.slug);
    expect(body.resources.map((slot) => slot.slug)).toEqual(expected);
    expect(body.resources).toHaveLength(3);
    expect(body.now).toBeGreaterThanOrEqual(Math.max(...body.resources.map((slot) => slot.createdAt)));
    expect((await raw(semaphore, 'GET', `/api/resources?type=${freshPool('nobody')}`)).body).toMatchObject({
      resources: [],
    });
  });

  it('answers 400 for a list without type or with an invalid one', async () => {
    for (const query of ['', '?type=', '?type=Not_A_Pool', '?other=x']) {
      const error = expectError(
        await raw(semaphore, 'GET', `/api/resources${query}`),
        400,
        'invalid_request',
      );
      expect(error.issues).toEqual([expect.objectContaining({ path: ['type'] })]);
    }
  });

  it('deletes available slots at the generation named, refuses a live lease with 409 leased, 404 when unknown', async () => {
    const type = freshPool('delete');
    await addSlots(type, 'preview-1', 'preview-2');
    const missing = expectError(
      await raw(semaphore, 'DELETE', `/api/resources/${type}/preview-1`),
      400,
      'invalid_request',
    );
    expect(missing.message).toContain('the query parameter ifGeneration is required');
    expect(await raw(semaphore, 'DELETE', `/api/resources/${type}/preview-1?ifGeneration=0`)).toMatchObject({
      status: 200,
      body: { deleted: true },
    });
    expectError(await raw(semaphore, 'GET', `/api/resources/${type}/preview-1`), 404, 'not_found');
    expectError(
      await raw(semaphore, 'DELETE', `/api/resources/${type}/preview-1?ifGeneration=0`),
      404,
      'not_found',
    );
    await raw(semaphore, 'POST', '/api/resources/acquire-specific', { body: lease(type, 'preview-2') });
    const refused = expectError(
      await raw(semaphore, 'DELETE', `/api/resources/${type}/preview-2?ifGeneration=1&allowDirty=true`),
      409,
      'leased',
    );
    expect(refused.message).toContain('pr-1');
  });

  // Found by a hostile read: the console showed a slot free and clean; while its dialog was open a
  // pull request took it and the lease lapsed; DELETE had no condition, so the slot left the pool dirty.
  it('removes a slot only as the caller saw it: at its generation, and dirty only with allowDirty', async () => {
    const type = freshPool('delete-seen');
    await addSlots(type, 'preview-1');
    const seen = `/api/resources/${type}/preview-1?ifGeneration=0&note=${encodeURIComponent('shrinking')}`;
    // A pull request takes the slot and gives it back (dirty) while the caller looks.
    const taken = await raw(semaphore, 'POST', '/api/resources/acquire-specific', {
      body: lease(type, 'preview-1'),
    });
    await raw(semaphore, 'POST', '/api/resources/release', {
      body: { type, slug: 'preview-1', leaseId: (taken.body as { leaseId: string }).leaseId },
    });
    const moved = expectError(await raw(semaphore, 'DELETE', seen), 409, 'condition_failed');
    expect(moved.message).toContain('at generation 1, not 0');
    const dirty = expectError(
      await raw(semaphore, 'DELETE', `/api/resources/${type}/preview-1?ifGeneration=1`),
      409,
      'dirty',
    );
    expect(dirty.message).toContain('allowDirty=true');
    expect((await raw(semaphore, 'GET', `/api/resources/${type}/preview-1`)).status).toBe(200);
    expect(
      (await raw(semaphore, 'DELETE', `/api/resources/${type}/preview-1?ifGeneration=1&allowDirty=true`))
        .status,
    ).toBe(200);
    expectError(
      await raw(semaphore, 'DELETE', `/api/resources/${type}/preview-1?ifGeneration=x`),
      400,
      'invalid_request',
    );
  });

  it('answers 404 for every slot operation on an unknown slug', async () => {
    const type = freshPool('unknown');
    const leaseId = '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10';
    for (const [path, body] of [
      ['/api/resources/acquire-specific', lease(type, 'nope')],
      ['/api/resources/renew', { type, slug: 'nope', leaseId, leaseMs: 60_000 }],
      ['/api/resources/release', { type, slug: 'nope', leaseId }],
      ['/api/resources/release', { type, slug: 'nope', force: true }],
    ] as const) {
      expectError(await raw(semaphore, 'POST', path, { body }), 404, 'not_found');
    }
    expectError(await raw(semaphore, 'GET', `/api/resources/${type}/nope/events`), 404, 'not_found');
  });

  it('answers 409 none_available when acquire has no candidate', async () => {
    const type = freshPool('none');
    expectError(
      await raw(semaphore, 'POST', '/api/resources/acquire', {
        body: { type, holder: 'pr-1', leaseMs: 60_000 },
      }),
      409,
      'none_available',
    );
    await addSlots(type, 'preview-1');
    const body = { type, holder: 'pr-1', leaseMs: 60_000, allowedSlugs: ['preview-2'] };
    expectError(await raw(semaphore, 'POST', '/api/resources/acquire', { body }), 409, 'none_available');
  });

  it('requires exactly one of leaseId and force: true to release', async () => {
    const type = freshPool('release-rules');
    await addSlots(type, 'preview-1');
    const leaseId = '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10';
    for (const body of [
      { type, slug: 'preview-1' },
      { type, slug: 'preview-1', force: false },
      { type, slug: 'preview-1', clean: true },
      { type, slug: 'preview-1', leaseId, force: true },
      { type, slug: 'preview-1', leaseId: 'not-a-uuid' },
    ]) {
      expectError(await raw(semaphore, 'POST', '/api/resources/release', { body }), 400, 'invalid_request');
    }
    const withFalseForce = await raw(semaphore, 'POST', '/api/resources/release', {
      body: { type, slug: 'preview-1', leaseId, force: false },
    });
    expect(withFalseForce).toMatchObject({
      status: 200,
      body: { released: false, dirty: false, holder: null, generation: 0, conditionFailed: false },
    });
  });
});

describe('events', () => {
  it('answers newest first, honours limit, and refuses a limit outside 1-500', async () => {
    const type = freshPool('events');
    await addSlots(type, 'preview-1');
    for (let round = 0; round < 3; round += 1) {
      const acquired = await raw(semaphore, 'POST', '/api/resources/acquire-specific', {
        body: lease(type, 'preview-1', `pr-${round}`),
      });
      const { leaseId } = acquired.body as { leaseId: string };
      await raw(semaphore, 'POST', '/api/resources/release', { body: { type, slug: 'preview-1', leaseId } });
    }
    const all = await raw(semaphore, 'GET', `/api/resources/${type}/preview-1/events`);
    const events = (all.body as { events: { event: string; generation: number }[] }).events;
    expect(events.map((event) => event.event)).toEqual([
      'released',
      'acquired',
      'released',
      'acquired',
      'released',
      'acquired',
      'added',
    ]);
    expect(events.map((event) => event.generation)).toEqual([3, 3, 2, 2, 1, 1, 0]);
    const two = await raw(semaphore, 'GET', `/api/resources/${type}/preview-1/events?limit=2`);
    expect((two.body as { events: unknown[] }).events).toEqual(events.slice(0, 2));
    for (const limit of ['0', '501', '-1', '1.5', 'ten', '']) {
      const answer = await raw(semaphore, 'GET', `/api/resources/${type}/preview-1/events?limit=${limit}`);
      expectError(answer, 400, 'invalid_request');
    }
    expect((await raw(semaphore, 'GET', `/api/resources/${type}/preview-1/events?limit=500`)).status).toBe(
      200,
    );
  });
});

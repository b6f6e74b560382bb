import { describe, expect, it, vi } from 'vitest';
import { CloudflareCallError } from '../../src/cloudflare/call-error.ts';
import type { CloudflareApi } from '../../src/cloudflare/client.ts';
import {
  type AttemptContext,
  Pacer,
  type PacerClock,
  type PacerOptions,
} from '../../src/cloudflare/pacer.ts';
import { NameResolver } from '../../src/cloudflare/resolver.ts';
import { callFailureOf } from './call-failure.ts';

/** A clock whose sleeps return at once and move time forward; no real waiting in these tests. */
class FakeClock implements PacerClock {
  time = 0;
  randomValue = 0.5;
  sleeps: number[] = [];
  /** When set, a sleep hangs until its signal aborts (to test aborting a wait). */
  hangSleeps = false;
  now(): number {
    return this.time;
  }
  random(): number {
    return this.randomValue;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (this.hangSleeps) {
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    }
    this.time += ms;
    return Promise.resolve();
  }
}

function setup(options: PacerOptions = {}) {
  const clock = new FakeClock();
  const pacer = new Pacer({ ratePerSecond: 1000, clock, ...options });
  return { clock, pacer };
}

function apiError(status: number, retryAfterMs?: number): CloudflareCallError {
  return new CloudflareCallError(
    { kind: 'test', reason: 'api', status, retryAfterMs, codes: [971] },
    `HTTP ${status}`,
  );
}

/** An attempt function that fails with the given errors in turn, then answers 'ok'; records start times. */
function scripted(clock: FakeClock, failures: CloudflareCallError[]) {
  const starts: number[] = [];
  const attempt = async (_context: AttemptContext) => {
    starts.push(clock.now());
    const failure = failures.shift();
    if (failure) throw failure;
    return 'ok';
  };
  return { starts, attempt };
}

describe('Pacer', () => {
  it('spaces requests at the steady rate', async () => {
    const { clock, pacer } = setup({ ratePerSecond: 2 });
    const { starts, attempt } = scripted(clock, []);
    for (let i = 0; i < 5; i++) await pacer.call('d1.query', attempt);
    expect(starts).toEqual([0, 500, 1000, 1500, 2000]);
    expect(pacer.usage()).toMatchObject({ requests: 5, waitedMs: 2000, byKind: { 'd1.query': 5 } });
  });

  it('lets a call start at once when the last one was long enough ago', async () => {
    const { clock, pacer } = setup({ ratePerSecond: 3 });
    const { starts, attempt } = scripted(clock, []);
    await pacer.call('a', attempt);
    clock.time = 10_000;
    await pacer.call('a', attempt);
    expect(starts).toEqual([0, 10_000]);
    expect(pacer.usage().waitedMs).toBe(0);
  });

  it('refuses a call once the budget is used, without sending it', async () => {
    const { clock, pacer } = setup({ budget: 3 });
    const { starts, attempt } = scripted(clock, []);
    for (let i = 0; i < 3; i++) await pacer.call(i === 0 ? 'kv.keys.list' : 'kv.bulkDelete', attempt);
    const error = await callFailureOf(pacer.call('kv.bulkDelete', attempt));
    expect(error.reason).toBe('budget');
    expect(error.message).toBe('kv.bulkDelete: the request budget of 3 for this run is used up');
    expect(starts).toHaveLength(3);
    expect(pacer.usage()).toEqual({
      requests: 3,
      byKind: { 'kv.keys.list': 1, 'kv.bulkDelete': 2 },
      rateLimited: 0,
      retries: 0,
      waitedMs: expect.any(Number),
      budget: 3,
      budgetLeft: 0,
    });
  });

  it('counts retries against the budget', async () => {
    const { clock, pacer } = setup({ budget: 2 });
    const { attempt } = scripted(clock, [apiError(503), apiError(503)]);
    const error = await callFailureOf(pacer.call('r2.lifecycle.get', attempt));
    expect(error.reason).toBe('budget');
    expect(pacer.usage()).toMatchObject({ requests: 2, retries: 1 });
  });

  it('honours a 429 wait under the cap, for this and every later call', async () => {
    const { clock, pacer } = setup({ ratePerSecond: 1000 });
    const { starts, attempt } = scripted(clock, [apiError(429, 5000)]);
    expect(await pacer.call('d1.list', attempt)).toBe('ok');
    expect(starts).toEqual([0, 5000]);
    expect(pacer.usage()).toMatchObject({ requests: 2, rateLimited: 1, retries: 1, waitedMs: 5000 });
  });

  it('honours a server-given wait on a 5xx too', async () => {
    const { clock, pacer } = setup();
    const { starts, attempt } = scripted(clock, [apiError(503, 2000)]);
    await pacer.call('a', attempt);
    expect(starts).toEqual([0, 2000]);
    expect(pacer.usage()).toMatchObject({ rateLimited: 0, retries: 1 });
  });

  it('uses the backoff when a 429 names no wait or a zero wait', async () => {
    const { clock, pacer } = setup();
    clock.randomValue = 0;
    const { starts, attempt } = scripted(clock, [apiError(429), apiError(429, 0)]);
    await pacer.call('a', attempt);
    expect(starts).toEqual([0, 250, 750]);
  });

  it('fails at once as rate-limited when the wait is over the cap, and holds back later calls', async () => {
    const { clock, pacer } = setup({ retryAfterCapMs: 60_000 });
    const { starts, attempt } = scripted(clock, [apiError(429, 300_000)]);
    const error = await callFailureOf(pacer.call('kv.keys.list', attempt));
    expect(error.reason).toBe('rate-limited');
    expect(error.status).toBe(429);
    expect(error.message).toMatch(/asked to wait 300 s, more than the cap of 60 s/);
    expect(clock.sleeps).toEqual([]);

    const later = await callFailureOf(pacer.call('kv.bulkDelete', attempt));
    expect(later.reason).toBe('rate-limited');
    expect(later.message).toMatch(/for another 300 s/);
    expect(starts).toHaveLength(1);

    clock.time += 300_000;
    expect(await pacer.call('kv.bulkDelete', attempt)).toBe('ok');
    expect(pacer.usage()).toMatchObject({ requests: 2, rateLimited: 1, waitedMs: 0 });
  });

  it('gives up as rate-limited after four 429s', async () => {
    const { clock, pacer } = setup();
    const { starts, attempt } = scripted(
      clock,
      [1, 2, 3, 4].map(() => apiError(429, 1000)),
    );
    const error = await callFailureOf(pacer.call('a', attempt));
    expect(error.reason).toBe('rate-limited');
    expect(error.message).toMatch(/gave up after 4 attempts/);
    // The third retry's backoff (1-2 s, here 1.5 s) is longer than the server's 1 s: the longer wins.
    expect(starts).toEqual([0, 1000, 2000, 3500]);
    expect(pacer.usage()).toMatchObject({ requests: 4, rateLimited: 4, retries: 3 });
  });

  it('retries 5xx with jittered exponential backoff inside its bounds', async () => {
    for (const [random, expected] of [
      [0, [250, 500, 1000]],
      [0.999_999, [500, 1000, 2000]],
    ] as const) {
      const { clock, pacer } = setup();
      clock.randomValue = random;
      const { attempt } = scripted(clock, [apiError(500), apiError(502), apiError(503), apiError(504)]);
      const error = await callFailureOf(pacer.call('d1.query', attempt));
      expect(error.reason).toBe('api');
      expect(error.status).toBe(504);
      expect(error.message).toMatch(/^test: gave up after 4 attempts \(HTTP 504\)$/);
      expect(clock.sleeps.map(Math.round)).toEqual(expected);
    }
  });

  it('keeps the backoff at 8 s at most', () => {
    const { clock, pacer } = setup({ maxAttempts: 10 });
    clock.randomValue = 0.999_999;
    expect(Math.round(pacer.backoffMs(9))).toBe(8000);
    clock.randomValue = 0;
    expect(pacer.backoffMs(9)).toBe(4000);
  });

  it('retries network errors and timeouts, and fails them with their own reason at the end', async () => {
    const { clock, pacer } = setup();
    const reset = new CloudflareCallError({ kind: 'a', reason: 'network' }, 'connection reset');
    const timeout = new CloudflareCallError({ kind: 'a', reason: 'timeout' }, 'no answer within 30 s');
    const recovered = scripted(clock, [reset, timeout]);
    expect(await pacer.call('a', recovered.attempt)).toBe('ok');
    expect(recovered.starts).toHaveLength(3);

    const exhausted = scripted(clock, [timeout, timeout, timeout, timeout]);
    expect((await callFailureOf(pacer.call('a', exhausted.attempt))).reason).toBe('timeout');
  });

  it('does not retry client errors, refused answers or success:false', async () => {
    for (const failure of [
      apiError(400),
      apiError(404),
      apiError(409),
      new CloudflareCallError({ kind: 'a', reason: 'api', status: 200 }, 'success: false'),
      new CloudflareCallError({ kind: 'a', reason: 'invalid-answer', status: 200 }, 'not JSON'),
    ]) {
      const { clock, pacer } = setup();
      const { starts, attempt } = scripted(clock, [failure]);
      expect(await callFailureOf(pacer.call('a', attempt))).toBe(failure);
      expect(starts).toHaveLength(1);
    }
  });

  it('starts nothing after the deadline and does not wait past it', async () => {
    const { clock, pacer } = setup({ ratePerSecond: 1, deadlineAt: 1500 });
    const { starts, attempt } = scripted(clock, []);
    await pacer.call('a', attempt);
    await pacer.call('a', attempt);
    const error = await callFailureOf(pacer.call('a', attempt));
    expect(error.reason).toBe('deadline');
    expect(starts).toEqual([0, 1000]);

    const retrying = setup({ deadlineAt: 3000 });
    const script = scripted(retrying.clock, [apiError(429, 5000)]);
    expect((await callFailureOf(retrying.pacer.call('a', script.attempt))).reason).toBe('deadline');
    expect(retrying.clock.sleeps).toEqual([]);
  });

  it('aborts a wait at once', async () => {
    const controller = new AbortController();
    const { clock, pacer } = setup({ signal: controller.signal });
    clock.hangSleeps = true;
    const { attempt } = scripted(clock, [apiError(503)]);
    const pending = callFailureOf(pacer.call('a', attempt));
    controller.abort();
    expect((await pending).reason).toBe('aborted');
  });

  it('hands the signal to the attempt and reports an abort in flight as aborted', async () => {
    const controller = new AbortController();
    const { pacer } = setup({ signal: controller.signal, timeoutMs: 1234 });
    let seen: AttemptContext | undefined;
    const pending = callFailureOf(
      pacer.call('workers.upload', (context) => {
        seen = context;
        return new Promise((_, reject) =>
          context.signal.addEventListener('abort', () =>
            reject(new CloudflareCallError({ kind: 'workers.upload', reason: 'network' }, 'socket closed')),
          ),
        );
      }),
    );
    await vi.waitFor(() => expect(seen).toBeDefined());
    controller.abort();
    const error = await pending;
    expect(error.reason).toBe('aborted');
    expect(seen).toMatchObject({ timeoutMs: 1234, attempt: 1 });
    expect((await callFailureOf(pacer.call('a', async () => 'never'))).reason).toBe('aborted');
  });

  it('rethrows errors that are not Cloudflare call failures untouched', async () => {
    const { pacer } = setup();
    const bug = new TypeError('x is undefined');
    await expect(
      pacer.call('a', async () => {
        throw bug;
      }),
    ).rejects.toBe(bug);
    expect(pacer.usage().retries).toBe(0);
  });

  // Slots erased in parallel share the run's pacer: each renews its own lease inside a long step and
  // reports its own requests.
  it("runs each erase's guard before the calls made within it only, and counts its requests apart", async () => {
    const { pacer } = setup();
    const log: string[] = [];
    const erase = (slot: string, calls: number) =>
      pacer.eraseWithin(
        async () => {
          for (let i = 0; i < calls; i++)
            await pacer.call('kv.bulkDelete', async () => log.push(`delete ${slot}`));
          return pacer.requestsSoFar();
        },
        async () => {
          log.push(`renew ${slot}`);
        },
      );
    const list = pacer.call('d1.list', async () => log.push('list'));
    const [a, b] = await Promise.all([erase('a', 3), erase('b', 2), list]);
    for (const [slot, calls] of [
      ['a', 3],
      ['b', 2],
    ] as const) {
      const own = log.filter((line) => line.endsWith(` ${slot}`));
      expect(own).toEqual(Array.from({ length: calls }, () => [`renew ${slot}`, `delete ${slot}`]).flat());
    }
    expect(log.filter((line) => line.startsWith('renew'))).toHaveLength(5);
    expect([a, b]).toEqual([3, 2]);
    expect(pacer.requestsSoFar()).toBe(6);
  });

  it("lets a slot have the listing another slot started, even when that slot's lease is lost", async () => {
    const { pacer } = setup();
    const resolver = new NameResolver({ pacer } as unknown as CloudflareApi);
    let pages = 0;
    const listing = () =>
      resolver.listing('durable-objects', async () => {
        for (let page = 0; page < 3; page++) await pacer.call('workers.scripts.list', async () => pages++);
        return ['shop-preview-1', 'shop-preview-2'];
      });
    const lost = pacer.eraseWithin(listing, async () => {
      throw new Error('slot a lost its lease');
    });
    const fine = pacer.eraseWithin(async () => {
      const names = await listing();
      return { names, requests: pacer.requestsSoFar() };
    });
    // The listing goes out once, counted for the run and for neither slot.
    expect(await fine).toEqual({ names: ['shop-preview-1', 'shop-preview-2'], requests: 0 });
    expect(await lost).toEqual(['shop-preview-1', 'shop-preview-2']);
    expect([pages, pacer.requestsSoFar()]).toEqual([3, 3]);
  });

  it('renews no lease for a call that may not start: on SIGTERM the releases go first', async () => {
    const controller = new AbortController();
    const { pacer } = setup({ signal: controller.signal });
    const renewed: string[] = [];
    controller.abort();
    const call = pacer.eraseWithin(
      () => pacer.call('kv.bulkDelete', async () => 'sent'),
      async () => {
        renewed.push('renew');
      },
    );
    expect((await callFailureOf(call)).reason).toBe('aborted');
    expect(renewed).toEqual([]);
  });
});

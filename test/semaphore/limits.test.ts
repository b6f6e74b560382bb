// Server-side limits against the real Worker in workerd: data nesting refused before anything is
// written, a command that fails after its writes leaves none of them, and a full pool whose listing
// still fits one answer.
import { describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { MAX_DATA_BYTES, MAX_DATA_DEPTH, MAX_SLOTS_PER_POOL } from '../../src/semaphore/protocol.ts';
import { TEST_FAULT_ROUTE } from '../../src/semaphore/worker/test-fault.ts';
import { expectError, freshPool, raw, semaphoreErrorOf, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile({ testClock: true });

const HOUR = 3_600_000;

/** The JSON of `{ a: [[…]] }` nesting `depth` levels, the data object included (text: too deep to stringify). */
const nested = (depth: number): string => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

/** The next command of the pool fails after it wrote (test-fault.ts). */
async function failNextCommand(type: string): Promise<void> {
  const answer = await raw(local.semaphore, 'POST', TEST_FAULT_ROUTE, { body: { type } });
  expect(answer.status).toBe(200);
}

describe.concurrent('data nesting', () => {
  it(`accepts ${MAX_DATA_DEPTH} levels and refuses deeper data with 400 before anything is written`, async () => {
    const type = freshPool('depth');
    expect(
      await local.client.add({ type, slug: 'deep-ok', data: JSON.parse(nested(MAX_DATA_DEPTH)) }),
    ).toMatchObject({
      slug: 'deep-ok',
    });
    // 2,000 levels once answered 500 after the slot was created; 30,000 fill most of a 64 KiB body.
    for (const depth of [MAX_DATA_DEPTH + 1, 2_000, 30_000]) {
      const answer = await raw(local.semaphore, 'POST', '/api/resources', {
        rawBody: `{"type":"${type}","slug":"deep-${depth}","data":${nested(depth)}}`,
      });
      const error = expectError(answer, 400, 'invalid_request');
      expect(error.message).toContain(
        `data must nest objects and arrays at most ${MAX_DATA_DEPTH} levels deep`,
      );
    }
    expect((await local.client.list(type)).resources.map((slot) => slot.slug)).toEqual(['deep-ok']);
  });
});

// Not concurrent: the armed fault fails the pool's next command, and listing the pools
// (GET /api/pools, which the add test calls) runs a command on every pool. Run side by side, the
// other test's listing took this test's fault.
describe('a command that fails after it wrote', () => {
  // One attempt: the client would otherwise retry a retryable call, and the retry succeed.
  const once = () =>
    new SemaphoreClient({ baseUrl: local.semaphore.url, token: local.semaphore.token, maxAttempts: 1 });

  it('leaves no slot, no event and no pool behind when an add fails', async () => {
    const type = freshPool('failed-add');
    await failNextCommand(type);
    const error = await semaphoreErrorOf(local.client.add({ type, slug: 'preview-1' }));
    expect(error).toMatchObject({ status: 500, code: 'internal' });
    expect((await local.client.list(type)).resources).toEqual([]);
    expect((await local.client.pools()).pools.map((pool) => pool.type)).not.toContain(type);
    await expect(local.client.events(type, 'preview-1')).rejects.toMatchObject({ code: 'not_found' });
    expect(await local.client.add({ type, slug: 'preview-1' })).toMatchObject({ generation: 0 });
  });

  it('leaves the slot, its events and the request id as they were when an acquire or a release fails', async () => {
    const type = freshPool('failed-acquire');
    await local.client.add({ type, slug: 'preview-1' });
    const before = await local.client.find(type, 'preview-1');
    const eventsBefore = await local.client.events(type, 'preview-1');
    const input = { type, slug: 'preview-1', holder: 'gc', leaseMs: HOUR, requestId: 'sweep-1' };

    await failNextCommand(type);
    await semaphoreErrorOf(once().acquireSpecific(input));
    expect(await local.client.find(type, 'preview-1')).toEqual(before);
    expect(await local.client.events(type, 'preview-1')).toEqual(eventsBefore);
    // The request id was not remembered: the same id now takes a new lease, generation 1.
    const lease = await local.client.acquireSpecific(input);
    expect(lease).toMatchObject({ generation: 1, holder: 'gc' });

    const leased = await local.client.find(type, 'preview-1');
    await failNextCommand(type);
    await semaphoreErrorOf(
      once().release({ type, slug: 'preview-1', leaseId: lease?.leaseId ?? '', clean: true }),
    );
    expect(await local.client.find(type, 'preview-1')).toEqual(leased);
  });
});

describe('a full pool', () => {
  it(`holds ${MAX_SLOTS_PER_POOL} slots of ${MAX_DATA_BYTES} bytes of data, lists them in one answer, and refuses one more`, async () => {
    const type = freshPool('full');
    const data = { blob: '' };
    data.blob = 'x'.repeat(MAX_DATA_BYTES - JSON.stringify(data).length);
    for (let start = 0; start < MAX_SLOTS_PER_POOL; start += 64) {
      await Promise.all(
        Array.from({ length: 64 }, (_, offset) =>
          local.client.add({ type, slug: `preview-${start + offset + 1}`, data }),
        ),
      );
    }
    const { resources } = await local.client.list(type);
    expect(resources).toHaveLength(MAX_SLOTS_PER_POOL);
    const error = await semaphoreErrorOf(local.client.add({ type, slug: 'one-more', data }));
    expect(error).toMatchObject({ status: 409, code: 'limit_reached' });
    expect(error.message).toContain(`has ${MAX_SLOTS_PER_POOL} slots, the most a pool may have`);
    expect((await local.client.pools()).pools).toContainEqual({
      type,
      slots: MAX_SLOTS_PER_POOL,
      leased: 0,
      expired: 0,
      dirty: 0,
    });
  }, 60_000);
});

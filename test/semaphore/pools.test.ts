// GET /api/pools: every pool that has a slot, with its counts, kept by the pool registry. Against the
// real Worker in workerd: its own semaphore (the listing spans every pool), and a persisted one.
import { describe, expect, it } from 'vitest';
import { advanceClock } from '../support/test-clock.ts';
import { acrossRestart, raw, removeAsItIs, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile({ testClock: true });

const HOUR = 3_600_000;

describe('pools listing', () => {
  it('lists each pool with a slot, by name, with slots, leased, expired and dirty as the pool has them', async () => {
    const { client } = local;
    expect((await client.pools()).pools).toEqual([]);
    for (const slug of ['preview-1', 'preview-2', 'preview-3']) await client.add({ type: 'web', slug });
    await client.add({ type: 'api', slug: 'api-1', dirty: true });
    await client.acquireSpecific({ type: 'web', slug: 'preview-1', holder: 'pr-1', leaseMs: 1_000 });
    await client.acquireSpecific({ type: 'web', slug: 'preview-2', holder: 'pr-2', leaseMs: HOUR });
    await advanceClock(local.semaphore, 'web', 2_000);

    const before = Date.now();
    const answer = await client.pools();
    expect(answer.now).toBeGreaterThanOrEqual(before);
    expect(answer.pools).toEqual([
      { type: 'api', slots: 1, leased: 0, expired: 0, dirty: 1 },
      { type: 'web', slots: 3, leased: 2, expired: 1, dirty: 2 },
    ]);

    // A pool whose last slot goes leaves the listing; adding one brings it back.
    await removeAsItIs(client, 'api', 'api-1');
    expect((await client.pools()).pools.map((pool) => pool.type)).toEqual(['web']);
    await client.add({ type: 'api', slug: 'api-2' });
    expect((await client.pools()).pools.map((pool) => pool.type)).toEqual(['api', 'web']);
  });

  it('needs the token like every other route', async () => {
    const answer = await raw(local.semaphore, 'GET', '/api/pools', { authorization: null });
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain('web');
  });
});

describe('pools listing across a restart', () => {
  it('still lists the pools of a persisted semaphore after it restarts', async () => {
    await acrossRestart(
      async (client) => {
        await client.add({ type: 'kept', slug: 'preview-1' });
      },
      async (client) => {
        expect((await client.pools()).pools).toEqual([
          { type: 'kept', slots: 1, leased: 0, expired: 0, dirty: 0 },
        ]);
      },
    );
  });
});

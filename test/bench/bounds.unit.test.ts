// The benchmark's yardstick: the fewest requests an erase can make, from the slot's data. The numbers
// the bench prints are only as good as this arithmetic.
import { describe, expect, it } from 'vitest';
import {
  kvEraseRequests,
  listingPages,
  requestsByStep,
  resolutionLowerBound,
  semaphoreLowerBound,
  sequentialLatencyMs,
  slotLowerBound,
  stepOfKind,
} from '../../bench/bounds.ts';
import { accountShape, slotShape } from '../../bench/shape.ts';
import { DEMO_CONFIG_PATH, demoSlugs, demoTwinSeed } from '../../demo/fixture.ts';
import { loadSlotConfig } from '../../src/config/slot-config.ts';
import { createTwinAccount } from '../twin/twin.ts';

describe('KV: one listing per 1,000 keys, a final empty one, one bulk delete per 10,000', () => {
  it.each([
    [0, 1],
    [1, 3],
    [999, 3],
    [1_000, 3],
    [1_001, 4],
    [1_500, 4],
    [10_000, 12],
    [10_001, 14],
    [25_000, 29],
  ])('%i keys: %i requests', (keys, requests) => {
    expect(kvEraseRequests(keys)).toBe(requests);
  });
});

describe('slotLowerBound', () => {
  it('counts an upload per Worker, 1 or 2 per database, the KV arithmetic and 1 or 2 per bucket', () => {
    expect(
      slotLowerBound({
        workers: 1,
        d1Databases: [{ hasRows: true }, { hasRows: false }],
        kvKeys: [1_500, 0],
        r2Buckets: [{ rulesChange: true }, { rulesChange: false }],
      }),
    ).toEqual({ compute: 1, d1: 3, kv: 5, r2: 3 });
  });

  it('gives 11 for a slot of the demo pool, read from the seeded account', async () => {
    const config = await loadSlotConfig(DEMO_CONFIG_PATH);
    const state = createTwinAccount({ seed: demoTwinSeed(demoSlugs(2)) }).state();
    const shape = slotShape(state, config, 'preview-2');
    expect(shape).toEqual({
      workers: 1,
      d1Databases: [{ hasRows: true }],
      kvKeys: [1_500],
      r2Buckets: [{ rulesChange: true }, { rulesChange: true }],
    });
    expect(slotLowerBound(shape)).toEqual({ compute: 1, d1: 2, kv: 4, r2: 4 });
    // Workers, D1, KV, DO namespaces and containers: one page each for two slots.
    expect(resolutionLowerBound(accountShape(state))).toBe(5);
  });
});

describe('resolutionLowerBound', () => {
  it('pages each listing, and an empty listing still costs its request', () => {
    expect(listingPages(0, 1_000)).toBe(1);
    expect(listingPages(1_000, 1_000)).toBe(1);
    expect(listingPages(1_001, 1_000)).toBe(2);
    // 200 slots: 600 DO namespaces fit one page, 200 container applications take two of 100.
    expect(
      resolutionLowerBound({
        d1Databases: 200,
        kvNamespaces: 200,
        durableObjectNamespaces: 600,
        containerApplications: 200,
      }),
    ).toBe(6);
  });
});

describe('the semaphore and time bounds', () => {
  it('one listing a run, an acquire and a release a slot', () => {
    expect(semaphoreLowerBound(0)).toBe(1);
    expect(semaphoreLowerBound(9)).toBe(19);
  });

  it('requests times their latency, one after another', () => {
    expect(sequentialLatencyMs(114, 50, 65, 20)).toBe(7_000);
  });
});

describe('requestsByStep', () => {
  it('puts every request kind of the pacer under its erase step or name resolution', () => {
    expect(
      requestsByStep({
        'workers.list': 1,
        'do.namespaces.list': 1,
        'containers.list': 1,
        'workers.upload': 5,
        'd1.list': 1,
        'd1.query': 15,
        'kv.namespaces.list': 1,
        'kv.keys.list': 15,
        'kv.bulkDelete': 5,
        'r2.buckets.list': 1,
        'r2.lifecycle.get': 10,
        'r2.lifecycle.put': 10,
      }),
    ).toEqual({ compute: 5, d1: 15, kv: 20, r2: 20, resolution: 6 });
  });

  it('refuses a kind it does not know, so a new request kind is never silently left out', () => {
    expect(() => stepOfKind('queues.list')).toThrow(/belongs to no erase step/);
  });
});

// The spend read (src/spend/) against the twin's GraphQL Analytics API over loopback: one query for the
// whole pool, its rows placed slot by slot (a namespace by the invocations that name its Worker), the
// dollars at the dated prices, and what a person sees when Cloudflare refuses or fails the query.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CloudflareCallError } from '../../src/cloudflare/call-error.ts';
import { Pacer } from '../../src/cloudflare/pacer.ts';
import { loadSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import { windowEndingAt } from '../../src/spend/activity.ts';
import { usdPerHour } from '../../src/spend/estimate.ts';
import { createSpendSource } from '../../src/spend/source.ts';
import { SLOTS_CONFIG_PATH } from '../support/action-stack.ts';
import { slotSeed } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SLUGS = ['s-1', 's-2'];
const NOW = Date.parse('2026-12-01T12:02:30Z');
const WINDOW = windowEndingAt(NOW);
const HOUR = { from: WINDOW.from, until: WINDOW.until };

let twin: Twin;
let config: SlotConfig;

const namespaceOf = (script: string) =>
  twin.state().durableObjectNamespaces.find((namespace) => namespace.script === script)?.id ?? '';

function source(token = twin.token, pacer = new Pacer({ ratePerSecond: 50 })) {
  return {
    pacer,
    spend: createSpendSource(config, {
      apiToken: token,
      accountId: twin.accountId,
      baseUrl: twin.baseUrl,
      pacer,
    }),
  };
}

beforeAll(async () => {
  config = await loadSlotConfig(SLOTS_CONFIG_PATH);
  twin = await startTwin({
    seed: {
      ...slotSeed(config, SLUGS),
      workers: [
        ...(slotSeed(config, SLUGS).workers ?? []),
        { name: 'shop-production', migrationTag: 'v1', classes: [{ name: 'Cart', sqlite: true }] },
      ],
    },
  });
});

afterAll(() => twin?.close());

beforeEach(() => {
  twin.account.analytics.clear();
  twin.resetRequests();
});

describe('the spend read', () => {
  it("asks once for every slot's last hour and prices each slot's Workers and Durable Objects", async () => {
    twin.account.analytics.add({
      script: 'rel-s-1',
      ...HOUR,
      perMinute: { requests: 100, cpuTimeUs: 2_000 },
    });
    twin.account.analytics.add({
      script: 'rel-s-1',
      namespaceId: namespaceOf('rel-s-1'),
      ...HOUR,
      perMinute: { alarms: 6, activeSeconds: 60, rowsWritten: 10, storedBytes: 2e9 },
    });
    // Production's namespace spends too, and is no slot's.
    twin.account.analytics.add({
      script: 'shop-production',
      namespaceId: namespaceOf('shop-production'),
      ...HOUR,
      perMinute: { requests: 500, activeSeconds: 600 },
    });
    const { spend, pacer } = source();

    const reading = await spend.read(SLUGS, WINDOW, { explainAboveUsd: 1 });

    expect(twin.requests().map((request) => request.route)).toEqual(['POST /graphql']);
    expect(pacer.usage().byKind).toEqual({ 'analytics.graphql': 1 });
    const s1 = reading.slots.get('s-1');
    expect(s1?.figures).toEqual({
      workerRequests: 6_000,
      workerSubrequests: 0,
      workerCpuMs: 12_000,
      objectRequests: 360,
      alarms: 360,
      websocketMessages: 0,
      activeSeconds: 3_600,
      gbSeconds: expect.closeTo(460.8, 6),
      rowsRead: 0,
      rowsWritten: 600,
      storedBytes: 2e9,
    });
    // 6,000 requests, 12,000 CPU-ms, 360 alarms, 460.8 GB-s, 600 rows written, 2 GB stored for an hour.
    const expected =
      6_000 * 0.3e-6 + 12_000 * 0.02e-6 + 360 * 0.15e-6 + 460.8 * 12.5e-6 + 600 * 1e-6 + (2 * 0.2) / 730;
    expect(usdPerHour(s1?.figures ?? ({} as never))).toBeCloseTo(expected, 9);
    expect(s1?.buckets).toHaveLength(12);
    expect(s1?.buckets.map((bucket) => bucket.alarms)).toEqual(Array(12).fill(30));
    expect(s1?.namespaces.map((namespace) => namespace.namespaceId)).toEqual([namespaceOf('rel-s-1')]);
    expect(reading.slots.get('s-2')?.figures.objectRequests).toBe(0);
    expect(reading.unexplained).toEqual({ namespaces: 0, usdPerHour: 0 });
  });

  it("prices a Worker's CPU as Cloudflare bills it: every request's CPU time summed, not requests × the median", async () => {
    // A thousand cheap requests a minute and one expensive one: the median is the cheap one's 1 ms.
    twin.account.analytics.add({
      script: 'rel-s-2',
      ...HOUR,
      perMinute: { requests: 1_000, cpuTimeUs: 1_000 },
    });
    twin.account.analytics.add({
      script: 'rel-s-2',
      ...HOUR,
      perMinute: { requests: 1, cpuTimeUs: 500_000 },
    });

    const reading = await source().spend.read(SLUGS, WINDOW, { explainAboveUsd: 1 });

    const figures = reading.slots.get('s-2')?.figures;
    // By hand: 60 minutes × (1,000 × 1 ms + 1 × 500 ms) = 60,000 + 30,000 CPU-ms, of 60,060 requests.
    expect(figures?.workerCpuMs).toBeCloseTo(90_000, 6);
    expect(figures?.workerRequests).toBe(60_060);
    const byHand = 60_060 * (0.3 / 1e6) + 90_000 * (0.02 / 1e6);
    expect(usdPerHour(figures ?? ({} as never))).toBeCloseTo(byHand, 12);
    // requests × median would have said 60,060 CPU-ms: a third of the expensive minute's CPU lost.
    expect(figures?.workerCpuMs).toBeGreaterThan(60_060);
  });

  it('counts only the hour asked for: activity before it and after it is not in the figures', async () => {
    const namespaceId = namespaceOf('rel-s-2');
    twin.account.analytics.add({
      script: 'rel-s-2',
      namespaceId,
      from: WINDOW.from - 3_600_000,
      until: WINDOW.from + 10 * 60_000,
      perMinute: { alarms: 1 },
    });
    twin.account.analytics.add({
      script: 'rel-s-2',
      namespaceId,
      from: WINDOW.until,
      until: WINDOW.until + 3_600_000,
      perMinute: { alarms: 100 },
    });
    const reading = await source().spend.read(SLUGS, WINDOW, { explainAboveUsd: 1 });
    expect(reading.slots.get('s-2')?.figures.alarms).toBe(10);
    expect(reading.slots.get('s-2')?.buckets.map((bucket) => bucket.alarms)).toEqual([
      5,
      5,
      ...Array(10).fill(0),
    ]);
  });

  it('places compute no invocation explains with one namespace listing, when it costs enough to matter', async () => {
    // A slot's objects active all hour with no invocation in it (a call or a connection kept open).
    twin.account.analytics.add({
      script: 'rel-s-2',
      namespaceId: namespaceOf('rel-s-2'),
      ...HOUR,
      perMinute: { activeSeconds: 6_000 },
    });
    const cheap = await source().spend.read(SLUGS, WINDOW, { explainAboveUsd: 100 });
    expect(cheap.slots.get('s-2')?.figures.activeSeconds).toBe(0);
    expect(cheap.unexplained.namespaces).toBe(1);
    expect(cheap.unexplained.usdPerHour).toBeCloseTo(360_000 * 0.128 * 12.5e-6, 6);
    expect(twin.requests().map((request) => request.route)).toEqual(['POST /graphql']);

    twin.resetRequests();
    const costly = await source().spend.read(SLUGS, WINDOW, { explainAboveUsd: 0.5 });
    expect(twin.requests().map((request) => request.route)).toEqual([
      'POST /graphql',
      'GET /accounts/:account/workers/durable_objects/namespaces',
    ]);
    expect(costly.slots.get('s-2')?.figures.activeSeconds).toBe(360_000);
    expect(costly.unexplained).toEqual({ namespaces: 0, usdPerHour: 0 });
  });

  it('names the class of a namespace from the listing, asked once a run', async () => {
    const { spend } = source();
    const owners = await spend.owners();
    await spend.owners();
    expect(owners.get(namespaceOf('rel-s-1'))).toEqual({ script: 'rel-s-1', className: 'Room' });
    expect(twin.requests()).toHaveLength(1);
  });

  it.each([403, 200] as const)(
    "is refused as Cloudflare refuses a token without 'Account Analytics Read' (HTTP %i)",
    async (status) => {
      twin.account.analytics.refusalStatus = status;
      twin.account.addToken('no-analytics', {
        status: 'active',
        owner: 'user',
        permissions: ['Workers Scripts Write'],
      });
      try {
        const refused = await source('no-analytics')
          .spend.read(SLUGS, WINDOW, { explainAboveUsd: 1 })
          .catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(CloudflareCallError);
        expect((refused as CloudflareCallError).message).toBe(
          `analytics.graphql: HTTP ${status}: not authorized for that account (authz)`,
        );
        // A refusal is final: no retry.
        expect(twin.requests()).toHaveLength(1);
      } finally {
        twin.account.analytics.refusalStatus = 403;
      }
    },
  );

  it('refuses an answer whose figure is no count (past 2^53), before a sum of them turns to Infinity', async () => {
    // Twelve five-minute rows of 5e307 requests each: every one finite, their hour's sum Infinity.
    twin.account.analytics.add({ script: 'rel-s-1', ...HOUR, perMinute: { requests: 1e307 } });
    const failed = await source()
      .spend.read(SLUGS, WINDOW, { explainAboveUsd: 1 })
      .catch((error: unknown) => error);

    expect(failed).toBeInstanceOf(CloudflareCallError);
    expect((failed as CloudflareCallError).detail).toMatch(
      /^HTTP 200: not the GraphQL answer \(data\.viewer\.accounts\.0\.workers\.0\.sum\.requests: /,
    );
  });

  it('retries an outage like every Cloudflare call, and reports the last answer', async () => {
    twin.faults.add({ route: 'POST /graphql', status: 503 });
    try {
      const pacer = new Pacer({
        ratePerSecond: 50,
        clock: { now: Date.now, sleep: async () => {}, random: () => 0 },
      });
      const failed = await source(twin.token, pacer)
        .spend.read(SLUGS, WINDOW, { explainAboveUsd: 1 })
        .catch((error: unknown) => error);
      expect((failed as Error).message).toMatch(/^analytics\.graphql: gave up after 4 attempts \(HTTP 503/);
      expect(twin.requests()).toHaveLength(4);
    } finally {
      twin.faults.clear();
    }
  });
});

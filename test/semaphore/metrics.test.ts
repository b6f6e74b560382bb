// `GET /metrics` against the real Worker in workerd: the Prometheus text exposition, parsed by a parser
// of the format from npm (parse-prometheus-text-format, not a pattern of ours), whose slot counts match
// what `preview-gc status --json` says of the same pool, with each live lease's cost so far; a pull
// request's token is refused.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import type { ActivityRecord } from '../../src/semaphore/protocol.ts';
import { NO_ACTIVITY } from '../../src/spend/activity.ts';
import { runCli } from '../cli/run-cli.ts';
import { advanceClock } from '../support/test-clock.ts';
import { freshPool, raw, semaphoreErrorOf, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile({ testClock: true });
const HOUR = 3_600_000;

type Family = { name: string; type: string; metrics: { labels?: Record<string, string>; value: string }[] };

function record(from: number, usdPerHour: number): ActivityRecord {
  const figures = { ...NO_ACTIVITY };
  const buckets = Array.from({ length: 12 }, () => ({ requests: 0, alarms: 0, usd: usdPerHour / 12 }));
  return { from, until: from + HOUR, usdPerHour, figures, buckets, stillRunning: false };
}

/** The pool's slots counted by state as status --json's rows say them, in /metrics' states. */
function statesOf(
  rows: NonNullable<RunReport['poolAfter']>,
  parked: ReadonlySet<string>,
): Record<string, number> {
  const counts: Record<string, number> = {
    needs_repair: 0,
    expired: 0,
    parked: 0,
    leased: 0,
    free_dirty: 0,
    free_clean: 0,
  };
  for (const row of rows) {
    const live = row.leaseState === 'leased' && !row.expired;
    const state = live
      ? parked.has(row.slug)
        ? 'parked'
        : 'leased'
      : row.eraseFailures >= 2
        ? 'needs_repair'
        : row.leaseState === 'leased'
          ? 'expired'
          : row.dirty
            ? 'free_dirty'
            : 'free_clean';
    counts[state] = (counts[state] ?? 0) + 1;
  }
  return counts;
}

describe('GET /metrics', () => {
  it('serves every pool in the Prometheus text format, its slot counts those of status --json', async () => {
    const type = freshPool('metrics');
    const slugs = ['m-clean', 'm-dirty', 'm-leased', 'm-parked', 'm-expired', 'm-repair'];
    for (const slug of slugs) await local.client.add({ type, slug, dirty: slug === 'm-dirty' });
    const lease = (slug: string, holder: string, leaseMs = 7 * 24 * HOUR) =>
      local.client.acquireSpecific({ type, slug, holder, leaseMs });
    await lease('m-expired', 'pr-3', HOUR);
    // Two failed erases in a row: the slot needs repair.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const held = await lease('m-repair', 'gc', HOUR);
      if (held === null) throw new Error('m-repair could not be leased');
      await local.client.release({
        type,
        slug: 'm-repair',
        leaseId: held.leaseId,
        clean: false,
        eraseFailure: { step: 'd1', message: 'refused' },
      });
    }
    const leased = await lease('m-leased', 'acme/shop/pr-1');
    const parked = await lease('m-parked', 'pr-2');
    if (leased === null || parked === null) throw new Error('the slots could not be leased');
    await local.client.recordActivity({
      type,
      slots: [
        {
          slug: 'm-leased',
          activity: record(leased.expiresAt - 7 * 24 * HOUR, 0.12),
          ifGeneration: leased.generation,
        },
      ],
    });
    const start = (await local.client.find(type, 'm-parked')).lastAcquiredAt ?? 0;
    for (const from of [start - HOUR, start])
      await local.client.recordActivity({
        type,
        slots: [
          { slug: 'm-parked', activity: record(from, 9), ifGeneration: parked.generation, overPark: true },
        ],
      });
    // m-expired's hour runs out.
    await advanceClock(local.semaphore, type, 2 * HOUR);

    const answer = await raw(local.semaphore, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    const families = parsePrometheusTextFormat(answer.text) as Family[];
    const family = (name: string) => families.find((candidate) => candidate.name === name);
    const ofPool = (name: string) =>
      (family(name)?.metrics ?? []).filter((metric) => metric.labels?.pool === type);

    expect(family('preview_gc_slots')?.type).toBe('GAUGE');
    const counted = Object.fromEntries(
      ofPool('preview_gc_slots').map((m) => [m.labels?.state, Number(m.value)]),
    );
    expect(counted).toEqual({
      needs_repair: 1,
      expired: 1,
      parked: 1,
      leased: 1,
      free_dirty: 1,
      free_clean: 1,
    });

    const status = await runCli(['status', '--json', '--pool', type], {
      SEMAPHORE_URL: local.semaphore.url,
      SEMAPHORE_TOKEN: local.semaphore.token,
    });
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as RunReport;
    const parkedSlugs = new Set(
      (await local.client.list(type)).resources.filter((s) => s.activity?.parkedForSpend).map((s) => s.slug),
    );
    expect(statesOf(report.poolAfter ?? [], parkedSlugs)).toEqual(counted);

    expect(ofPool('preview_gc_leases').map((m) => Number(m.value))).toEqual([2]);
    expect(
      Object.fromEntries(
        ofPool('preview_gc_slot_erase_failures').map((m) => [m.labels?.slot, Number(m.value)]),
      ),
    ).toMatchObject({ 'm-repair': 2, 'm-clean': 0 });
    // Each live lease's cost so far, named by slot and holder.
    const costs = ofPool('preview_gc_lease_cost_usd');
    expect(costs.map((m) => [m.labels?.slot, m.labels?.holder])).toEqual([
      ['m-leased', 'acme/shop/pr-1'],
      ['m-parked', 'pr-2'],
    ]);
    expect(Number(costs.find((m) => m.labels?.slot === 'm-parked')?.value)).toBeCloseTo(9, 6);
    expect(family('preview_gc_last_spend_read_timestamp_seconds')?.metrics.length).toBeGreaterThan(0);
  });

  it("gauges each pool's queue: how many wait, and how long the first has waited by the server's clock", async () => {
    const type = freshPool('metrics-queue');
    await local.client.add({ type, slug: 'q-1' });
    await local.client.acquire({ type, holder: 'pr-1', leaseMs: HOUR });
    for (const holder of ['pr-2', 'pr-3'])
      await semaphoreErrorOf(local.client.acquire({ type, holder, leaseMs: HOUR, wait: true }));
    // Within the heartbeat, so both keep their places.
    await advanceClock(local.semaphore, type, 30_000);
    const families = parsePrometheusTextFormat(
      (await raw(local.semaphore, 'GET', '/metrics')).text,
    ) as Family[];
    const gauge = (name: string) =>
      Number(families.find((f) => f.name === name)?.metrics.find((m) => m.labels?.pool === type)?.value);
    expect(gauge('preview_gc_queue_waiters')).toBe(2);
    const listing = await local.client.list(type);
    const first = listing.queue?.waiters[0];
    expect(gauge('preview_gc_queue_oldest_wait_seconds')).toBeGreaterThanOrEqual(30);
    expect(gauge('preview_gc_queue_oldest_wait_seconds')).toBeLessThanOrEqual(
      (listing.now - (first?.waitingSince ?? 0)) / 1000,
    );
    const empty = freshPool('metrics-no-queue');
    await local.client.add({ type: empty, slug: 'q-1' });
    const again = parsePrometheusTextFormat((await raw(local.semaphore, 'GET', '/metrics')).text) as Family[];
    const ofEmpty = (name: string) =>
      again.find((f) => f.name === name)?.metrics.find((m) => m.labels?.pool === empty)?.value;
    expect([ofEmpty('preview_gc_queue_waiters'), ofEmpty('preview_gc_queue_oldest_wait_seconds')]).toEqual([
      '0',
      '0',
    ]);
  });

  it('refuses a request without a token', async () => {
    const answer = await raw(local.semaphore, 'GET', '/metrics', { authorization: null });
    expect(answer.status).toBe(401);
  });
});

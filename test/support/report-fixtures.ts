// Run reports for the tests of everything that renders or publishes one: a reclaimed slot of the
// demo shape, a pool row, a gc run. Each takes the fields a test cares about.
import type { PoolRow, RunReport, SlotReport } from '../../src/report/model.ts';

export function slotReport(fields: Partial<SlotReport> = {}): SlotReport {
  const slug = fields.slug ?? 'preview-1';
  return {
    slug,
    previousHolder: 'pr-1592',
    reason: 'expired',
    waitingMs: 3 * 3_600_000,
    outcome: 'reclaimed',
    erase: {
      status: 'complete',
      requests: 9,
      steps: [
        {
          kind: 'd1',
          resource: `shop-${slug}-db`,
          status: 'done',
          summary: 'deleted 1,204 rows in 5 tables',
          requests: 2,
        },
        {
          kind: 'kv',
          resource: `shop-${slug}-cache`,
          status: 'done',
          summary: 'deleted 2,500 keys',
          requests: 5,
        },
      ],
    },
    durationMs: 4_200,
    ...fields,
  };
}

export function poolRow(fields: Partial<PoolRow> = {}): PoolRow {
  return {
    slug: 'preview-1',
    leaseState: 'available',
    holder: null,
    expired: false,
    leaseEndsInMs: null,
    dirty: false,
    generation: 4,
    lastHolder: 'gc',
    eraseFailures: 0,
    lastEraseFailure: null,
    ...fields,
  };
}

export function runReport(fields: Partial<RunReport> = {}): RunReport {
  return {
    command: 'gc',
    dryRun: false,
    pool: 'preview-slot',
    startedAt: '2026-11-30T01:17:00.000Z',
    durationMs: 12_000,
    problems: [],
    leftForNextRun: 0,
    expired: 1,
    slots: [slotReport()],
    poolAfter: [poolRow()],
    semaphoreRequests: 6,
    cloudflare: {
      requests: 9,
      byKind: { 'd1.query': 2 },
      rateLimited: 0,
      retries: 0,
      waitedMs: 0,
      budget: 600,
      budgetLeft: 591,
    },
    repository: { serverUrl: 'https://github.com', nameWithOwner: 'acme/shop' },
    ...fields,
  };
}

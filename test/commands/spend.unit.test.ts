// gc's spend step (src/commands/spend.ts) over injected clients: one read for the pool, a free slot whose
// compute outlived its park parked again and kept dirty (no mark-dirty: the gc role may not make one), records kept only where there is something to keep, one alert
// a day for a live lease above the threshold, and a failed read that costs one warning and nothing else.
import { describe, expect, it } from 'vitest';
import { CloudflareCallError } from '../../src/cloudflare/call-error.ts';
import { runGc } from '../../src/commands/sweep.ts';
import { recordActivityRequestSchema, type Slot } from '../../src/semaphore/protocol.ts';
import {
  commandContext,
  expiredSlot,
  HOUR,
  MINUTE,
  NOW,
  ScriptedSemaphore,
  scriptedEraser,
  slotRecord,
} from './scripted-clients.ts';
import { ALARM_LOOP, BUCKET_MS, scriptedSpend, spendContext } from './spend-clients.ts';

const ALARM_LOOP_HOUR = {
  workerRequests: 0,
  workerSubrequests: 0,
  workerCpuMs: 0,
  objectRequests: 360,
  alarms: 360,
  websocketMessages: 0,
  activeSeconds: 3_600,
  gbSeconds: 460.8,
  rowsRead: 0,
  rowsWritten: 0,
  storedBytes: 0,
};

const OPTIONS = {
  dryRun: false,
  reclaimDirty: true,
  maxSlots: 20,
  leaseMs: 30 * MINUTE,
  deadlineAt: NOW + HOUR,
};
/** A runaway: some 870 objects woken by alarms and active all the time, about $5 an hour. */
const RUNAWAY = { objectRequests: 26_000, alarms: 26_000, activeSeconds: 260_000, gbSeconds: 33_280 };

const liveLease = (slug: string, holder = 'pr-42') =>
  slotRecord(slug, { leaseState: 'leased', holder, leasedUntil: NOW + HOUR, dirty: true, generation: 7 });
/** Free and clean: released clean (parked) `ago` before the listing. */
const parked = (slug: string, ago: number) =>
  slotRecord(slug, { lastReleasedAt: NOW - ago, lastHolder: 'gc', updatedAt: NOW - ago });

function pool(...slots: Slot[]) {
  const semaphore = new ScriptedSemaphore();
  semaphore.listing = { now: NOW, resources: slots };
  const spend = scriptedSpend();
  const eraser = scriptedEraser();
  const ctx = commandContext(semaphore, eraser, { spend: spendContext(spend) });
  return { semaphore, spend, eraser, ctx };
}

describe('the spend step of gc', () => {
  it('reads every slot of the pool once, and keeps nothing of a free slot where nothing ran', async () => {
    const { semaphore, spend, ctx } = pool(parked('preview-1', 3 * HOUR), liveLease('preview-2'));
    const report = await runGc(ctx, OPTIONS);

    expect(spend.reads).toEqual([['preview-1', 'preview-2']]);
    // A live lease's quiet hour is kept all the same: its cost so far counts every hour it was read.
    expect(semaphore.trace()).toEqual(['list', 'record-activity preview-2']);
    expect(report.spend).toMatchObject({
      source: 'read',
      from: NOW - (NOW % BUCKET_MS) - HOUR,
      alertUsdPerHour: 1,
    });
    expect(report.poolAfter?.map((row) => [row.slug, row.spend?.usdPerHour])).toEqual([
      ['preview-1', 0],
      ['preview-2', 0],
    ]);
  });

  it('alerts about a live lease above the threshold, and only once the semaphore allows it', async () => {
    const { semaphore, spend, ctx } = pool(liveLease('preview-2'), liveLease('preview-3', 'pr-43'));
    spend.activity.set('preview-2', { perBucket: RUNAWAY, namespace: 'ns-2' });
    spend.activity.set('preview-3', { perBucket: ALARM_LOOP });

    const first = await runGc(ctx, OPTIONS);
    expect(semaphore.trace()).toEqual(['list', 'record-activity preview-2 alert, preview-3']);
    expect(first.spendAlerts).toEqual([
      {
        slug: 'preview-2',
        holder: 'pr-42',
        generation: 7,
        usdPerHour: expect.closeTo(5.04, 2),
        burning: expect.objectContaining({ part: 'objects', namespaceId: 'ns-2', drivenBy: 'alarms' }),
      },
    ]);
    const row = first.poolAfter?.find((candidate) => candidate.slug === 'preview-2');
    expect(row?.spend).toMatchObject({ overAlert: true, stillRunning: false, source: 'read' });
    // What the semaphore keeps: the window, the estimate, twelve buckets of requests, alarms and dollars.
    const written = semaphore.calls.find((call) => call.op === 'record-activity');
    const record = written?.op === 'record-activity' ? written.request.slots[0]?.activity : undefined;
    // The alert names the lease it measured: the semaphore allows it only at that generation.
    expect(written?.op === 'record-activity' && written.request.slots[0]).toMatchObject({
      slug: 'preview-2',
      alert: true,
      ifGeneration: 7,
    });
    expect(record?.buckets).toHaveLength(12);
    expect(record?.buckets[0]).toEqual({ requests: 26_000, alarms: 26_000, usd: expect.closeTo(0.42, 2) });

    // The day's alert was raised: the semaphore allows no other today.
    semaphore.answerRecordActivity = async (request) => ({
      recorded: request.slots.map((slot) => slot.slug),
      alerted: [],
    });
    const second = await runGc(ctx, OPTIONS);
    expect(second.spendAlerts).toBeUndefined();
    expect(second.poolAfter?.find((candidate) => candidate.slug === 'preview-2')?.spend?.overAlert).toBe(
      true,
    );
  });

  it('keeps every record the semaphore can take: one with a figure past its limit is left out, named, and its alert raised', async () => {
    const { semaphore, spend, ctx } = pool(liveLease('preview-2'), liveLease('preview-3', 'pr-43'));
    // Each of twelve buckets within what an answer may carry, their hour past the semaphore's 10^15.
    spend.activity.set('preview-2', { perBucket: { rowsRead: 1e14 } });
    spend.activity.set('preview-3', { perBucket: RUNAWAY });

    const report = await runGc(ctx, OPTIONS);

    const written = semaphore.calls.filter((call) => call.op === 'record-activity');
    expect(written).toHaveLength(1);
    const request = written[0]?.op === 'record-activity' ? written[0].request : undefined;
    expect(request?.slots.map((slot) => slot.slug)).toEqual(['preview-3']);
    expect(recordActivityRequestSchema.safeParse(request).success).toBe(true);
    expect(report.warnings).toContain(
      "preview-2's activity was not kept in the semaphore (figures.rowsRead: must be at most 1000000000000000): the console shows its last record, and a spend alert about it may repeat.",
    );
    expect(report.spendAlerts?.map((alert) => alert.slug)).toEqual(['preview-2', 'preview-3']);
  });

  it('parks a free, clean slot again when its objects ran after the park and its grace, and keeps it dirty, with no mark the gc role may not make', async () => {
    const { semaphore, spend, eraser, ctx } = pool(
      parked('preview-1', HOUR),
      // A parked Worker keeps answering requests (503, no subrequest): that is not compute still running.
      parked('preview-3', HOUR),
    );
    spend.activity.set('preview-1', { perBucket: ALARM_LOOP });
    spend.activity.set('preview-3', { perBucket: { workerRequests: 40 } });

    const report = await runGc(ctx, OPTIONS);

    expect(semaphore.trace()).toEqual([
      'list',
      'record-activity preview-1, preview-3',
      'acquire-specific preview-1',
      'renew preview-1',
      'renew preview-1',
      'renew preview-1',
      'release preview-1 dirty',
      'list',
    ]);
    // Parked again (every step ran), but released dirty: a failure of the compute step, counted in a row.
    expect(eraser.changed).toEqual(['preview-1 compute', 'preview-1 d1', 'preview-1 kv', 'preview-1 r2']);
    const release = semaphore.calls.find((call) => call.op === 'release');
    expect(release?.op === 'release' && release.request).toMatchObject({
      clean: false,
      eraseFailure: {
        step: 'compute',
        message: 'still running after its park: 300 alarms, 0.8 object-hours active',
      },
    });
    expect(
      report.slots.map(({ slug, reason, waitingMs, outcome, problem }) => ({
        slug,
        reason,
        waitingMs,
        outcome,
        problem,
      })),
    ).toEqual([
      {
        slug: 'preview-1',
        reason: 'parked',
        waitingMs: HOUR,
        outcome: 'still-running',
        problem:
          '300 alarms, 0.8 object-hours active after its last park; parked again and released dirty, the next sweep reads whether it stopped',
      },
    ]);
    const record = semaphore.calls.find((call) => call.op === 'record-activity');
    expect(
      record?.op === 'record-activity' && record.request.slots.map((slot) => slot.activity.stillRunning),
    ).toEqual([true, false]);
    expect(report.poolAfter?.find((row) => row.slug === 'preview-1')?.spend?.stillRunning).toBe(true);
  });

  it('keeps reading a slot it released dirty for still running: stopped now, it is reclaimed clean', async () => {
    const flagged = slotRecord('preview-1', {
      dirty: true,
      lastHolder: 'gc',
      lastReleasedAt: NOW - HOUR,
      activity: {
        from: NOW - 2 * HOUR,
        until: NOW - HOUR,
        usdPerHour: 0.006,
        figures: { ...ALARM_LOOP_HOUR },
        buckets: [],
        stillRunning: true,
        at: NOW - HOUR,
        alertedAt: null,
      },
    });
    const still = pool(flagged);
    still.spend.activity.set('preview-1', { perBucket: ALARM_LOOP });
    expect((await runGc(still.ctx, OPTIONS)).slots.map((slot) => [slot.reason, slot.outcome])).toEqual([
      ['parked', 'still-running'],
    ]);

    const stopped = pool(flagged);
    expect((await runGc(stopped.ctx, OPTIONS)).slots.map((slot) => [slot.reason, slot.outcome])).toEqual([
      ['dirty', 'reclaimed'],
    ]);
  });

  it('does not call a dirty slot whose last tenant left it running "still running": the erase parks it', async () => {
    const released = slotRecord('preview-1', {
      dirty: true,
      lastHolder: 'pr-12',
      lastReleasedAt: NOW - HOUR,
    });
    const { spend, ctx } = pool(released);
    spend.activity.set('preview-1', { perBucket: ALARM_LOOP });
    expect((await runGc(ctx, OPTIONS)).slots.map((slot) => [slot.reason, slot.outcome])).toEqual([
      ['dirty', 'reclaimed'],
    ]);
  });

  it('leaves the grace alone: compute in the five minutes after a park is the park winding down', async () => {
    // Parked 20 minutes before the listing: buckets 0-9 start before the park's five minutes of grace end.
    const windowStart = NOW - (NOW % BUCKET_MS) - HOUR;
    const graceEnds = NOW - 20 * MINUTE + 5 * MINUTE;
    const firstAfterGrace = Math.ceil((graceEnds - windowStart) / BUCKET_MS);
    expect(firstAfterGrace).toBe(10);

    const winding = pool(parked('preview-1', 20 * MINUTE));
    winding.spend.activity.set('preview-1', { perBucket: ALARM_LOOP, untilBucket: firstAfterGrace });
    expect((await runGc(winding.ctx, OPTIONS)).slots).toEqual([]);
    expect(winding.semaphore.trace()).toEqual(['list', 'record-activity preview-1']);

    const running = pool(parked('preview-1', 20 * MINUTE));
    running.spend.activity.set('preview-1', { perBucket: ALARM_LOOP, fromBucket: firstAfterGrace });
    const report = await runGc(running.ctx, OPTIONS);
    expect(report.slots.map((slot) => [slot.outcome, slot.problem])).toEqual([
      [
        'still-running',
        '60 alarms, 0.2 object-hours active after its last park; parked again and released dirty, the next sweep reads whether it stopped',
      ],
    ]);
  });

  it('on a dry run says which slot still runs, and writes nothing', async () => {
    const { semaphore, spend, ctx } = pool(parked('preview-1', HOUR), liveLease('preview-2'));
    spend.activity.set('preview-1', { perBucket: ALARM_LOOP });
    spend.activity.set('preview-2', { perBucket: RUNAWAY });
    const report = await runGc(ctx, { ...OPTIONS, dryRun: true });

    expect(semaphore.trace()).toEqual(['list']);
    expect(report.slots.map((slot) => [slot.slug, slot.outcome, slot.problem])).toEqual([
      [
        'preview-1',
        'still-running',
        '300 alarms, 0.8 object-hours active after its park; a real run parks it again and releases it dirty',
      ],
    ]);
    expect(report.spendAlerts).toBeUndefined();
  });

  it('turns a read Cloudflare refuses into one warning, and sweeps as it would without it', async () => {
    const { semaphore, spend, eraser, ctx } = pool(expiredSlot('preview-1'));
    spend.failWith = new CloudflareCallError(
      { kind: 'analytics.graphql', reason: 'api', status: 403 },
      'HTTP 403: not authorized for that account (authz)',
    );
    const report = await runGc(ctx, OPTIONS);

    expect(report.warnings).toEqual([
      "The spend read (Cloudflare's GraphQL Analytics API) did not answer: HTTP 403: not authorized for that account (authz). Nothing else is affected: the sweep went on without it; give the Cloudflare API token 'Account Analytics: Read' (README, step 2) to see what each slot costs.",
    ]);
    expect(report.slots.map((slot) => [slot.slug, slot.outcome])).toEqual([['preview-1', 'reclaimed']]);
    expect(eraser.requests.map((request) => request.slug)).toEqual(['preview-1']);
    expect(report.spend?.source).toBe('failed');
    expect(semaphore.trace()).not.toContain('record-activity');
  });

  it('keeps a big pool’s records in as many writes as the semaphore’s 64 KiB body limit needs', async () => {
    const slots = Array.from({ length: 256 }, (_, index) => parked(`preview-${index + 1}`, 10 * HOUR));
    const { semaphore, spend, ctx } = pool(...slots);
    for (const slot of slots)
      spend.activity.set(slot.slug, { perBucket: { workerRequests: 123_456.789, workerCpuMs: 98.7654 } });
    await runGc(ctx, OPTIONS);
    const writes = semaphore.calls.flatMap((call) => (call.op === 'record-activity' ? [call.request] : []));
    expect(writes.length).toBeGreaterThan(1);
    for (const write of writes) expect(JSON.stringify(write).length).toBeLessThan(64 * 1024);
    expect(writes.flatMap((write) => write.slots.map((slot) => slot.slug))).toEqual(
      slots.map((slot) => slot.slug),
    );
  });

  it('says a failed record write once, and still raises the alert', async () => {
    const { semaphore, spend, ctx } = pool(liveLease('preview-2'));
    spend.activity.set('preview-2', { perBucket: RUNAWAY });
    semaphore.answerRecordActivity = async () => {
      throw new Error('POST /api/resources/activity: the semaphore did not answer within 10000 ms');
    };
    const report = await runGc(ctx, OPTIONS);
    expect(report.warnings?.filter((warning) => warning.includes('activity'))).toEqual([
      "The slots' activity was not kept in the semaphore (POST /api/resources/activity: the semaphore did not answer within 10000 ms): the console shows the last records it has, and today's spend alerts may repeat.",
    ]);
    expect(report.spendAlerts?.map((alert) => alert.slug)).toEqual(['preview-2']);
  });
});

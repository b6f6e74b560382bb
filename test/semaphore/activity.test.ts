// `POST /api/resources/activity` against the real Worker in workerd: a slot's activity record is kept
// and shown by every slot answer, a spend alert is allowed once per lease a day (the server decides, in
// the same transaction), and a bad record is refused naming the field, with nothing kept.
import { describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../src/semaphore/protocol.ts';
import { advanceClock } from '../support/test-clock.ts';
import { expectError, freshPool, raw, removeAsItIs, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile({ testClock: true });
const HOUR = 3_600_000;

function record(fields: Partial<ActivityRecord> = {}): ActivityRecord {
  return {
    from: 1_784_000_000_000,
    until: 1_784_000_000_000 + HOUR,
    usdPerHour: 5.12,
    figures: {
      workerRequests: 120,
      workerSubrequests: 0,
      workerCpuMs: 240,
      objectRequests: 43_200,
      alarms: 43_200,
      websocketMessages: 0,
      activeSeconds: 1_440_000,
      gbSeconds: 184_320,
      rowsRead: 0,
      rowsWritten: 43_200,
      storedBytes: 1_024,
    },
    buckets: Array.from({ length: 12 }, () => ({ requests: 3_610, alarms: 3_600, usd: 0.43 })),
    stillRunning: false,
    ...fields,
  };
}

async function poolWith(...slugs: string[]): Promise<string> {
  const type = freshPool('activity');
  for (const slug of slugs) await local.client.add({ type, slug });
  return type;
}

describe('activity records', () => {
  it('keeps each slot’s record, shown by the listing and the slot, with the time it was written', async () => {
    const type = await poolWith('preview-1', 'preview-2');
    const before = await local.client.list(type);
    expect(before.resources.map((slot) => slot.activity)).toEqual([null, null]);

    const { now: sent } = await local.client.list(type);
    const answer = await local.client.recordActivity({
      type,
      slots: [
        { slug: 'preview-1', activity: record() },
        { slug: 'gone', activity: record() },
      ],
    });

    expect(answer).toEqual({ recorded: ['preview-1'], alerted: [] });
    const after = await local.client.list(type);
    const written = after.resources.find((slot) => slot.slug === 'preview-1')?.activity;
    expect(written).toEqual({ ...record(), at: expect.any(Number), alertedAt: null });
    // The server's time of the write.
    expect(written?.at).toBeGreaterThanOrEqual(sent);
    expect(written?.at).toBeLessThanOrEqual(after.now);
    expect((await local.client.find(type, 'preview-1')).activity).toEqual(written);
    expect(after.resources.find((slot) => slot.slug === 'preview-2')?.activity).toBeNull();
    // A record is not an event: the history keeps what happened to the slot, not what gc saw.
    expect((await local.client.events(type, 'preview-1')).map((event) => event.event)).toEqual(['added']);
  });

  it('allows one spend alert per live lease a day, and another at once for a new lease', async () => {
    const type = await poolWith('preview-1', 'preview-2');
    await local.client.acquireSpecific({ type, slug: 'preview-1', holder: 'pr-7', leaseMs: 7 * 24 * HOUR });
    const alert = () =>
      local.client.recordActivity({
        type,
        slots: [
          { slug: 'preview-1', activity: record(), alert: true },
          // No live lease: never an alert, whatever the caller asks.
          { slug: 'preview-2', activity: record(), alert: true },
        ],
      });

    expect((await alert()).alerted).toEqual(['preview-1']);
    expect((await alert()).alerted).toEqual([]);
    await advanceClock(local.semaphore, type, 23 * HOUR);
    expect((await alert()).alerted).toEqual([]);
    await advanceClock(local.semaphore, type, HOUR);
    expect((await alert()).alerted).toEqual(['preview-1']);

    // pr-8 takes the slot over: its lease is a new one, and its runaway is told at once.
    await local.client.acquireSpecific({
      type,
      slug: 'preview-1',
      holder: 'pr-8',
      leaseMs: HOUR,
      force: true,
    });
    expect((await alert()).alerted).toEqual(['preview-1']);
    const slot = await local.client.find(type, 'preview-1');
    expect(slot.activity?.alertedAt).toBe(slot.activity?.at);
  });

  it('allows an alert only for the lease the caller measured: one taken since its listing is not alerted in its name', async () => {
    const type = await poolWith('preview-1');
    const measured = await local.client.acquireSpecific({
      type,
      slug: 'preview-1',
      holder: 'pr-7',
      leaseMs: 7 * 24 * HOUR,
    });
    // Between gc's listing and its write, pr-8 takes the slot over.
    const taken = await local.client.acquireSpecific({
      type,
      slug: 'preview-1',
      holder: 'pr-8',
      leaseMs: HOUR,
      force: true,
    });
    if (measured === null || taken === null) throw new Error('preview-1 could not be leased');
    const alert = (ifGeneration: number) =>
      local.client.recordActivity({
        type,
        slots: [{ slug: 'preview-1', activity: record(), alert: true, ifGeneration }],
      });

    // pr-7's hour is no reason to tell about pr-8, and pr-8's own alert of the day is not used up.
    expect((await alert(measured.generation)).alerted).toEqual([]);
    expect((await local.client.find(type, 'preview-1')).activity?.alertedAt).toBeNull();
    expect((await alert(taken.generation)).alerted).toEqual(['preview-1']);
  });

  it('parks a live lease for spend on its second read in a row above the threshold, once per read, for the lease measured only', async () => {
    const type = await poolWith('preview-1');
    const lease = await local.client.acquireSpecific({
      type,
      slug: 'preview-1',
      holder: 'pr-7',
      leaseMs: 7 * 24 * HOUR,
    });
    if (lease === null) throw new Error('preview-1 could not be leased');
    const read = (hour: number, overPark: boolean, ifGeneration = lease.generation) =>
      local.client.recordActivity({
        type,
        slots: [
          {
            slug: 'preview-1',
            activity: record({ from: record().from + hour * HOUR, until: record().until + hour * HOUR }),
            overPark,
            ifGeneration,
          },
        ],
      });

    // Above, then below: no two in a row, nothing parked.
    expect((await read(0, true)).parkForSpend).toBeUndefined();
    expect((await read(1, false)).parkForSpend).toBeUndefined();
    // Above once, the same read sent again (a retry) is still one read.
    expect((await read(2, true)).parkForSpend).toBeUndefined();
    expect((await read(2, true)).parkForSpend).toBeUndefined();
    expect((await local.client.find(type, 'preview-1')).activity?.parkedForSpend).toBeUndefined();
    // A read measured at another lease's generation counts nothing for this one.
    expect((await read(3, true, lease.generation + 1)).parkForSpend).toBeUndefined();
    // The second read in a row: parked, and its retry answers the same.
    expect((await read(3, true)).parkForSpend).toEqual(['preview-1']);
    expect((await read(3, true)).parkForSpend).toEqual(['preview-1']);

    const slot = await local.client.find(type, 'preview-1');
    // The lease stays with its pull request, marked parked for spend.
    expect(slot.holder).toBe('pr-7');
    expect(slot.generation).toBe(lease.generation);
    expect(slot.activity?.parkedForSpend).toEqual({
      at: expect.any(Number),
      generation: lease.generation,
      usdPerHour: 5.12,
    });
    // The next read starts the count again: one more above is not yet a second park.
    expect((await read(4, true)).parkForSpend).toBeUndefined();
    // A new lease of the slot is not marked.
    await local.client.acquireSpecific({
      type,
      slug: 'preview-1',
      holder: 'pr-8',
      leaseMs: HOUR,
      force: true,
    });
    expect((await local.client.find(type, 'preview-1')).activity?.parkedForSpend).toBeUndefined();
  });

  it('adds each read of a live lease to its cost once, from its start, and counts time no read covered as missing', async () => {
    const type = await poolWith('preview-1');
    const lease = await local.client.acquireSpecific({
      type,
      slug: 'preview-1',
      holder: 'pr-7',
      leaseMs: 7 * 24 * HOUR,
    });
    if (lease === null) throw new Error('preview-1 could not be leased');
    // Twelve buckets of $0.01 each, no storage: $0.12 an hour.
    const buckets = Array.from({ length: 12 }, () => ({ requests: 1, alarms: 0, usd: 0.01 }));
    const read = (from: number) =>
      local.client.recordActivity({
        type,
        slots: [
          {
            slug: 'preview-1',
            activity: record({ from, until: from + HOUR, usdPerHour: 0.12, buckets }),
            ifGeneration: lease.generation,
          },
        ],
      });
    const cost = async () => (await local.client.find(type, 'preview-1')).activity?.leaseCost;
    const start = (await local.client.find(type, 'preview-1')).lastAcquiredAt ?? 0;
    const FIVE_MINUTES = HOUR / 12;

    // The first read's hour began half an hour before the lease: only the lease's half is its.
    await read(start - HOUR / 2);
    expect(await cost()).toEqual({
      usd: 0.06,
      coveredUntil: start + HOUR / 2,
      coveredMs: HOUR / 2,
      missingMs: 0,
    });
    // A retry, and a read ten minutes later that overlaps it: only the ten new minutes count.
    await read(start - HOUR / 2);
    await read(start - HOUR / 2 + 2 * FIVE_MINUTES);
    expect(await cost()).toMatchObject({ usd: 0.08, coveredMs: HOUR / 2 + 2 * FIVE_MINUTES, missingMs: 0 });
    // Two hours and twenty minutes without a read, then one: the gap is missing, not guessed.
    await read(start + 3 * HOUR);
    expect(await cost()).toMatchObject({
      usd: 0.2,
      coveredUntil: start + 4 * HOUR,
      missingMs: 2 * HOUR + 20 * 60_000,
    });
  });

  it('forgets a deleted slot’s record: a slot added again under its name starts without one', async () => {
    const type = await poolWith('preview-1', 'preview-2');
    await local.client.recordActivity({ type, slots: [{ slug: 'preview-1', activity: record() }] });
    await removeAsItIs(local.client, type, 'preview-1');
    await local.client.add({ type, slug: 'preview-1' });
    expect((await local.client.find(type, 'preview-1')).activity).toBeNull();
  });

  it('refuses a record that breaks a rule, naming the field, and keeps nothing of the request', async () => {
    const type = await poolWith('preview-1', 'preview-2');
    const cases: [unknown, string][] = [
      [{ ...record(), usdPerHour: -1 }, 'slots.1.activity.usdPerHour'],
      [{ ...record(), figures: { ...record().figures, alarms: 1e16 } }, 'slots.1.activity.figures.alarms'],
      [{ ...record(), until: record().from }, 'slots.1.activity.until'],
      [
        { ...record(), buckets: Array(13).fill({ requests: 0, alarms: 0, usd: 0 }) },
        'slots.1.activity.buckets',
      ],
      [{ ...record(), note: 'hello' }, 'slots.1.activity'],
    ];
    for (const [bad, path] of cases) {
      const answer = await raw(local.semaphore, 'POST', '/api/resources/activity', {
        body: {
          type,
          slots: [
            { slug: 'preview-2', activity: record() },
            { slug: 'preview-1', activity: bad },
          ],
        },
      });
      const error = expectError(answer, 400, 'invalid_request');
      expect(error.message).toContain(path);
    }
    const duplicate = await raw(local.semaphore, 'POST', '/api/resources/activity', {
      body: {
        type,
        slots: [
          { slug: 'preview-1', activity: record() },
          { slug: 'preview-1', activity: record() },
        ],
      },
    });
    expect(expectError(duplicate, 400, 'invalid_request').message).toContain('each slug once');
    expect((await local.client.list(type)).resources.map((slot) => slot.activity)).toEqual([null, null]);
  });
});

// The protocol's limits fit together: the largest answer the Worker can give (the listing of a full
// pool of the largest slots, a page of the largest events, the listing of every pool) is smaller than
// what a client reads of one answer. Each record is built at its limits and checked by the schemas.
import { describe, expect, it } from 'vitest';
import {
  eventsAnswerSchema,
  listAnswerSchema,
  MAX_ACTIVITY_BUCKETS,
  MAX_ANSWER_BYTES,
  MAX_DATA_BYTES,
  MAX_ERASE_MESSAGE_CODE_POINTS,
  MAX_ERASE_STEP_CODE_POINTS,
  MAX_EVENTS_LIMIT,
  MAX_HOLDER_CODE_POINTS,
  MAX_LISTED_WAITERS,
  MAX_NOTE_CODE_POINTS,
  MAX_POOLS,
  MAX_SLOTS_PER_POOL,
  poolsAnswerSchema,
  slotDataSchema,
} from '../../src/semaphore/protocol.ts';

const LATEST = 8_640_000_000_000_000; // the largest time a Date can hold, in milliseconds
const HUGE = Number.MAX_SAFE_INTEGER;
const NAME = `a${'-'.repeat(61)}z`; // 63 characters: the longest pool name or slug
/** The most UTF-8 bytes a string of `codePoints` allowed characters takes: 4 per code point. */
const widest = (codePoints: number): string => '😀'.repeat(codePoints);

/** A figure that takes the most JSON characters a figure can (23): 17 digits and a long exponent. */
const WIDEST_FIGURE = 1.2345678901234568e-300;

/** The largest activity record: every figure and bucket at its widest. */
function largestActivity() {
  const figure = WIDEST_FIGURE;
  const figures = Object.fromEntries(
    [
      'workerRequests',
      'workerSubrequests',
      'workerCpuMs',
      'objectRequests',
      'alarms',
      'websocketMessages',
      'activeSeconds',
      'gbSeconds',
      'rowsRead',
      'rowsWritten',
      'storedBytes',
    ].map((name) => [name, figure]),
  );
  return {
    from: LATEST - 1,
    until: LATEST,
    usdPerHour: figure,
    figures,
    buckets: Array.from({ length: MAX_ACTIVITY_BUCKETS }, () => ({
      requests: figure,
      alarms: figure,
      usd: figure,
    })),
    stillRunning: false,
    at: LATEST,
    alertedAt: LATEST,
  };
}

/** A `data` object of exactly MAX_DATA_BYTES of JSON. */
function fullData(): Record<string, unknown> {
  const data = { blob: '' };
  data.blob = 'x'.repeat(MAX_DATA_BYTES - JSON.stringify(data).length);
  return data;
}

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

function largestSlot() {
  return {
    type: NAME,
    slug: NAME,
    data: fullData(),
    leaseState: 'available',
    holder: widest(MAX_HOLDER_CODE_POINTS),
    leasedUntil: LATEST,
    expired: false,
    generation: HUGE,
    leaseVersion: HUGE,
    dirty: false,
    // A holder an older semaphore stored: new holders are ASCII, one byte a character.
    lastHolder: widest(MAX_HOLDER_CODE_POINTS),
    lastAcquiredAt: LATEST,
    lastReleasedAt: LATEST,
    createdAt: LATEST,
    updatedAt: LATEST,
    eraseFailures: HUGE,
    lastEraseFailure: {
      step: widest(MAX_ERASE_STEP_CODE_POINTS),
      message: widest(MAX_ERASE_MESSAGE_CODE_POINTS),
      at: LATEST,
    },
    activity: largestActivity(),
  };
}

/** The largest event: a force release reporting an erase failure, with a note. */
function largestEvent() {
  return {
    at: LATEST,
    event: 'force-released',
    slug: NAME,
    holder: widest(MAX_HOLDER_CODE_POINTS),
    generation: HUGE,
    detail: {
      clean: false,
      dirty: true,
      eraseFailure: {
        step: widest(MAX_ERASE_STEP_CODE_POINTS),
        message: widest(MAX_ERASE_MESSAGE_CODE_POINTS),
      },
      note: widest(MAX_NOTE_CODE_POINTS),
    },
  };
}

/** The largest queue a listing shows: MAX_LISTED_WAITERS waiters, each with the longest holder (ASCII, as the holder rule asks of a waiter). */
function largestQueue() {
  const waiters = Array.from({ length: MAX_LISTED_WAITERS }, (_, index) => ({
    position: index + 1,
    holder: 'h'.repeat(MAX_HOLDER_CODE_POINTS),
    waitingSince: LATEST,
  }));
  return { length: HUGE, waiters };
}

describe('protocol limits', () => {
  it('build their largest records within the rules', () => {
    expect(slotDataSchema.safeParse(fullData()).success).toBe(true);
    expect(bytes(fullData())).toBe(MAX_DATA_BYTES);
    expect(JSON.stringify(WIDEST_FIGURE)).toHaveLength(23);
    expect(
      listAnswerSchema.safeParse({ now: LATEST, resources: [largestSlot()], queue: largestQueue() }).success,
    ).toBe(true);
    expect(eventsAnswerSchema.safeParse({ events: [largestEvent()] }).success).toBe(true);
  });

  it('keep the listing of a full pool of the largest slots and its longest queue under the answer cap', () => {
    const answer = { now: LATEST, resources: [], queue: largestQueue() };
    const size = bytes(answer) + MAX_SLOTS_PER_POOL * (bytes(largestSlot()) + 1);
    expect(size).toBeLessThan(MAX_ANSWER_BYTES);
  });

  it('keep a page of the largest events under the answer cap', () => {
    const size = bytes({ events: [] }) + MAX_EVENTS_LIMIT * (bytes(largestEvent()) + 1);
    expect(size).toBeLessThan(MAX_ANSWER_BYTES);
  });

  it('keep the listing of every pool under the answer cap, with room for adds that raced past the limit', () => {
    const pool = { type: NAME, slots: MAX_SLOTS_PER_POOL, leased: HUGE, expired: HUGE, dirty: HUGE };
    expect(poolsAnswerSchema.safeParse({ now: LATEST, pools: [pool] }).success).toBe(true);
    const size = bytes({ now: LATEST, pools: [] }) + MAX_POOLS * (bytes(pool) + 1);
    expect(size * 10).toBeLessThan(MAX_ANSWER_BYTES);
  });
});

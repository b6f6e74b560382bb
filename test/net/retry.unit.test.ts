import { describe, expect, it } from 'vitest';
import { backoffMs, MAX_SERVER_WAIT_MS, parseRetryAfter, parseRetryAfterMs } from '../../src/net/retry.ts';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('parseRetryAfter', () => {
  it('reads delay-seconds, fractions included', () => {
    expect(parseRetryAfter('9', now)).toBe(9000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date as the time left until it, and a date in the past as 0', () => {
    expect(parseRetryAfter(new Date(now + 4000).toUTCString(), now)).toBe(4000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Thursday, 01-Jan-26 12:00:30 GMT', now)).toBe(30_000);
  });

  it('refuses what is neither: absent, empty, words, negative numbers, numbers with units', () => {
    for (const value of [undefined, null, '', '  ', 'soon', 'tomorrow 3', '-5', '-0.5', '5s', '1e3', '0x10'])
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
  });

  it('caps a huge wait at a day, so it stays a finite number', () => {
    expect(parseRetryAfter('99999999999999999999999', now)).toBe(MAX_SERVER_WAIT_MS);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', now)).toBe(MAX_SERVER_WAIT_MS);
    expect(parseRetryAfter('86401', now)).toBe(MAX_SERVER_WAIT_MS);
  });
});

describe('parseRetryAfterMs', () => {
  it('reads milliseconds, refuses garbage and negatives, caps huge values', () => {
    expect(parseRetryAfterMs('1500')).toBe(1500);
    expect(parseRetryAfterMs('12abc')).toBeUndefined();
    expect(parseRetryAfterMs('-1')).toBeUndefined();
    expect(parseRetryAfterMs(null)).toBeUndefined();
    expect(parseRetryAfterMs('1e30')).toBeUndefined();
    expect(parseRetryAfterMs('9'.repeat(30))).toBe(MAX_SERVER_WAIT_MS);
  });
});

describe('backoffMs', () => {
  const policy = { baseMs: 500, maxMs: 8000 };

  it('doubles per attempt, between half the ceiling and the ceiling', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffMs(attempt, policy, () => 0))).toEqual([
      250, 500, 1000, 2000,
    ]);
    expect(backoffMs(3, policy, () => 0.5)).toBe(1500);
  });

  it('never waits longer than the policy allows, however many attempts', () => {
    expect(backoffMs(9, policy, () => 0.999_999)).toBeLessThanOrEqual(8000);
    expect(backoffMs(1000, policy, () => 0.999_999)).toBeLessThanOrEqual(8000);
    expect(backoffMs(1000, policy, () => 0)).toBe(4000);
  });
});

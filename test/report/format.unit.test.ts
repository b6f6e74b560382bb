import { describe, expect, it } from 'vitest';
import { formatDuration, pullRequestOf } from '../../src/report/format.ts';
import { formatCount, plural } from '../../src/text/words.ts';

describe('formatDuration', () => {
  it.each([
    [950, '950 ms'],
    [12_400, '12 s'],
    [59_600, '1 min'],
    [4 * 60_000, '4 min'],
    [3 * 3_600_000 + 20 * 60_000, '3 h 20 min'],
    [4 * 3_600_000 - 1_000, '4 h'],
    [2 * 3_600_000, '2 h'],
    [2 * 86_400_000 + 5 * 3_600_000, '2 d 5 h'],
    [24 * 3_600_000 - 60_000, '23 h 59 min'],
    [25 * 3_600_000 + 10 * 60_000, '1 d 1 h'],
    // A two-day lease a minute after it was taken, and a day and a half later: days both times.
    [48 * 3_600_000 - 60_000, '2 d'],
    [43 * 3_600_000, '1 d 19 h'],
    [3 * 86_400_000 - 60_000, '3 d'],
    [-90_000, '2 min'],
  ])('%d ms reads "%s"', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatCount', () => {
  it.each([0, 7, 999, 1000, 1204, 100_000, 1_048_576, 1_200_000_000, -1500, 2 ** 53 - 1])(
    '%d reads as en-US does',
    (n) => {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    },
  );

  it('counts a noun', () => {
    expect([plural(1, 'key'), plural(1500, 'key'), plural(2, 'query', 'queries')]).toEqual([
      '1 key',
      '1,500 keys',
      '2 queries',
    ]);
  });
});

describe('pullRequestOf', () => {
  it.each([
    ['pr-7', 7],
    ['pr-1588', 1588],
    ['pr-07', null],
    ['pr-0', null],
    ['pr-7 ', null],
    ['PR-7', null],
    [null, null],
  ])('%s is pull request %s', (holder, number) => {
    expect(pullRequestOf(holder)).toBe(number);
  });
});

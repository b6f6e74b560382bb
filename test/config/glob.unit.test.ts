import { describe, expect, it } from 'vitest';
import { firstMatchingGlob } from '../../src/config/glob.ts';
import { parseDurationSeconds } from '../../src/text/duration.ts';

describe('protect globs', () => {
  it('matches * and ? and treats every other character literally', () => {
    expect(firstMatchingGlob('app-prod-db', ['*-prod*'])).toBe('*-prod*');
    expect(firstMatchingGlob('app-prd', ['app-pr?'])).toBe('app-pr?');
    expect(firstMatchingGlob('app.db', ['app?db', 'x'])).toBe('app?db');
    expect(firstMatchingGlob('appxdb', ['app.db'])).toBeUndefined();
    expect(firstMatchingGlob('a(b)+[c]', ['a(b)+[c]'])).toBe('a(b)+[c]');
    expect(firstMatchingGlob('preview-1', ['*-prod*', '*-prd*'])).toBeUndefined();
  });
});

describe('durations', () => {
  it('turns s, m, h and d into seconds and refuses the rest', () => {
    expect(parseDurationSeconds('45s')).toBe(45);
    expect(parseDurationSeconds('90m')).toBe(5400);
    expect(parseDurationSeconds('3h')).toBe(10_800);
    expect(parseDurationSeconds('2d')).toBe(172_800);
    for (const bad of ['0h', '3', 'h', '1.5h', '-1h', '3 hours', '3w'])
      expect(parseDurationSeconds(bad)).toBeUndefined();
  });
});

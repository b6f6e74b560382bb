// The last line of `npm test`: what it counts as failed, so it never says 0 failed for a failed run.
import { describe, expect, it } from 'vitest';
import { countsOf, summaryLine } from '../../scripts/test.ts';

const file = (status: string, tests: string[]) => ({
  status,
  assertionResults: tests.map((test) => ({ status: test })),
});

describe('the summary line of npm test', () => {
  it('counts passed and failed tests from the JSON report', () => {
    const report = {
      numPassedTests: 41,
      numFailedTests: 2,
      testResults: [file('passed', ['passed']), file('failed', ['failed', 'failed', 'passed'])],
    };
    expect(summaryLine(countsOf(report, 1))).toBe('41 passed, 2 failed');
    expect(summaryLine(countsOf({ ...report, numFailedTests: 0, testResults: [] }, 0))).toBe(
      '41 passed, 0 failed',
    );
  });

  it('counts a test file that could not load as a failure', () => {
    const report = { numPassedTests: 3, numFailedTests: 0, testResults: [file('failed', [])] };
    expect(countsOf(report, 1)).toEqual({ passed: 3, failed: 1 });
  });

  it('never says 0 failed when vitest failed outside any test or wrote no report', () => {
    const allPassed = { numPassedTests: 7, numFailedTests: 0, testResults: [file('passed', ['passed'])] };
    expect(countsOf(allPassed, 1)).toEqual({ passed: 7, failed: 1 });
    expect(countsOf(undefined, 1)).toEqual({ passed: 0, failed: 1 });
  });
});

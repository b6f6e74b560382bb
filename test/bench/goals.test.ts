// The goals behind `npm run bench`'s exit code: a missed goal must fail its check, a met one pass.
import { describe, expect, it } from 'vitest';
import { benchChecks, type CheckedFigures, formatGoal, formatValue } from '../../bench/goals.ts';

const MET: CheckedFigures = {
  quietSweep: { semaphoreRequests: 1, cloudflareRequests: 1 },
  coldStart: { ratio: 3.5, medianMs: 84, bareNodeMedianMs: 24, actionBundleBytes: 330_000 },
  sweepTime: { ratio: 0.45, wallMs: 3_060, sequentialMs: 6_800 },
  slowCalls: { ratioToPacingFloor: 1.04, wallMs: 59_000, pacingFloorMs: 56_700 },
  scale: { rateLimited: 0, peakRssBytes: 120 * 1024 * 1024 },
  memory: { growth: 0.08 },
  today: { sameDataLeft: true, wallRatio: 30 },
  bigTable: { ratioToPacingFloor: 1.03, refusedRequests: 0, wallMs: 4_120, pacingFloorMs: 4_000, runs: 2 },
  queue: { releaseToHolderMs: 3_100, heartbeatMs: 60_000, inOrder: true, headroom: 45 },
};

function failed(figures: CheckedFigures): string[] {
  return benchChecks(figures)
    .filter((check) => !check.ok)
    .map((check) => check.figure);
}

describe('the bench checks', () => {
  it('all pass when every figure meets its goal', () => {
    expect(failed(MET)).toEqual([]);
  });

  it.each([
    ['coldStart.ratio', { ...MET, coldStart: { ...MET.coldStart, ratio: 4.01 } }],
    [
      'coldStart.actionBundleBytes',
      { ...MET, coldStart: { ...MET.coldStart, actionBundleBytes: 1_500_001 } },
    ],
    [
      'quietSweep.cloudflareRequests',
      { ...MET, quietSweep: { semaphoreRequests: 1, cloudflareRequests: 2 } },
    ],
    ['quietSweep.semaphoreRequests', { ...MET, quietSweep: { semaphoreRequests: 2, cloudflareRequests: 1 } }],
    ['scale.rateLimited', { ...MET, scale: { ...MET.scale, rateLimited: 3 } }],
    ['today.sameDataLeft', { ...MET, today: { ...MET.today, sameDataLeft: false } }],
    ['today.wallRatio', { ...MET, today: { ...MET.today, wallRatio: 9.9 } }],
    ['sweepTime.ratio', { ...MET, sweepTime: { ...MET.sweepTime, ratio: 0.61 } }],
    ['slowCalls.ratioToPacingFloor', { ...MET, slowCalls: { ...MET.slowCalls, ratioToPacingFloor: 1.11 } }],
    ['scale.peakRssBytes', { ...MET, scale: { ...MET.scale, peakRssBytes: 150 * 1024 * 1024 + 1 } }],
    ['scale.peakRssBytes', { ...MET, scale: { ...MET.scale, peakRssBytes: null } }],
    ['memory.growth', { ...MET, memory: { growth: 0.151 } }],
    ['memory.growth', { ...MET, memory: { growth: null } }],
    ['bigTable.ratioToPacingFloor', { ...MET, bigTable: { ...MET.bigTable, ratioToPacingFloor: 1.11 } }],
    ['bigTable.refusedRequests', { ...MET, bigTable: { ...MET.bigTable, refusedRequests: 1 } }],
    ['queue.releaseToHolderMs', { ...MET, queue: { ...MET.queue, releaseToHolderMs: 60_001 } }],
    ['queue.inOrder', { ...MET, queue: { ...MET.queue, inOrder: false } }],
    ['queue.headroom', { ...MET, queue: { ...MET.queue, headroom: 9.9 } }],
  ])('fail on %s alone when it misses its goal', (figure, figures) => {
    expect(failed(figures)).toEqual([figure]);
  });

  it('hold exactly at the limit: a ratio of 4 and a bundle of 1,500,000 bytes pass', () => {
    expect(
      failed({ ...MET, coldStart: { ...MET.coldStart, ratio: 4, actionBundleBytes: 1_500_000 } }),
    ).toEqual([]);
  });

  it('name the figure each one read, so results.json shows the value beside its goal', () => {
    for (const check of benchChecks(MET)) {
      const value = check.figure
        .split('.')
        .reduce<unknown>((object, key) => (object as Record<string, unknown>)[key], MET);
      expect(value, check.figure).toBe(check.value);
    }
  });

  it('print the measured value and the goal in the same unit', () => {
    const byFigure = new Map(benchChecks(MET).map((check) => [check.figure, check]));
    const ratio = byFigure.get('coldStart.ratio');
    const bundle = byFigure.get('coldStart.actionBundleBytes');
    expect(ratio && [formatValue(ratio.value, ratio.unit), formatGoal(ratio.goal, ratio.unit)]).toEqual([
      '3.50x',
      '<= 4.00x',
    ]);
    expect(bundle && formatGoal(bundle.goal, bundle.unit)).toBe('<= 1,500,000 bytes (1.43 MiB)');
  });
});

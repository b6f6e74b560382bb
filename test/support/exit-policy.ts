// The exit policy of docs/design.md#exit-policy, written out independently of src/ so tests can hold the
// action to it: gc fails on any failed acquire, erase or release; cleanup only on a failed release;
// acquire whenever it handed no slot over; doctor when a slot has a problem; a deferred slot never
// fails a run; a run-level problem or an interruption always does.
import type { RunReport } from '../../src/report/model.ts';

export const FAILED_OUTCOMES: readonly string[] = ['acquire-failed', 'erase-failed', 'release-failed'];

export function expectedExitCode(report: RunReport): 0 | 1 {
  if (report.problems.length > 0 || report.interruptedBy !== undefined) return 1;
  if (report.command === 'acquire') return report.acquired === undefined ? 1 : 0;
  if (report.command === 'doctor')
    return (report.doctor?.rows ?? []).some((row) => row.findings.some((f) => f.severity === 'problem'))
      ? 1
      : 0;
  const failing = report.command === 'cleanup' ? ['release-failed'] : FAILED_OUTCOMES;
  return report.slots.some((slot) => failing.includes(slot.outcome)) ? 1 : 0;
}

// What a run report says, decided once for both renderers: the job summary (Markdown, summary.ts)
// and the terminal (src/cli/terminal-report.ts). They differ only in how text is escaped and marked
// up; which slots need attention, how a headline counts, what an outcome is called, stay here.

import { formatCount, plural } from '../text/words.ts';
import { doctorHeadline } from './doctor-view.ts';
import { formatDuration, howAcquired, readableUtc } from './format.ts';
import {
  type AcquiredSlot,
  countOutcomes,
  FAILED_OUTCOMES,
  GC_HOLDER,
  type PoolRow,
  type RunReport,
  type SlotOutcome,
  type SlotReport,
} from './model.ts';

/** How an outcome reads: a tone each renderer gives its own mark (and colour), then its words. */
export type OutcomeTone = 'done' | 'skipped' | 'waiting' | 'stopped' | 'failed' | 'preview' | 'warning';

export const OUTCOME_TONE: Record<SlotOutcome, OutcomeTone> = {
  reclaimed: 'done',
  released: 'done',
  erased: 'done',
  skipped: 'skipped',
  deferred: 'waiting',
  interrupted: 'stopped',
  'acquire-failed': 'failed',
  'erase-failed': 'failed',
  'release-failed': 'failed',
  'would-reclaim': 'preview',
  'would-release': 'preview',
  'still-running': 'warning',
};

/** `erase-failed` reads "erase failed". */
export function outcomeWords(outcome: SlotOutcome): string {
  return outcome.replace('-', ' ');
}

/** The renderer's own escaping: `code` for names (a slug), `text` for prose, `failed` for the failed count. */
export interface Markup {
  code(text: string): string;
  text(text: string): string;
  failed(text: string): string;
}

/** What the headline says after `preview-gc <command> on pool <pool>: `. */
export function headlineResult(report: RunReport, markup: Markup): string {
  if (report.problems.length > 0) return 'did not complete';
  if (report.acquired !== undefined) {
    const { acquired } = report;
    return `pull request #${report.pullRequest} has ${markup.code(acquired.slug)} until ${markup.text(readableUtc(acquired.leaseExpiresAt))}, ${howAcquired(acquired)}`;
  }
  if (report.doctor !== undefined) return doctorHeadline(report.doctor);
  if (report.command === 'status') return plural(report.poolAfter?.length ?? 0, 'slot');
  // A slot found still running is not one the run took back: it is counted on its own.
  const running = report.slots.filter((slot) => slot.outcome === 'still-running').length;
  const stillRunning = running > 0 ? `${running} still running after its park` : '';
  const worked = report.slots.length - running;
  if (worked === 0) {
    const nothing =
      report.command === 'cleanup'
        ? `pull request #${report.pullRequest} holds no slot, nothing to do`
        : 'nothing to reclaim';
    return [nothing, stillRunning].filter(Boolean).join(', ');
  }
  const verb = report.command === 'cleanup' ? 'released' : 'reclaimed';
  const counts = countOutcomes(report);
  return [
    report.dryRun ? `${worked} would be ${verb}` : `${counts.reclaimed} of ${worked} ${verb}`,
    counts.skipped > 0 ? `${counts.skipped} skipped` : '',
    counts.deferred > 0 ? `${counts.deferred} deferred` : '',
    counts.failed > 0 ? markup.failed(`${counts.failed} failed`) : '',
    stillRunning,
  ]
    .filter(Boolean)
    .join(', ');
}

/** The dry-run notice; a dry run stopped by a problem shows nothing a real run would do. */
export function dryRunNotice(report: RunReport): string {
  const shows = report.problems.length === 0 ? '; this is what a real run would do' : '';
  return `Nothing was acquired, erased or released${shows}.`;
}

export const STOPPED_NOTICE = 'The lease in hand was released; slots not reached wait for the next sweep.';

/**
 * Whose data a slot held before its erase, after "it held": a tenant's, through `name` (a link, an
 * escape); none when nobody held it since it joined the pool (added dirty, or marked dirty by hand);
 * and not gc's when gc held it last, since gc leaves no data: its erase stopped before the end.
 */
export function previousDataText(previousHolder: string | null, name: (holder: string) => string): string {
  if (previousHolder === null) return 'data from before it joined the pool, or from whoever marked it dirty';
  if (previousHolder === GC_HOLDER) return 'what an earlier erase (by gc) had not finished removing';
  return `the data of ${name(previousHolder)}`;
}

/** acquire: whether the slot was erased before it was handed over, and whose data it held. */
export function erasedFirstText(
  slot: AcquiredSlot,
  previousHolder: string | null,
  name: (holder: string) => string,
): string {
  if (slot.wasDirty) return `yes: it held ${previousDataText(previousHolder, name)}`;
  return slot.reused ? 'no: the pull request already held it' : 'no: it was clean';
}

/** The slots table's wait column: cleanup shows how long the pull request held the slot. */
export function waitingHeading(report: RunReport): string {
  return report.command === 'cleanup' ? 'Held for' : 'Waiting';
}

/** Slots listed under "What needs attention", with their problem and next step. */
export function needsAttention(slot: SlotReport): boolean {
  return FAILED_OUTCOMES.has(slot.outcome) || slot.outcome === 'deferred';
}

/** `3 more slots qualified and wait for the next run`, or nothing; the renderer names the setting. */
export function leftForNextRunText(report: RunReport, setting: string): string | undefined {
  return report.leftForNextRun > 0
    ? `${plural(report.leftForNextRun, 'more slot')} qualified and wait for the next run (${setting}).`
    : undefined;
}

export function poolHeading(report: RunReport): string {
  return report.command === 'status' ? 'Pool' : 'Pool after the run';
}

/**
 * A pool row's lease: `ends in 3 h`, `expired 5 min ago`, or `–` when nobody holds it; a lease gc keeps
 * (the keep label) says so and for how long at most: `ends in 2 h, kept (at most 2 d 1 h more)`.
 */
export function leaseText(row: Pick<PoolRow, 'leaseEndsInMs' | 'keptForMs'>): string {
  if (row.leaseEndsInMs === null) return '–';
  const end =
    row.leaseEndsInMs > 0
      ? `ends in ${formatDuration(row.leaseEndsInMs)}`
      : `expired ${formatDuration(-row.leaseEndsInMs)} ago`;
  return row.keptForMs === undefined
    ? end
    : `${end}, kept (at most ${formatDuration(Math.max(0, row.keptForMs))} more)`;
}

/** API calls by kind, sorted, each name through the renderer's escaping: `d1.query 4, kv.delete 2`. */
export function requestsByKind(
  byKind: Readonly<Record<string, number>>,
  name: (text: string) => string,
): string {
  return Object.entries(byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${name(kind)} ${formatCount(n)}`)
    .join(', ');
}

export function footerText(report: RunReport, startedAt: string): string {
  return `preview-gc ${report.command}${report.dryRun ? ' (dry run)' : ''}, started ${startedAt}, took ${formatDuration(report.durationMs)}.`;
}

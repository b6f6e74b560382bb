// The job summary's "Leases near their end" (gc's warning before reclaim and keep label, issue 31):
// what gc did about each pull request's lease that ends soon or ended.

import { plural } from '../text/words.ts';
import { escapeMarkdown as esc, inlineCode } from './escape.ts';
import { formatDuration, readableUtc } from './format.ts';
import type { LeaseEndReport, RunReport } from './model.ts';

/** What keeping a lease costs: who waits for a slot of the pool meanwhile, and how long the first has. */
function waitingBehind(end: LeaseEndReport): string {
  const queue = end.queue;
  if (queue === undefined || queue.length === 0) return '';
  return `; ${plural(queue.length, 'pull request')} ${queue.length === 1 ? 'waits' : 'wait'} for a slot of the pool, the first for ${formatDuration(queue.oldestWaitMs)}`;
}

/** What gc did about one lease near its end, in words. */
function leaseEndCell(end: LeaseEndReport): string {
  const keptUntil = end.keptUntil === undefined ? '' : `, at most until ${readableUtc(end.keptUntil)}`;
  const problem = end.problem === undefined ? '' : `: ${esc(end.problem)}`;
  switch (end.action) {
    case 'kept':
      return `🔒 kept for its label: extended${esc(keptUntil)}${esc(waitingBehind(end))}`;
    case 'would-keep':
      return `🔍 would be kept for its label${esc(keptUntil)}`;
    case 'keep-failed':
      return `⚠️ not kept${problem}`;
    case 'warned':
      return "💬 warned: the pull request's comment says when the slot is taken back and how to keep it";
    case 'warned-before':
      return '💬 warned by an earlier run (once per lease end)';
    case 'would-warn':
      return '🔍 would be warned';
    case 'warn-failed':
      return `⚠️ not warned${problem}`;
    case 'unchecked':
      return `⚠️ neither kept nor warned${problem}`;
  }
}

/**
 * The pull requests' leases near their end: kept for the keep label, warned, or why neither.
 * `holder` renders a holder as the summary does (linked to its pull request).
 */
export function leaseEndSection(report: RunReport, holder: (holder: string) => string): string[] {
  const ends = report.leaseEnds ?? [];
  if (ends.length === 0) return [];
  return [
    '### Leases near their end',
    '',
    '| Slot | Holder | Lease ends | What gc did |',
    '| --- | --- | --- | --- |',
    ...ends.map(
      (end) =>
        `| ${inlineCode(end.slug)} | ${holder(end.holder)} | ${readableUtc(end.endsAt)} | ${leaseEndCell(end)} |`,
    ),
    '',
  ];
}

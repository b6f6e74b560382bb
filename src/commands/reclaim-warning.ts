// The warning before reclaim (issue 31): gc tells a pull request, in a new comment (so its people are
// notified), that its slot is taken back when its lease ends, and how to keep it.
//
// Where "warned" is recorded: in the comment itself. Its hidden marker names the lease end it warns
// about (pool, slot, generation and lease version: every push, re-run or keep moves the version on,
// so a new end is a new marker), and gc looks for a comment with that marker before it posts.
// The record is where the warning is: no store to keep in step with GitHub, nothing lost when a
// semaphore is replaced, and a warning whose comment failed is tried again by the next run, never
// recorded as given. Each hourly run that sees the same lease end finds the marker and posts nothing.

import { inlineCode } from '../report/escape.ts';
import { formatDuration, readableUtc } from '../report/format.ts';

/** The lease end a warning is about. */
export interface WarnedLease {
  slug: string;
  generation: number;
  leaseVersion: number;
  /** When the lease ends (ms, the semaphore's clock). */
  endsAt: number;
}

/** The hidden marker that starts a warning: one per pool, slot, lease (generation) and lease end (version). */
export function warningMarker(pool: string, lease: WarnedLease): string {
  return `<!-- preview-gc:reclaim-warning:${pool}:${lease.slug}:g${lease.generation}:v${lease.leaseVersion} -->`;
}

export interface WarningText {
  pool: string;
  lease: WarnedLease;
  /** The semaphore's now, for "in about 40 min". */
  now: number;
  keepLabel: string;
  keepMaxHours: number;
  /** The lease is kept already, and this end is the most the keep may last: only a push keeps it longer. */
  keepEnds: boolean;
}

/** The warning's comment: when the slot is taken back, and how to keep it. */
export function warningComment(text: WarningText): string {
  const { pool, lease } = text;
  const at = readableUtc(new Date(lease.endsAt).toISOString());
  const slot = `${inlineCode(lease.slug)} (pool ${inlineCode(pool)})`;
  const when = `at **${at}** (in about ${formatDuration(Math.max(0, lease.endsAt - text.now))})`;
  const ways = text.keepEnds
    ? [
        `gc kept it for the label ${inlineCode(text.keepLabel)} as long as it may: ${text.keepMaxHours} hours after the lease began. To keep it longer, push to this pull request or re-run its deploy: each starts the lease anew.`,
      ]
    : [
        'To keep it, any of:',
        '- push to this pull request, or re-run its deploy: each extends the lease;',
        `- add the label ${inlineCode(text.keepLabel)}: gc then keeps the slot while the pull request is open, at most ${text.keepMaxHours} hours after the lease began.`,
      ];
  return [
    warningMarker(pool, lease),
    `**Preview slot** ${slot} will be taken back ${when}, when this pull request's lease ends: its data is erased and the slot goes to the next pull request that needs one.`,
    '',
    ...ways,
  ].join('\n');
}

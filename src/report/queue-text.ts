// A pull request's place in its pool's queue, in the words every output uses (the job summary, the
// sticky comment, the action's log and the CLI): "2nd in line for `preview-slot`, 9 slots, all leased".
import { formatCount, ordinal, plural } from '../text/words.ts';
import { formatDuration, readableUtc } from './format.ts';
import type { QueuePlaceReport, QueueReport } from './model.ts';

/** `pool` goes through `name`, the output's own way to show a name (inline code, a quoted log word). */
export function placeInLine(place: QueuePlaceReport, pool: string, name: (text: string) => string): string {
  const leased = place.leased >= place.slots ? 'all leased' : `${place.leased} leased`;
  return `${ordinal(place.position)} in line for ${name(pool)}, ${plural(place.slots, 'slot')}, ${leased}`;
}

/** What acquire says after a wait in line that got no slot: where it was, and that it left. */
export function leftLineText(place: QueuePlaceReport, pool: string, name: (text: string) => string): string {
  return `It was ${placeInLine(place, pool, name)}, when the wait ended; it has left the line. Push again (or re-run the job) to wait again, at the back.`;
}

/** The heading of a pool's queue: "2 waiting for a slot, the first for 12 min", or nobody. */
export function queueHeading(queue: QueueReport): string {
  const first = queue.waiters[0];
  if (first === undefined) return 'Nobody is waiting for a slot';
  return `${formatCount(queue.length)} waiting for a slot, the first for ${formatDuration(queue.at - first.waitingSince)}`;
}

/** "2026-12-03 10:00 UTC (12 min)": since when a waiter waits, and for how long by the listing's time. */
export function waitingSinceText(queue: QueueReport, waitingSince: number): string {
  return `${readableUtc(new Date(waitingSince).toISOString())} (${formatDuration(queue.at - waitingSince)})`;
}

/** Listings name the first waiters only; the rest are counted. */
export function unlistedWaiters(queue: QueueReport): number {
  return Math.max(0, queue.length - queue.waiters.length);
}

// How long to wait before trying a call again, for both clients (the semaphore's and Cloudflare's):
// the wait a server asks for, and our own backoff when it asks for none. Each client keeps its own
// numbers (base, ceiling, the longest wait it honours); the rules are these, once.

/**
 * The longest server wait a value can say. Both clients give up on waits far shorter than this; the
 * cap only keeps an absurd header (`Retry-After: 99999999999`) a plain finite number in their
 * messages and arithmetic.
 */
export const MAX_SERVER_WAIT_MS = 24 * 60 * 60 * 1000;

const DELAY_SECONDS = /^\d+(\.\d+)?$/;
/** An HTTP-date starts with a day name (RFC 9110: IMF-fixdate, and the obsolete RFC 850 and asctime forms). */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

/**
 * A `Retry-After` value in milliseconds: delay-seconds or an HTTP-date (a date in the past is 0).
 * `undefined` when absent or unreadable, negative numbers included: the caller then backs off on
 * its own. Only a day name lets a value be read as a date, because `Date.parse` accepts nearly
 * anything (`-5` is the year 2001).
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim() ?? '';
  if (DELAY_SECONDS.test(text)) return capped(Number(text) * 1000);
  if (!HTTP_DATE.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : capped(date - now);
}

/** A wait already in milliseconds (Cloudflare's `retry-after-ms`); `undefined` when unreadable. */
export function parseRetryAfterMs(value: string | null | undefined): number | undefined {
  const text = value?.trim() ?? '';
  return DELAY_SECONDS.test(text) ? capped(Number(text)) : undefined;
}

function capped(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_SERVER_WAIT_MS);
}

export interface BackoffPolicy {
  /** The ceiling of the first retry's wait. */
  baseMs: number;
  /** No wait is longer than this. */
  maxMs: number;
}

/**
 * Exponential backoff with "equal jitter": uniformly in [d/2, d], d = base × 2^(attempt-1), at most
 * `maxMs`. Half the wait is certain, so a retry never comes at once; the other half spreads the
 * clients that failed together. `random` is in [0, 1).
 */
export function backoffMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

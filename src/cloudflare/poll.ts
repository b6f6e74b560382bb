// Waiting for work Cloudflare finishes after the request that started it (a queue purge, Vectorize
// deletes). The check is read at once, then after growing waits, about half a minute in all: long
// enough for work that takes seconds, short enough that one slot does not hold up the run. The waits
// go through the pacer, so they end at the run's deadline or on a signal like every call.
import type { Pacer } from './pacer.ts';

/** The wait before each read: seven reads over 31 s. */
export const POLL_WAITS_MS: readonly number[] = [0, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000];

/** How long a poll waits in all, in seconds, for messages. */
export const POLL_SECONDS = POLL_WAITS_MS.reduce((sum, wait) => sum + wait, 0) / 1000;

/** Reads `check` until it answers true (then true) or the waits are over (then false). */
export async function pollUntil(
  pacer: Pacer,
  kind: string,
  check: () => Promise<boolean>,
  waitsMs: readonly number[] = POLL_WAITS_MS,
): Promise<boolean> {
  for (const wait of waitsMs) {
    if (wait > 0) await pacer.pause(kind, wait);
    if (await check()) return true;
  }
  return false;
}

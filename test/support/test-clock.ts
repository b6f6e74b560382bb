// Moves one pool's server clock forward on a semaphore started with `startLocalSemaphore({ testClock:
// true })` (src/semaphore/worker/test-clock.ts), so leases expire without waiting for them.
import { z } from 'zod';
import type { LocalSemaphore } from '../../src/semaphore/local.ts';
import { TEST_CLOCK_ROUTE } from '../../src/semaphore/worker/test-clock.ts';

const answerSchema = z.object({ now: z.int() });

/** Returns the pool's new `now` (server milliseconds). */
export async function advanceClock(
  semaphore: Pick<LocalSemaphore, 'url' | 'token'>,
  type: string,
  advanceMs: number,
): Promise<number> {
  const response = await fetch(`${semaphore.url}${TEST_CLOCK_ROUTE}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${semaphore.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type, advanceMs }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`advancing the clock of ${type} failed: HTTP ${response.status} ${text}`);
  return answerSchema.parse(JSON.parse(text)).now;
}

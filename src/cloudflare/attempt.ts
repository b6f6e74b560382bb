// What every Cloudflare attempt needs, whichever client sends it (the SDK for the REST API, a plain
// fetch for the GraphQL Analytics API): a signal of its own for the attempt, and the wait a server asked
// for. Kept apart from answer.ts, which loads the SDK's error classes: the spend read of a quiet sweep
// must not load the SDK.
import { parseRetryAfter, parseRetryAfterMs } from '../net/retry.ts';
import type { AttemptContext } from './pacer.ts';

/** Milliseconds the server asked to wait: `retry-after-ms`, else `Retry-After` (seconds or a date). */
export function retryAfterMs(headers: Headers | undefined, now: number): number | undefined {
  return (
    parseRetryAfterMs(headers?.get('retry-after-ms')) ?? parseRetryAfter(headers?.get('retry-after'), now)
  );
}

/**
 * Runs one attempt with a signal of its own, aborted by the run's signal or after the attempt's time,
 * and let go when the attempt ends. Not `AbortSignal.any([run, AbortSignal.timeout(ms)])`: the SDK
 * never removes the abort listener it adds to the signal it is given, and Node keeps a timeout or
 * combined signal with a listener alive until it fires, so each request and its whole answer stayed
 * in memory for the attempt's full time (30 s), some 900 of them at once in a long sweep.
 */
export async function withAttemptSignal<T>(
  context: AttemptContext,
  attempt: (signal: AbortSignal, timedOut: () => boolean) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const stop = () => controller.abort(context.signal.reason);
  if (context.signal.aborted) stop();
  else context.signal.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${context.timeoutMs} ms`, 'TimeoutError'));
  }, context.timeoutMs);
  try {
    return await attempt(controller.signal, () => timedOut);
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener('abort', stop);
  }
}

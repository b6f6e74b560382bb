// A notice to a chat webhook: one JSON POST with a Slack-compatible `text` field, tried a few times
// with backoff (retry.ts) on a network error, a 429 or a 5xx. It never throws: a notice that is not
// delivered is the caller's warning, never a failed run. The URL is a secret and is never in a message.
import { type BackoffPolicy, backoffMs } from './retry.ts';

export interface WebhookOptions {
  fetch?: typeof fetch;
  /** Tries in all, the first included. */
  attempts?: number;
  policy?: BackoffPolicy;
  sleep?: (ms: number) => Promise<void>;
  timeoutMs?: number;
}

const DEFAULT_POLICY: BackoffPolicy = { baseMs: 500, maxMs: 5_000 };

/** Sends `text`; answers null when delivered, else what went wrong (without the URL). */
export async function sendWebhookNotice(
  url: string,
  text: string,
  options: WebhookOptions = {},
): Promise<string | null> {
  const send = options.fetch ?? fetch;
  const attempts = options.attempts ?? 3;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let problem = 'not sent';
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    if (attempt > 1) await sleep(backoffMs(attempt - 1, options.policy ?? DEFAULT_POLICY));
    try {
      const response = await send(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      await response.body?.cancel();
      if (response.ok) return null;
      problem = `HTTP ${response.status}`;
      if (response.status !== 429 && response.status < 500) return problem;
    } catch (error) {
      problem =
        error instanceof Error && error.name === 'TimeoutError' ? 'no answer in time' : 'the network failed';
    }
  }
  return `${problem}, after ${attempts} tries`;
}

// A job's OIDC token from the Actions runner's token service, as `core.getIDToken(audience)` gets it:
// GET ACTIONS_ID_TOKEN_REQUEST_URL with `&audience=…`, the runner's request token as the bearer, the
// token in the answer's `value`. Through Node's fetch: @actions/core's own client brings a second
// HTTP client and undici into the action's start-up, which cost every run 60-100 ms (measured with
// the bundle), OIDC or not. The runner sets both variables only for a job with `id-token: write`.
import { setTimeout as delay } from 'node:timers/promises';
import { type BackoffPolicy, backoffMs } from '../net/retry.ts';
import * as z from '../zod.ts';

const ATTEMPTS = 3;
const BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 4_000 };
const TIMEOUT_MS = 10_000;

const answerSchema = z.object({ value: z.string().min(1) });

/** The job's OIDC token for `audience`; throws an Error saying what is missing or what went wrong. */
export async function jobIdToken(
  audience: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  fetcher: typeof fetch = fetch,
): Promise<string> {
  const url = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (url === undefined || url === '' || requestToken === undefined || requestToken === '')
    throw new Error(
      'the runner gave the job no ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN, which it does only with permissions: id-token: write',
    );
  let problem = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const response = await fetcher(`${url}&audience=${encodeURIComponent(audience)}`, {
        headers: { authorization: `Bearer ${requestToken}`, accept: 'application/json' },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const body: unknown = await response.json().catch(() => undefined);
      const answer = answerSchema.safeParse(body);
      if (response.ok && answer.success) return answer.data.value;
      problem = response.ok
        ? "the runner's token service answered without a token"
        : `the runner's token service answered HTTP ${response.status}`;
      // A refusal (4xx) stays one: only a server's trouble is worth asking again.
      if (response.status < 500) break;
    } catch (error) {
      problem = `the runner's token service could not be reached (${error instanceof Error ? error.name : 'error'})`;
    }
    if (attempt < ATTEMPTS) await delay(backoffMs(attempt, BACKOFF));
  }
  throw new Error(problem);
}

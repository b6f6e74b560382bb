// One POST of the spend query to `<api base>/graphql`, through the run's pacer like every Cloudflare
// call (its rate, budget, deadline, retries of 5xx and short 429s). A plain fetch, not the SDK: the SDK
// has no GraphQL resource, and a quiet sweep must not load it. GraphQL answers a refused or failed
// query with an `errors` array, with HTTP 200 as often as with an error status, so both are read.
import { retryAfterMs, withAttemptSignal } from '../cloudflare/attempt.ts';
import { type CallFailureReason, CloudflareCallError } from '../cloudflare/call-error.ts';
import type { Pacer } from '../cloudflare/pacer.ts';
import type * as z from '../zod.ts';
import { type GraphQlError, type SpendAccount, spendAnswerSchema } from './answer.ts';
import type { SpendQuery } from './query.ts';

const ANALYTICS_CALL = 'analytics.graphql';

export interface AnalyticsOptions {
  apiToken: string;
  accountId: string;
  /** e.g. https://api.cloudflare.com/client/v4 */
  baseUrl: string;
  pacer: Pacer;
  fetch?: typeof fetch;
}

/** Cloudflare's own texts are shown to people: at most this much of them. */
const MAX_MESSAGE = 200;

function fail(
  reason: CallFailureReason,
  message: string,
  status?: number,
  wait?: number,
): CloudflareCallError {
  return new CloudflareCallError(
    { kind: ANALYTICS_CALL, reason, status, ...(wait === undefined ? {} : { retryAfterMs: wait }) },
    message,
  );
}

function describeErrors(errors: readonly GraphQlError[]): string {
  const text = errors
    .map((error) => (error.extensions?.code ? `${error.message} (${error.extensions.code})` : error.message))
    .join('; ');
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined ? '' : `${issue.path.join('.')}: ${issue.message}`;
}

/**
 * `budget` is the account's analytics budget, spent for the next five minutes: no retry helps, so it
 * carries no status the pacer would retry on.
 */
function refusal(status: number, errors: readonly GraphQlError[], wait?: number): CloudflareCallError {
  const said = errors.length > 0 ? `: ${describeErrors(errors)}` : '';
  if (errors.some((error) => error.extensions?.code === 'budget'))
    return fail('rate-limited', `HTTP ${status}${said}`);
  return fail('api', `HTTP ${status}${said}`, status, wait);
}

/** Reads one answer: its account's rows, or the failure the pacer judges (a 5xx or 429 is retried). */
function readAnswer(status: number, headers: Headers, text: string): SpendAccount {
  const parsed = spendAnswerSchema.safeParse(parseJson(text));
  const errors = parsed.success ? (parsed.data.errors ?? []) : [];
  if (status < 200 || status > 299) throw refusal(status, errors, retryAfterMs(headers, Date.now()));
  if (!parsed.success)
    throw fail(
      'invalid-answer',
      `HTTP ${status}: not the GraphQL answer (${firstIssue(parsed.error)})`,
      status,
    );
  if (errors.length > 0) throw refusal(status, errors);
  const account = parsed.data.data?.viewer?.accounts[0];
  if (account === undefined)
    throw fail('invalid-answer', `HTTP ${status} without the account's data`, status);
  return account;
}

export function sendSpendQuery(options: AnalyticsOptions, body: SpendQuery): Promise<SpendAccount> {
  const doFetch = options.fetch ?? fetch;
  return options.pacer.call(ANALYTICS_CALL, (context) =>
    withAttemptSignal(context, async (signal, timedOut) => {
      let response: Response;
      let text: string;
      try {
        response = await doFetch(`${options.baseUrl}/graphql`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${options.apiToken}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: JSON.stringify(body),
          signal,
          redirect: 'error',
        });
        text = await response.text();
      } catch (error) {
        if (context.signal.aborted) throw fail('aborted', 'the run was stopped');
        if (timedOut()) throw fail('timeout', `no answer within ${Math.round(context.timeoutMs / 1000)} s`);
        throw fail('network', `could not reach Cloudflare (${causeOf(error)})`);
      }
      return readAnswer(response.status, response.headers, text);
    }),
  );
}

function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return code ?? cause?.message ?? error.message;
}

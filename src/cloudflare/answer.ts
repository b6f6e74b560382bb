// One HTTP attempt through the SDK, turned into either a validated answer or a CloudflareCallError.
// The SDK is only used to build and send the request (`.asResponse()`): the envelope is read and
// checked here, because the SDK hands back `result` of a 200 with `success: false` as if it worked.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'cloudflare/error';
import * as z from '../zod.ts';
import { retryAfterMs, withAttemptSignal } from './attempt.ts';
import { type CallFailureReason, type ClassRefusal, CloudflareCallError } from './call-error.ts';
import type { AttemptContext } from './pacer.ts';

export { retryAfterMs, withAttemptSignal } from './attempt.ts';

/** `errors[].meta.details` of a failed exports reconciliation (wrangler: ExportsReconciliationErrorDetail). */
const refusalSchema = z.looseObject({
  class: z.string().max(200),
  scenario: z.string().max(100),
  message: z.string(),
  referencing_scripts: z.array(z.string().max(200)).max(100).nullish(),
});
const metaSchema = z
  .looseObject({ details: z.array(z.unknown()).nullish() })
  .nullish()
  .catch(undefined);

const envelopeSchema = z.object({
  success: z.boolean(),
  errors: z
    .array(z.looseObject({ code: z.number(), message: z.string(), meta: metaSchema }))
    .nullish()
    .transform((errors) => errors ?? []),
  result: z.unknown(),
  result_info: z.unknown().optional(),
});

/** The options every SDK call gets: one attempt, our signal, our timeout. */
export interface SdkRequestOptions {
  maxRetries: 0;
  timeout: number;
  signal: AbortSignal;
}

export interface Answer<R, I> {
  result: R;
  info: I;
}

const MAX_MESSAGE = 300;

/** The errors' codes and messages, and the classes a reconciliation refused (from meta.details). */
function describeErrors(errors: EnvelopeErrors): string {
  const refusals = refusalsOf(errors).map((refusal) => `${refusal.class}: ${refusal.scenario}`);
  const text = [
    errors.map((error) => `code ${error.code}: ${error.message}`).join('; '),
    ...(refusals.length > 0 ? [`(${refusals.join('; ')})`] : []),
  ].join(' ');
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

type EnvelopeErrors = z.infer<typeof envelopeSchema>['errors'];

function codesOf(body: unknown): EnvelopeErrors {
  const parsed = envelopeSchema.pick({ errors: true }).safeParse(body);
  return parsed.success ? parsed.data.errors : [];
}

/** The well-formed entries of the first error's `meta.details`; the rest are dropped, not trusted. */
function refusalsOf(errors: EnvelopeErrors): ClassRefusal[] {
  return (errors[0]?.meta?.details ?? []).flatMap((detail) => {
    const parsed = refusalSchema.safeParse(detail);
    if (!parsed.success) return [];
    const { class: name, scenario, message, referencing_scripts } = parsed.data;
    return [{ class: name, scenario, message, referencingScripts: referencing_scripts ?? [] }];
  });
}

/** Turns whatever one attempt threw into a CloudflareCallError; `timedOut` says our timer fired. */
export function toCallError(kind: string, error: unknown, context: AttemptContext, timedOut: boolean) {
  if (error instanceof CloudflareCallError) return error;
  const fail = (reason: CallFailureReason, message: string, status?: number) =>
    new CloudflareCallError({ kind, reason, status }, message);
  if (context.signal.aborted) return fail('aborted', 'the run was stopped');
  if (timedOut || error instanceof APIConnectionTimeoutError) {
    return fail('timeout', `no answer within ${Math.round(context.timeoutMs / 1000)} s`);
  }
  if (error instanceof APIConnectionError) {
    return fail('network', `could not reach Cloudflare (${causeOf(error)})`);
  }
  if (error instanceof APIError && error.status !== undefined) {
    const errors = codesOf(error.error);
    return new CloudflareCallError(
      {
        kind,
        reason: 'api',
        status: error.status,
        codes: errors.map((entry) => entry.code),
        retryAfterMs: retryAfterMs(error.headers, Date.now()),
        refusals: refusalsOf(errors),
      },
      `HTTP ${error.status}${errors.length > 0 ? `, ${describeErrors(errors)}` : ''}`,
    );
  }
  // The body stream broke after the headers arrived (a reset mid-answer).
  if (error instanceof TypeError || (error instanceof Error && error.name === 'AbortError')) {
    return fail('network', `the connection broke while reading the answer (${causeOf(error)})`);
  }
  return error;
}

function causeOf(error: Error): string {
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return code ?? cause?.message ?? error.message;
}

/**
 * Sends one request built by `request` and validates the envelope and its `result` (and
 * `result_info` when a schema is given). For use inside `pacer.call`.
 */
export async function readAnswer<R, I = undefined>(
  kind: string,
  context: AttemptContext,
  request: (options: SdkRequestOptions) => PromiseLike<Response>,
  resultSchema: z.ZodType<R>,
  infoSchema?: z.ZodType<I>,
): Promise<Answer<R, I>> {
  const { status, body } = await withAttemptSignal(context, async (signal, timedOut) => {
    try {
      const response = await request({ maxRetries: 0, timeout: context.timeoutMs, signal });
      const text = await response.text();
      try {
        return { status: response.status, body: JSON.parse(text) as unknown };
      } catch {
        throw new CloudflareCallError(
          { kind, reason: 'invalid-answer', status: response.status },
          `HTTP ${response.status} with a body that is not JSON (${text.length} bytes)`,
        );
      }
    } catch (error) {
      throw toCallError(kind, error, context, timedOut());
    }
  });
  return checkEnvelope(kind, status, body, resultSchema, infoSchema);
}

function checkEnvelope<R, I>(
  kind: string,
  status: number,
  body: unknown,
  resultSchema: z.ZodType<R>,
  infoSchema: z.ZodType<I> | undefined,
): Answer<R, I> {
  const envelope = envelopeSchema.safeParse(body);
  if (!envelope.success) {
    throw new CloudflareCallError(
      { kind, reason: 'invalid-answer', status },
      `HTTP ${status} without the API envelope (${firstIssue(envelope.error)})`,
    );
  }
  const { success, errors, result, result_info } = envelope.data;
  if (!success) {
    throw new CloudflareCallError(
      { kind, reason: 'api', status, codes: errors.map((error) => error.code), refusals: refusalsOf(errors) },
      `HTTP ${status} with success: false${errors.length > 0 ? `, ${describeErrors(errors)}` : ''}`,
    );
  }
  const parsedResult = resultSchema.safeParse(result);
  const parsedInfo = infoSchema?.safeParse(result_info);
  const issue = !parsedResult.success
    ? `result${firstIssue(parsedResult.error)}`
    : parsedInfo && !parsedInfo.success
      ? `result_info${firstIssue(parsedInfo.error)}`
      : undefined;
  if (issue !== undefined || !parsedResult.success) {
    throw new CloudflareCallError(
      { kind, reason: 'invalid-answer', status },
      `HTTP ${status} with an answer that does not match the API (${issue})`,
    );
  }
  return { result: parsedResult.data, info: parsedInfo?.data as I };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return '';
  const path = issue.path.map((segment) =>
    typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`,
  );
  return `${path.join('')}: ${issue.message}`;
}

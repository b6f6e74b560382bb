// The one error every Cloudflare call fails with. `reason` says what the caller should do about it:
// budget, deadline, rate-limited and aborted mean "try again in a later run"; the others mean
// "something is wrong with this call". Messages are built from Cloudflare's error texts only, never
// from request headers or bodies, so they cannot leak the API token.

export const CALL_FAILURE_REASONS = [
  'rate-limited',
  'budget',
  'deadline',
  'aborted',
  'api',
  'network',
  'timeout',
  'invalid-answer',
] as const;
export type CallFailureReason = (typeof CALL_FAILURE_REASONS)[number];

/** Reasons that say "not now" rather than "broken": the slot is deferred to a later run. */
export const DEFERRING_REASONS: ReadonlySet<string> = new Set<CallFailureReason>([
  'rate-limited',
  'budget',
  'deadline',
  'aborted',
]);

/**
 * One entry of the envelope's `errors[0].meta.details`: a Durable Object class an exports
 * reconciliation refused, with why (`scenario`) and the Workers still bound to it.
 */
export interface ClassRefusal {
  class: string;
  scenario: string;
  message: string;
  referencingScripts: string[];
}

export interface CallErrorDetails {
  /** The kind of call, e.g. `d1.query`. */
  kind: string;
  reason: CallFailureReason;
  status?: number | undefined;
  /** Cloudflare error codes from the envelope, e.g. [7500]. */
  codes?: readonly number[];
  /** A wait the server asked for (Retry-After / retry-after-ms), in milliseconds. */
  retryAfterMs?: number | undefined;
  /** Per-class refusals from `errors[0].meta.details` (a failed exports reconciliation). */
  refusals?: readonly ClassRefusal[];
}

export class CloudflareCallError extends Error {
  readonly kind: string;
  readonly reason: CallFailureReason;
  readonly status: number | undefined;
  readonly codes: readonly number[];
  readonly retryAfterMs: number | undefined;
  readonly refusals: readonly ClassRefusal[];

  constructor(details: CallErrorDetails, message: string) {
    super(`${details.kind}: ${message}`);
    this.name = 'CloudflareCallError';
    this.kind = details.kind;
    this.reason = details.reason;
    this.status = details.status;
    this.codes = details.codes ?? [];
    this.retryAfterMs = details.retryAfterMs;
    this.refusals = details.refusals ?? [];
  }

  /** The same failure with another reason or message, e.g. after the last retry. */
  withReason(reason: CallFailureReason, message: string): CloudflareCallError {
    return new CloudflareCallError(
      {
        kind: this.kind,
        reason,
        status: this.status,
        codes: this.codes,
        retryAfterMs: this.retryAfterMs,
        refusals: this.refusals,
      },
      message,
    );
  }

  /** The message without the `kind: ` prefix. */
  get detail(): string {
    return this.message.slice(this.kind.length + 2);
  }
}

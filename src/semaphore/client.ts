// Typed client of the semaphore protocol (docs/semaphore-protocol.md). Every answer is
// validated with the protocol's zod schemas; calls that are safe to repeat are retried with jittered
// backoff on network errors, timeouts, 5xx and short 429s. Errors never carry the token or any header,
// and nothing it writes to the semaphore carries a secret of the run (stored-text.ts).
import { setTimeout as delay } from 'node:timers/promises';
import { type BackoffPolicy, backoffMs, parseRetryAfter } from '../net/retry.ts';
import { secretRedactor } from '../text/redact.ts';
import type * as z from '../zod.ts';
import {
  type AcquireRequest,
  type AcquireSpecificRequest,
  type AddRequest,
  BEARER_TOKEN,
  deleteAnswerSchema,
  describeIssues,
  type ExtendAnswer,
  type ExtendRequest,
  errorBodySchema,
  eventsAnswerSchema,
  extendAnswerSchema,
  type HealthAnswer,
  healthAnswerSchema,
  type Issue,
  type Lease,
  type ListAnswer,
  leaseSchema,
  listAnswerSchema,
  MAX_ANSWER_BYTES,
  type MarkDirtyRequest,
  type PoolsAnswer,
  poolsAnswerSchema,
  poolTypeSchema,
  type QueuePlace,
  type RecordActivityAnswer,
  type RecordActivityRequest,
  type ReleaseAnswer,
  type ReleaseRequest,
  type RenewRequest,
  recordActivityAnswerSchema,
  releaseAnswerSchema,
  type SemaphoreEvent,
  type Slot,
  slotSchema,
  slugSchema,
  toIssues,
  type WhoamiAnswer,
  whoamiAnswerSchema,
} from './protocol.ts';
import {
  LEAVE_QUEUE_ROUTE,
  type LeaveQueueAnswer,
  type LeaveQueueRequest,
  leaveQueueAnswerSchema,
} from './queue-protocol.ts';
import { redactWrite } from './stored-text.ts';

/**
 * Where a token comes from when it is not fixed: a deploy job's OIDC token, fetched when first needed
 * and again when the semaphore refuses one (it expires within minutes).
 */
export type TokenSource = () => Promise<string>;

export interface SemaphoreClientOptions {
  baseUrl: string;
  token: string | TokenSource;
  /**
   * The run's other secrets (the Cloudflare and GitHub tokens). What the client writes (notes, erase
   * failures) is redacted of them, and of its own token, in every form the log net knows; a name that
   * carries one is not sent at all.
   */
  secrets?: readonly string[];
  /** Per HTTP request (each retry gets its own). Default 10 s. */
  timeoutMs?: number;
  /** Attempts of a retryable call, the first included. Default 3. */
  maxAttempts?: number;
  fetch?: typeof fetch;
  /** Aborts every call in flight and every later one (e.g. on SIGTERM). */
  signal?: AbortSignal;
}

/**
 * `code` is the server's error code (`not_found`, `none_available`, …) or one of the client's own:
 * `network`, `timeout`, `aborted`, `invalid_answer`, `http_error` (an error answer that is not the
 * protocol's error body). Every 401 is `unauthorized` with a message saying the semaphore refused the
 * token and nothing was changed (callers add where the token comes from); so is a token the client
 * cannot send at all. `message` carries the server's message when the server sent one.
 */
export class SemaphoreError extends Error {
  readonly status: number | undefined;
  readonly code: string;
  /** `METHOD /path` of the call that failed. */
  readonly operation: string;
  readonly issues: readonly Issue[] | undefined;
  /** The wait a 429 asked for (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The token was a token source's (a job's OIDC token), not a fixed one: a refusal is about it. */
  readonly fetchedToken: boolean;
  /** A waiting acquire's place in the pool's queue, with its `none_available`. */
  readonly queue: QueuePlace | undefined;

  constructor(options: {
    status: number | undefined;
    code: string;
    message: string;
    operation: string;
    issues?: Issue[];
    retryAfterMs?: number;
    fetchedToken?: boolean;
    queue?: QueuePlace;
  }) {
    super(options.message);
    this.name = 'SemaphoreError';
    this.status = options.status;
    this.code = options.code;
    this.operation = options.operation;
    this.issues = options.issues;
    this.retryAfterMs = options.retryAfterMs;
    this.fetchedToken = options.fetchedToken ?? false;
    this.queue = options.queue;
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_ATTEMPTS = 3;
const BACKOFF: BackoffPolicy = { baseMs: 100, maxMs: 2_000 };
/**
 * A 429 is retried when it asks for at most this long: a rate-limited release must not wait out a
 * long block (the GC lease runs out by itself), but a short one is worth waiting for.
 */
const RETRY_AFTER_CAP_MS = 10_000;

interface Call<T> {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  schema: z.ZodType<T>;
  /** Safe to send again when the first answer was lost. */
  retryable: boolean;
  authenticated?: false;
}

const segment = encodeURIComponent;

/**
 * A lease answer must be of the pool (and the slot) the call named: a caller erases the slot its lease
 * names, so a lease of another slot taken at its word would erase a slot someone else holds. zod runs
 * this even when the fields broke their rules, so it names only a value that passed them.
 */
function leaseOf(type: string, slug: string | undefined) {
  return leaseSchema.superRefine((lease, context) => {
    if (lease.type !== type && poolTypeSchema.safeParse(lease.type).success)
      context.addIssue({
        code: 'custom',
        path: ['type'],
        message: `is ${lease.type}, but the call was for pool ${type}`,
      });
    if (slug !== undefined && lease.slug !== slug && slugSchema.safeParse(lease.slug).success)
      context.addIssue({
        code: 'custom',
        path: ['slug'],
        message: `is ${lease.slug}, but the call was for slot ${slug}`,
      });
  });
}

const aborted = (operation: string, status?: number): SemaphoreError =>
  new SemaphoreError({ status, code: 'aborted', operation, message: `${operation} was aborted` });

function isTransient(error: SemaphoreError): boolean {
  return (
    error.code === 'network' ||
    error.code === 'timeout' ||
    (error.status !== undefined && error.status >= 500) ||
    (error.status === 429 && (error.retryAfterMs ?? 0) <= RETRY_AFTER_CAP_MS)
  );
}

export class SemaphoreClient {
  readonly #baseUrl: string;
  readonly #tokenSource: TokenSource | undefined;
  /** The token, once known (a fixed one from the start, a fetched one from the first call on). */
  #token: string | undefined;
  readonly #secrets: readonly string[];
  #redact: (text: string) => string;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #fetch: typeof fetch;
  readonly #signal: AbortSignal | undefined;
  #requestCount = 0;

  constructor(options: SemaphoreClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#tokenSource = typeof options.token === 'string' ? undefined : options.token;
    this.#token = typeof options.token === 'string' ? options.token : undefined;
    this.#secrets = options.secrets ?? [];
    this.#redact = secretRedactor([this.#token ?? '', ...this.#secrets]);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.#fetch = options.fetch ?? fetch;
    this.#signal = options.signal;
  }

  /** HTTP requests sent so far, retries included. */
  get requestCount(): number {
    return this.#requestCount;
  }

  health(): Promise<HealthAnswer> {
    return this.#call({
      method: 'GET',
      path: '/api/health',
      schema: healthAnswerSchema,
      retryable: true,
      authenticated: false,
    });
  }

  list(type: string): Promise<ListAnswer> {
    return this.#call({
      method: 'GET',
      path: `/api/resources?type=${segment(type)}`,
      schema: listAnswerSchema,
      retryable: true,
    });
  }

  /** Every pool that has at least one slot, with its counts. */
  pools(): Promise<PoolsAnswer> {
    return this.#call({ method: 'GET', path: '/api/pools', schema: poolsAnswerSchema, retryable: true });
  }

  /** A slot that does not exist is a SemaphoreError with code `not_found`. */
  find(type: string, slug: string): Promise<Slot> {
    return this.#call({
      method: 'GET',
      path: `/api/resources/${segment(type)}/${segment(slug)}`,
      schema: slotSchema,
      retryable: true,
    });
  }

  /** `dirty: true` adopts a slot that already holds data: the next gc erases it. */
  add(input: AddRequest): Promise<Slot> {
    return this.#call({
      method: 'POST',
      path: '/api/resources',
      body: input,
      schema: slotSchema,
      retryable: false,
    });
  }

  /** The role the token signs in as, and what it may do. */
  whoami(): Promise<WhoamiAnswer> {
    return this.#call({ method: 'GET', path: '/api/whoami', schema: whoamiAnswerSchema, retryable: true });
  }

  /**
   * Removes the slot only while it is at `ifGeneration` (the generation the caller saw: a slot leased
   * since is `condition_failed`) and clean, unless `allowDirty` (a dirty one is `dirty`: its data is
   * never erased once it leaves the pool). `note` is kept in the `deleted` event.
   */
  async remove(
    type: string,
    slug: string,
    options: { ifGeneration: number; allowDirty?: boolean; note?: string },
  ): Promise<void> {
    const operation = `DELETE /api/resources/${segment(type)}/${segment(slug)}`;
    const written = this.#redactedWrite(
      { ...(options.note === undefined ? {} : { note: options.note }) },
      operation,
    );
    const query = new URLSearchParams({ ifGeneration: String(options.ifGeneration) });
    if (options.allowDirty === true) query.set('allowDirty', 'true');
    if (written.note !== undefined) query.set('note', written.note);
    await this.#call({
      method: 'DELETE',
      path: `/api/resources/${segment(type)}/${segment(slug)}?${query}`,
      schema: deleteAnswerSchema,
      retryable: false,
    });
  }

  /**
   * `null`: a live lease holds the slot ("somebody has it now"), not an error. With `force: true`,
   * `ifHolder`/`ifGeneration` make the force conditional: a slot that no longer matches is a
   * SemaphoreError with code `condition_failed`, and nothing changed.
   */
  acquireSpecific(input: AcquireSpecificRequest): Promise<Lease | null> {
    return this.#call({
      method: 'POST',
      path: '/api/resources/acquire-specific',
      body: input,
      schema: leaseOf(input.type, input.slug).nullable(),
      retryable: input.requestId !== undefined,
    });
  }

  /**
   * No candidate slot is a SemaphoreError with code `none_available`. With `reuseHeld: true`, a live
   * lease `holder` already has in the pool is extended and answered instead (`reused: true`).
   */
  acquire(input: AcquireRequest): Promise<Lease> {
    return this.#call({
      method: 'POST',
      path: '/api/resources/acquire',
      body: input,
      schema: leaseOf(input.type, undefined),
      retryable: input.requestId !== undefined,
    });
  }

  /** Takes `holder` out of the pool's queue (a cancelled wait); `left: false` when it was not waiting. */
  leaveQueue(input: LeaveQueueRequest): Promise<LeaveQueueAnswer> {
    return this.#call({
      method: 'POST',
      path: LEAVE_QUEUE_ROUTE,
      body: input,
      schema: leaveQueueAnswerSchema,
      // Leaving twice leaves the queue as leaving once did.
      retryable: true,
    });
  }

  /** `null`: the lease is gone; stop touching the slot. */
  renew(input: RenewRequest): Promise<Lease | null> {
    return this.#call({
      method: 'POST',
      path: '/api/resources/renew',
      body: input,
      schema: leaseOf(input.type, input.slug).nullable(),
      retryable: true,
    });
  }

  /**
   * With `force: true`, `ifHolder`/`ifGeneration` make the force conditional: a slot that no longer
   * matches answers `released: false, conditionFailed: true` with its current holder and generation.
   * `eraseFailure` (with a dirty release) counts one more failed erase of the slot; `clean: true`
   * resets the count. `note` is kept in the release event.
   */
  release(input: ReleaseRequest): Promise<ReleaseAnswer> {
    return this.#call({
      method: 'POST',
      path: '/api/resources/release',
      body: input,
      schema: releaseAnswerSchema,
      // Releasing by leaseId twice is harmless, and so is a force pinned to a generation (a newer lease
      // has a newer generation); an unpinned force repeated could release a newer lease.
      retryable: input.leaseId !== undefined || (input.force === true && input.ifGeneration !== undefined),
    });
  }

  /**
   * gc keeps a lease it does not hold (the keep label): the end moves later only while the slot still
   * has the lease read (all three conditions), at most `maxHeldMs` after the lease began.
   */
  extend(input: ExtendRequest): Promise<ExtendAnswer> {
    return this.#call({
      method: 'POST',
      path: '/api/resources/extend',
      body: input,
      schema: extendAnswerSchema,
      // Pinned to a lease version: a retry after a lost answer finds the version moved on and changes nothing.
      retryable: true,
    });
  }

  /** Marks a slot dirty (free or leased), so the next erase removes its data; answers the slot. */
  markDirty(input: MarkDirtyRequest): Promise<Slot> {
    return this.#call({
      method: 'POST',
      path: '/api/resources/mark-dirty',
      body: input,
      schema: slotSchema,
      // Marking dirty twice leaves the slot as marking it once did (only the event log grows).
      retryable: true,
    });
  }

  /**
   * Keeps each slot's activity record; answers which slots it kept and which spend alerts the server
   * allowed (one per lease a day). Repeating it writes the same records again, so it is retried; an
   * alert the lost first answer allowed is not allowed again by the retry (it was, once).
   */
  recordActivity(input: RecordActivityRequest): Promise<RecordActivityAnswer> {
    return this.#call({
      method: 'POST',
      path: '/api/resources/activity',
      body: input,
      schema: recordActivityAnswerSchema,
      retryable: true,
    });
  }

  /** Newest first. */
  async events(type: string, slug: string, limit?: number): Promise<SemaphoreEvent[]> {
    const query = limit === undefined ? '' : `?limit=${limit}`;
    const answer = await this.#call({
      method: 'GET',
      path: `/api/resources/${segment(type)}/${segment(slug)}/events${query}`,
      schema: eventsAnswerSchema,
      retryable: true,
    });
    return answer.events;
  }

  /** A write as the semaphore may keep it: its free text redacted, a name carrying a secret never sent. */
  #redactedWrite<T extends object>(body: T, operation: string): T {
    const written = redactWrite(body, this.#redact);
    if ('body' in written) return written.body;
    throw new SemaphoreError({
      status: undefined,
      code: 'invalid_request',
      operation,
      message: `${operation}: ${written.field} carries a secret of this run (a token), so nothing was sent`,
    });
  }

  async #call<T>(call: Call<T>): Promise<T> {
    const operation = `${call.method} ${call.path.split('?')[0]}`;
    if (this.#signal?.aborted === true) throw aborted(operation);
    const body =
      call.body !== null && typeof call.body === 'object'
        ? this.#redactedWrite(call.body, operation)
        : call.body;
    let freshToken = false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#send({ ...call, body }, operation);
      } catch (error) {
        // A refused token from a source (an OIDC token that expired) is fetched anew once: a 401 changed nothing.
        if (error instanceof SemaphoreError && error.status === 401 && this.#tokenSource && !freshToken) {
          freshToken = true;
          this.#token = undefined;
          continue;
        }
        const retry =
          error instanceof SemaphoreError &&
          call.retryable &&
          attempt < this.#maxAttempts &&
          isTransient(error);
        if (!retry) throw error;
        await this.#backoff(attempt, operation, error.retryAfterMs);
      }
    }
  }

  /** The token to send: the fixed one, or the source's (fetched when none is at hand). */
  async #currentToken(operation: string): Promise<string> {
    if (this.#token !== undefined || this.#tokenSource === undefined) return this.#token ?? '';
    let token: string;
    try {
      token = await this.#tokenSource();
    } catch (error) {
      throw new SemaphoreError({
        status: undefined,
        code: 'no_token',
        operation,
        message: `${operation}: no token for the semaphore could be had (${error instanceof Error ? error.message : String(error)}); nothing was sent`,
      });
    }
    this.#token = token;
    this.#redact = secretRedactor([token, ...this.#secrets]);
    return token;
  }

  async #send<T>(call: Call<T>, operation: string): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (call.authenticated !== false) {
      const token = await this.#currentToken(operation);
      this.#checkToken(token, operation);
      headers.authorization = `Bearer ${token}`;
    }
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = this.#signal === undefined ? timeout : AbortSignal.any([this.#signal, timeout]);
    this.#requestCount += 1;
    let response: Response | undefined;
    let text: string;
    try {
      response = await this.#fetch(`${this.#baseUrl}${call.path}`, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal,
        redirect: 'error',
      });
      text = await readCapped(response, operation);
    } catch (error) {
      throw error instanceof SemaphoreError
        ? error
        : this.#transportError(error, operation, response?.status);
    }
    if (!response.ok) {
      const retryAfterMs =
        response.status === 429
          ? parseRetryAfter(response.headers.get('retry-after'), Date.now())
          : undefined;
      throw errorFromAnswer(response.status, text, operation, {
        redact: this.#redact,
        retryAfterMs,
        fetchedToken: this.#tokenSource !== undefined,
      });
    }
    return parseAnswer(call.schema, response.status, text, operation);
  }

  /** A token no Authorization header can carry would fail inside fetch with an error that quotes it. */
  #checkToken(token: string, operation: string): void {
    if (BEARER_TOKEN.test(token)) return;
    const problem =
      token === ''
        ? 'the semaphore token is empty'
        : 'the semaphore token contains whitespace, control characters or non-ASCII characters, which an Authorization header cannot carry';
    throw new SemaphoreError({
      status: undefined,
      code: 'unauthorized',
      operation,
      message: `${operation}: ${problem}; nothing was sent`,
    });
  }

  #transportError(error: unknown, operation: string, status: number | undefined): SemaphoreError {
    if (this.#signal?.aborted === true) return aborted(operation, status);
    if (error instanceof Error && error.name === 'TimeoutError') {
      return new SemaphoreError({
        status,
        code: 'timeout',
        operation,
        message: `${operation}: the semaphore did not answer within ${this.#timeoutMs} ms`,
      });
    }
    // undici hides the reason (ECONNREFUSED, ENOTFOUND, …) in `cause`; name it, but copy nothing else.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
    const reason = cause === undefined ? String(error) : 'code' in cause ? String(cause.code) : cause.message;
    return new SemaphoreError({
      status,
      code: 'network',
      operation,
      message: `${operation}: could not reach the semaphore at ${new URL(this.#baseUrl).origin} (${reason})`,
    });
  }

  async #backoff(attempt: number, operation: string, retryAfterMs = 0): Promise<void> {
    try {
      await delay(Math.max(backoffMs(attempt, BACKOFF), retryAfterMs), undefined, { signal: this.#signal });
    } catch {
      throw new SemaphoreError({
        status: undefined,
        code: 'aborted',
        operation,
        message: `${operation} was aborted`,
      });
    }
  }
}

/** The body as text, refusing to hold more than MAX_ANSWER_BYTES of it. */
async function readCapped(response: Response, operation: string): Promise<string> {
  const tooLarge = () =>
    new SemaphoreError({
      status: response.status,
      code: 'invalid_answer',
      operation,
      message: `${operation}: the answer is larger than ${MAX_ANSWER_BYTES} bytes`,
    });
  if (Number(response.headers.get('content-length') ?? 0) > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    text += decoder.decode(chunk.value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * The server's error as a SemaphoreError. Its message is shown to people (logs, job summaries), so a
 * server that repeats the token back (a misconfigured proxy, a debugging handler) must not leak it.
 */
function errorFromAnswer(
  status: number,
  text: string,
  operation: string,
  {
    redact,
    retryAfterMs,
    fetchedToken,
  }: { redact: (text: string) => string; retryAfterMs: number | undefined; fetchedToken: boolean },
): SemaphoreError {
  const wait = retryAfterMs === undefined ? { fetchedToken } : { retryAfterMs, fetchedToken };
  const parsed = errorBodySchema.safeParse(parseJson(text));
  if (status === 401) {
    // A reason that holds the token's text (a token such as `wrong` in "missing or wrong") would read
    // "missing or [the token]": leave it out rather than show it redacted.
    const reason = parsed.success ? parsed.data.error.message : undefined;
    const says =
      reason === undefined
        ? ''
        : redact(reason) !== reason
          ? " (its reason is not repeated here, as it contains the token's text)"
          : `; it says: ${reason}`;
    return new SemaphoreError({
      status,
      code: 'unauthorized',
      operation,
      message: `${operation}: the semaphore refused the token (HTTP 401), so nothing was changed${says}`,
      fetchedToken,
    });
  }
  if (!parsed.success) {
    return new SemaphoreError({
      status,
      code: 'http_error',
      operation,
      message: `${operation}: the semaphore answered HTTP ${status} without a protocol error body`,
      ...wait,
    });
  }
  const { code, message, issues, queue } = parsed.data.error;
  return new SemaphoreError({
    status,
    code,
    operation,
    message: redact(message),
    ...wait,
    ...(queue === undefined ? {} : { queue }),
    ...(issues === undefined
      ? {}
      : { issues: issues.map((issue) => ({ ...issue, message: redact(issue.message) })) }),
  });
}

function parseAnswer<T>(schema: z.ZodType<T>, status: number, text: string, operation: string): T {
  const json = parseJson(text);
  const invalid = (problem: string) =>
    new SemaphoreError({
      status,
      code: 'invalid_answer',
      operation,
      message: `${operation}: the answer does not follow the semaphore protocol: ${problem}`,
    });
  if (json === undefined) throw invalid('it is not JSON');
  const parsed = schema.safeParse(json);
  // The rules name the field; the value itself may be anything (a workflow command, shell text, a
  // secret), so it is never repeated.
  if (!parsed.success)
    throw invalid(
      `${describeIssues(toIssues(parsed.error))}. The semaphore sent something else there, not repeated here`,
    );
  return parsed.data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

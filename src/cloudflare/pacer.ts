// Every Cloudflare request of a run goes through one Pacer. It keeps the run inside the account's
// shared limit (1,200 requests per 5 minutes for everything using the token) and inside its own
// budget, and it decides about retries, because the SDK's own retries wait for any Retry-After
// without a cap (its retries are off: maxRetries 0).
//
// - a steady rate: requests start at least 1/rate apart (spacing, no bursts);
// - a budget: at most `budget` HTTP requests per run, retries included;
// - 429: the server's wait (retry-after-ms, else Retry-After) is honoured up to `retryAfterCapMs`;
//   a longer wait fails the call at once as `rate-limited` and holds back every later call until
//   that wait is over (they fail at once too, without a request);
// - 5xx, 408, network errors and timeouts: retried with jittered exponential backoff;
// - at most `maxAttempts` attempts per call, 429s included;
// - a run deadline: no attempt starts after it, and no wait runs past it;
// - an AbortSignal: aborts waits and in-flight attempts (`aborted`);
// - a request guard (optional, set per erase): runs before every attempt, so a long step can renew
//   its lease inside itself; whatever the guard throws stops the call before it is sent;
// - erases of their own: slots erased in parallel share the pacer, so an erase's guard applies only
//   to the calls made within it, and the requests it counts are its own.
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import { type BackoffPolicy, backoffMs } from '../net/retry.ts';
import { CloudflareCallError } from './call-error.ts';

export interface PacerClock {
  now(): number;
  /** Resolves after `ms`; rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), for jitter. */
  random(): number;
}

export const systemClock: PacerClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepTimer(ms, undefined, signal ? { signal } : {}),
  random: () => Math.random(),
};

export interface PacerOptions {
  /** HTTP requests allowed in this run, retries included. Default 600. */
  budget?: number;
  /** Steady rate in requests per second. Default 3. */
  ratePerSecond?: number;
  /** Longest server-requested wait that is honoured. Default 60 s. */
  retryAfterCapMs?: number;
  /** Attempts per call, the first included. Default 4. */
  maxAttempts?: number;
  /** Time allowed for one attempt. Default 30 s. */
  timeoutMs?: number;
  /** Clock time after which no attempt starts. */
  deadlineAt?: number;
  signal?: AbortSignal;
  clock?: PacerClock;
}

/** What a single attempt gets: abort it on `signal`, give up after `timeoutMs`. */
export interface AttemptContext {
  signal: AbortSignal;
  timeoutMs: number;
  attempt: number;
}

export interface PacerUsage {
  requests: number;
  byKind: Record<string, number>;
  rateLimited: number;
  retries: number;
  waitedMs: number;
  budget: number;
  budgetLeft: number;
}

const BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 8000 };

export class Pacer {
  readonly budget: number;
  readonly ratePerSecond: number;
  readonly retryAfterCapMs: number;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly deadlineAt: number | undefined;
  readonly signal: AbortSignal;
  private readonly clock: PacerClock;
  private readonly intervalMs: number;
  private nextStartAt = Number.NEGATIVE_INFINITY;
  /** Set by a 429 whose wait exceeded the cap: until then every call fails without a request. */
  private blockedUntil = Number.NEGATIVE_INFINITY;
  private requests = 0;
  private readonly byKind: Record<string, number> = {};
  private rateLimited = 0;
  private retries = 0;
  private waitedMs = 0;
  /** The erase a call is made within: each slot in flight has its own lease to renew, its own count. */
  private readonly erase = new AsyncLocalStorage<{ guard?: () => Promise<void>; requests: number }>();

  constructor(options: PacerOptions = {}) {
    this.budget = options.budget ?? 600;
    this.ratePerSecond = options.ratePerSecond ?? 3;
    this.retryAfterCapMs = options.retryAfterCapMs ?? 60_000;
    this.maxAttempts = options.maxAttempts ?? 4;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.deadlineAt = options.deadlineAt;
    this.signal = options.signal ?? new AbortController().signal;
    this.clock = options.clock ?? systemClock;
    this.intervalMs = 1000 / this.ratePerSecond;
  }

  usage(): PacerUsage {
    return {
      requests: this.requests,
      byKind: { ...this.byKind },
      rateLimited: this.rateLimited,
      retries: this.retries,
      waitedMs: this.waitedMs,
      budget: this.budget,
      budgetLeft: this.budget - this.requests,
    };
  }

  /**
   * Runs `work` as one erase: `guard` (when given) runs before every attempt of each call `work`
   * makes, and of no other call, and `requestsSoFar` within it counts its requests only. Slots
   * erased at once each renew their own lease and report their own requests, never one another's.
   */
  eraseWithin<T>(work: () => Promise<T>, guard?: () => Promise<void>): Promise<T> {
    return this.erase.run({ ...(guard === undefined ? {} : { guard }), requests: 0 }, work);
  }

  /**
   * Runs `work` outside any erase, for what the slots share: a listing one slot starts and another
   * awaits must not run the first slot's guard (its lost lease would fail the other slot, whose lease
   * is fine) nor count in its requests.
   */
  shared<T>(work: () => Promise<T>): Promise<T> {
    return this.erase.exit(work);
  }

  /** HTTP requests so far: of the erase this is called within, or of the whole run outside one. */
  requestsSoFar(): number {
    return this.erase.getStore()?.requests ?? this.requests;
  }

  /**
   * Runs `attempt` (one HTTP request) until it succeeds or the failure is final. `attempt` must
   * throw CloudflareCallError for failures the pacer should judge; anything else is a bug and is
   * rethrown untouched.
   */
  async call<T>(kind: string, attempt: (context: AttemptContext) => Promise<T>): Promise<T> {
    for (let attemptNumber = 1; ; attemptNumber++) {
      await this.admit(kind);
      if (attemptNumber > 1) this.retries++;
      try {
        return await attempt({ signal: this.signal, timeoutMs: this.timeoutMs, attempt: attemptNumber });
      } catch (error) {
        if (!(error instanceof CloudflareCallError)) throw error;
        if (this.signal.aborted) throw this.failure(kind, 'aborted', 'the run was stopped');
        await this.waitBeforeRetry(error, attemptNumber);
      }
    }
  }

  private failure(kind: string, reason: CloudflareCallError['reason'], message: string): CloudflareCallError {
    return new CloudflareCallError({ kind, reason }, message);
  }

  /**
   * Runs the erase's guard, waits for this call's turn, then counts it; throws when it may not start
   * at all. A call that may not start (stopped, out of budget, past the deadline) renews no lease
   * either: on SIGTERM the releases must go out first.
   */
  private async admit(kind: string): Promise<void> {
    this.checkMayStart(kind);
    await this.erase.getStore()?.guard?.();
    const now = this.clock.now();
    const startAt = Math.max(now, this.nextStartAt);
    this.nextStartAt = startAt + this.intervalMs;
    if (startAt > now) await this.wait(kind, startAt - now);
    this.checkMayStart(kind);
    this.requests++;
    const erase = this.erase.getStore();
    if (erase !== undefined) erase.requests++;
    this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
  }

  private checkMayStart(kind: string): void {
    if (this.signal.aborted) throw this.failure(kind, 'aborted', 'the run was stopped');
    const now = this.clock.now();
    if (this.deadlineAt !== undefined && now >= this.deadlineAt) {
      throw this.failure(kind, 'deadline', 'the run deadline has passed; no new request starts');
    }
    if (now < this.blockedUntil) {
      const seconds = Math.ceil((this.blockedUntil - now) / 1000);
      throw this.failure(kind, 'rate-limited', `Cloudflare rate-limits this token for another ${seconds} s`);
    }
    if (this.requests >= this.budget) {
      throw this.failure(kind, 'budget', `the request budget of ${this.budget} for this run is used up`);
    }
  }

  private async waitBeforeRetry(error: CloudflareCallError, attemptNumber: number): Promise<void> {
    const isRateLimit = error.status === 429;
    if (isRateLimit) this.rateLimited++;
    const retryable =
      isRateLimit ||
      error.reason === 'network' ||
      error.reason === 'timeout' ||
      (error.reason === 'api' && error.status !== undefined && (error.status >= 500 || error.status === 408));
    if (!retryable) throw error;

    const serverWait = error.retryAfterMs;
    if (serverWait !== undefined && serverWait > this.retryAfterCapMs) {
      this.blockedUntil = Math.max(this.blockedUntil, this.clock.now() + serverWait);
      throw error.withReason(
        isRateLimit ? 'rate-limited' : error.reason,
        `Cloudflare asked to wait ${Math.ceil(serverWait / 1000)} s, more than the cap of ${Math.round(this.retryAfterCapMs / 1000)} s (${error.detail})`,
      );
    }
    if (attemptNumber >= this.maxAttempts) {
      throw error.withReason(
        isRateLimit ? 'rate-limited' : error.reason,
        `gave up after ${attemptNumber} attempts (${error.detail})`,
      );
    }
    const delay = Math.max(serverWait ?? 0, this.backoffMs(attemptNumber));
    // Every call waits out a 429, not only this one: they share the account's limit.
    if (isRateLimit) this.nextStartAt = Math.max(this.nextStartAt, this.clock.now() + delay);
    await this.wait(error.kind, delay);
  }

  /**
   * Waits `ms` without a request (e.g. between polls of a long operation), within the run's deadline
   * and abort signal: fails as `deadline` or `aborted` like a call would.
   */
  pause(kind: string, ms: number): Promise<void> {
    return this.wait(kind, ms);
  }

  /** The wait before retry `attemptNumber`: 0.5 s doubling per attempt, at most 8 s, jittered. */
  backoffMs(attemptNumber: number): number {
    return backoffMs(attemptNumber, BACKOFF, () => this.clock.random());
  }

  private async wait(kind: string, ms: number): Promise<void> {
    const now = this.clock.now();
    if (this.deadlineAt !== undefined && now + ms > this.deadlineAt) {
      throw this.failure(kind, 'deadline', `the run deadline comes before the next request may start`);
    }
    try {
      await this.clock.sleep(ms, this.signal);
    } catch (error) {
      if (this.signal.aborted) throw this.failure(kind, 'aborted', 'the run was stopped');
      throw error;
    }
    this.waitedMs += ms;
  }
}

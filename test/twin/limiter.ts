// The account-wide rate limiter (docs/cloudflare.md#rate-limits): `requests` per `windowMs`; the request
// that exceeds it starts a block of one whole window during which every call gets 429 with Retry-After.

export interface RateLimit {
  requests: number;
  windowMs: number;
}

export interface LimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

export class RateLimiter {
  private limit: RateLimit;
  private readonly now: () => number;
  private windowStart = Number.NEGATIVE_INFINITY;
  private count = 0;
  private blockedUntil = 0;

  constructor(limit: RateLimit, now: () => number) {
    this.limit = limit;
    this.now = now;
  }

  take(): LimitDecision {
    const now = this.now();
    if (now < this.blockedUntil) return this.blocked(now);
    if (now >= this.windowStart + this.limit.windowMs) {
      this.windowStart = now;
      this.count = 0;
    }
    this.count += 1;
    if (this.count > this.limit.requests) {
      this.blockedUntil = now + this.limit.windowMs;
      return this.blocked(now);
    }
    const reset = Math.ceil((this.windowStart + this.limit.windowMs - now) / 1000);
    return { allowed: true, headers: this.headers(this.limit.requests - this.count, reset) };
  }

  private blocked(now: number): LimitDecision {
    const retryAfter = Math.max(1, Math.ceil((this.blockedUntil - now) / 1000));
    return { allowed: false, headers: { ...this.headers(0, retryAfter), 'Retry-After': String(retryAfter) } };
  }

  private headers(remaining: number, resetSeconds: number): Record<string, string> {
    const windowSeconds = Math.ceil(this.limit.windowMs / 1000);
    return {
      Ratelimit: `"default";r=${remaining};t=${resetSeconds}`,
      'Ratelimit-Policy': `"default";q=${this.limit.requests};w=${windowSeconds}`,
    };
  }

  state(): { requests: number; windowMs: number; usedInWindow: number; blockedForMs: number } {
    return {
      ...this.limit,
      usedInWindow: this.count,
      blockedForMs: Math.max(0, this.blockedUntil - this.now()),
    };
  }

  /** Changes the limit at run time (e.g. a 429 storm in the middle of a test) and starts afresh. */
  configure(limit: RateLimit): void {
    this.limit = limit;
    this.reset();
  }

  reset(): void {
    this.windowStart = Number.NEGATIVE_INFINITY;
    this.count = 0;
    this.blockedUntil = 0;
  }
}

// What every route of the twin shares, whatever kind it serves: the account's id and tokens, its clock,
// the latency added to each call, the rate limiter, the fault table and the request log. The gate reads
// it; each kind's routes get it beside their own store.
import { FaultTable } from './faults.ts';
import { type RateLimit, RateLimiter } from './limiter.ts';

export interface AccountCoreOptions {
  token?: string;
  accountId?: string;
  rateLimit?: RateLimit;
  latencyMs?: number;
  /** The clock of the rate limiter and of the kinds' stores (tests may scale time). */
  now?: () => number;
}

/** An API token the twin accepts. The account's own token has every permission. */
export interface TwinToken {
  /** The statuses `GET /user/tokens/verify` answers with. */
  status: 'active' | 'disabled' | 'expired';
  /** `user`: made under My Profile → API Tokens; `account`: an account-owned token. */
  owner: 'user' | 'account';
  /** Permission groups by their API names (`D1 Write`); absent: every permission. */
  permissions?: readonly string[];
  /** The account it may use; absent: this account. */
  accountId?: string;
}

export interface TwinRequestRecord {
  method: string;
  route: string;
  path: string;
  status: number;
  at: string;
}

export class AccountCore {
  readonly accountId: string;
  readonly token: string;
  /** Added before every API call; may be changed at run time. */
  latencyMs: number;
  readonly now: () => number;
  readonly limiter: RateLimiter;
  readonly faults = new FaultTable();
  /** Every token the twin knows, by value; unknown tokens are refused. */
  readonly tokens = new Map<string, TwinToken>();
  private log: TwinRequestRecord[] = [];
  /**
   * The scripts whose bindings name a store, asked by a kind before it deletes one (KV: code 10052).
   * The Workers kind answers it (its routes register the answer); without Workers, nothing binds.
   */
  scriptsBinding: (binding: { type: string; idField: string; id: string }) => string[] = () => [];

  constructor(options: AccountCoreOptions = {}) {
    this.accountId = options.accountId ?? '023e105f4ecef8ad9ca31a8372d0c353';
    this.token = options.token ?? 'twin-token';
    this.tokens.set(this.token, { status: 'active', owner: 'user' });
    this.latencyMs = options.latencyMs ?? 0;
    this.now = options.now ?? Date.now;
    this.limiter = new RateLimiter(options.rateLimit ?? { requests: 1200, windowMs: 300_000 }, this.now);
  }

  /** Another token, e.g. one without a permission or for another account, for tests of the credential check. */
  addToken(value: string, token: TwinToken): void {
    this.tokens.set(value, token);
  }

  record(entry: TwinRequestRecord): void {
    this.log.push(entry);
  }

  requests(): TwinRequestRecord[] {
    return [...this.log];
  }

  resetRequests(): void {
    this.log = [];
  }
}

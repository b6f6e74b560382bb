// The in-memory Cloudflare account every handler works on: what every route shares (AccountCore) and one
// store per kind of the registry (`account.d1`, `account.kv`, …), with the seed and the state dump
// made of the kinds' parts.
import { AccountCore, type AccountCoreOptions } from './account-core.ts';
import { AnalyticsStore } from './analytics/store.ts';
import type { FaultTable } from './faults.ts';
import { type KindOptions, type KindStates, type KindStores, TWIN_KIND_LIST } from './kinds.ts';
import type { RateLimiter } from './limiter.ts';
import type { TwinSeed } from './schema.ts';
import type { SomeTwinKind } from './twin-kind.ts';

export type { TwinRequestRecord, TwinToken } from './account-core.ts';

export type TwinAccountOptions = AccountCoreOptions & KindOptions;

export type TwinStateDump = { accountId: string } & KindStates & {
    rateLimit: ReturnType<RateLimiter['state']>;
    faults: ReturnType<FaultTable['list']>;
  };

class AccountOfKinds extends AccountCore {
  private readonly stores: Readonly<Record<string, unknown>>;
  /** What the account's Workers and Durable Objects did, for the GraphQL Analytics API (not a kind). */
  readonly analytics = new AnalyticsStore();

  constructor(options: TwinAccountOptions, stores: KindStores) {
    super(options);
    this.stores = stores;
  }

  /** The store `kind` made for this account. */
  storeOf(kind: SomeTwinKind): unknown {
    return this.stores[kind.key];
  }

  seed(seed: TwinSeed): void {
    const lists: Partial<Record<string, readonly unknown[]>> = seed;
    for (const kind of TWIN_KIND_LIST) {
      for (const entry of lists[kind.key] ?? []) kind.seed(this.storeOf(kind), entry);
    }
  }

  state(): TwinStateDump {
    // Each kind names its own fields, so together they are KindStates.
    const kinds = Object.fromEntries(
      TWIN_KIND_LIST.flatMap((kind) => Object.entries(kind.state(this.storeOf(kind)))),
    ) as KindStates;
    return {
      accountId: this.accountId,
      ...kinds,
      rateLimit: this.limiter.state(),
      faults: this.faults.list(),
    };
  }
}

export type TwinAccount = AccountOfKinds & KindStores;

export function newTwinAccount(options: TwinAccountOptions = {}): TwinAccount {
  const now = options.now ?? Date.now;
  // Each store under its kind's key, so the object is KindStores.
  const stores = Object.fromEntries(
    TWIN_KIND_LIST.map((kind) => [kind.key, kind.createStore({ now, options })]),
  ) as KindStores;
  return Object.assign(new AccountOfKinds(options, stores), stores);
}

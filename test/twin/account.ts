// The in-memory Cloudflare account every handler works on, with its seed and its state dump.
import { randomUUID } from 'node:crypto';
import { D1Database } from './d1/engine.ts';
import { FaultTable } from './faults.ts';
import { KvNamespace } from './kv/store.ts';
import { type RateLimit, RateLimiter } from './limiter.ts';
import { QueueStore } from './queues/store.ts';
import type { Jurisdiction, LifecycleRule, TwinSeed } from './schema.ts';
import { VectorizeStore } from './vectorize/store.ts';
import {
  type DoClass,
  type NamespaceRow,
  newClass,
  newId,
  type WorkersStore as Workers,
  WorkersStore,
} from './workers/store.ts';

export interface TwinAccountOptions {
  token?: string;
  accountId?: string;
  rateLimit?: RateLimit;
  latencyMs?: number;
  kvListingLagMs?: number;
  /** The clock of the rate limiter and KV listing lag (tests may scale time). */
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

export interface R2Bucket {
  name: string;
  jurisdiction: Jurisdiction;
  createdAt: string;
  location: 'eeur' | 'enam';
  storageClass: 'Standard';
  rules: LifecycleRule[];
  /** R2 Data Catalog is enabled on the bucket. */
  dataCatalog: boolean;
}

export interface TwinRequestRecord {
  method: string;
  route: string;
  path: string;
  status: number;
  at: string;
}

export const DEFAULT_MULTIPART_RULE: LifecycleRule = {
  id: 'Default Multipart Abort Rule',
  enabled: true,
  conditions: { prefix: '' },
  abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 604800 } },
};

export function defaultRules(): LifecycleRule[] {
  return [structuredClone(DEFAULT_MULTIPART_RULE)];
}

export function bucketKey(name: string, jurisdiction: Jurisdiction): string {
  return `${jurisdiction}/${name}`;
}

export class TwinAccount {
  readonly accountId: string;
  readonly token: string;
  /** Added before every API call; may be changed at run time. */
  latencyMs: number;
  readonly kvListingLagMs: number;
  readonly now: () => number;
  readonly limiter: RateLimiter;
  readonly faults = new FaultTable();
  readonly d1 = new Map<string, D1Database>();
  readonly kv = new Map<string, KvNamespace>();
  readonly r2 = new Map<string, R2Bucket>();
  readonly workers: Workers = new WorkersStore();
  readonly queues = new QueueStore(() => this.now());
  readonly vectorize = new VectorizeStore(() => this.now());
  /** Every token the twin knows, by value; unknown tokens are refused. */
  readonly tokens = new Map<string, TwinToken>();
  private log: TwinRequestRecord[] = [];

  constructor(options: TwinAccountOptions = {}) {
    this.accountId = options.accountId ?? '023e105f4ecef8ad9ca31a8372d0c353';
    this.token = options.token ?? 'twin-token';
    this.tokens.set(this.token, { status: 'active', owner: 'user' });
    this.latencyMs = options.latencyMs ?? 0;
    this.kvListingLagMs = options.kvListingLagMs ?? 0;
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

  createD1(name: string): D1Database {
    const db = new D1Database(name);
    this.d1.set(db.uuid, db);
    return db;
  }

  /** wrangler looks databases up by uuid and by name (docs/cloudflare.md#d1-routes). */
  findD1(idOrName: string): D1Database | undefined {
    return this.d1.get(idOrName) ?? [...this.d1.values()].find((db) => db.name === idOrName);
  }

  createKv(title: string): KvNamespace {
    const ns = new KvNamespace(randomUUID().replaceAll('-', ''), title);
    this.kv.set(ns.id, ns);
    return ns;
  }

  createBucket(
    name: string,
    jurisdiction: Jurisdiction,
    rules?: LifecycleRule[],
    dataCatalog = false,
  ): R2Bucket {
    const bucket: R2Bucket = {
      name,
      jurisdiction,
      createdAt: new Date().toISOString(),
      location: jurisdiction === 'eu' ? 'eeur' : 'enam',
      storageClass: 'Standard',
      rules: rules ? structuredClone(rules) : defaultRules(),
      dataCatalog,
    };
    this.r2.set(bucketKey(name, jurisdiction), bucket);
    return bucket;
  }

  seed(seed: TwinSeed): void {
    for (const d of seed.d1 ?? []) {
      const db = this.findD1(d.name) ?? this.createD1(d.name);
      if (d.sql) db.seed(d.sql);
    }
    for (const k of seed.kv ?? []) this.seedKv(k);
    for (const b of seed.r2 ?? [])
      this.createBucket(b.bucket, b.jurisdiction ?? 'default', b.rules, b.dataCatalog ?? false);
    for (const w of seed.workers ?? []) this.seedWorker(w);
  }

  private seedKv(k: NonNullable<TwinSeed['kv']>[number]): void {
    const ns = [...this.kv.values()].find((n) => n.title === k.title) ?? this.createKv(k.title);
    const encoder = new TextEncoder();
    for (const [name, value] of Object.entries(k.keys ?? {})) ns.put(name, { value: encoder.encode(value) });
    if (k.generate) {
      const width = String(k.generate.count).length;
      for (let n = 0; n < k.generate.count; n += 1) {
        const suffix = String(n).padStart(width, '0');
        ns.put(`${k.generate.prefix}${suffix}`, { value: encoder.encode(`v${suffix}`) });
      }
    }
  }

  private seedWorker(w: NonNullable<TwinSeed['workers']>[number]): void {
    const classes = new Map<string, DoClass>();
    for (const c of w.classes ?? []) {
      const doClass = newClass(c.name, c.sqlite ?? true, c.objects ?? 1);
      classes.set(c.name, doClass);
      if (c.container) {
        // wrangler's default container name: `<worker>-<class>`, lowercased.
        doClass.container = `${w.name}-${c.name}`.toLowerCase();
        const id = randomUUID();
        this.workers.containers.set(id, {
          id,
          name: doClass.container,
          namespaceId: doClass.namespaceId,
          createdAt: new Date().toISOString(),
        });
      }
    }
    const bindings = (
      w.bindings ?? (w.classes ?? []).map((c) => ({ name: c.name.toUpperCase(), class_name: c.name }))
    ).map((b) => ({ type: 'durable_object_namespace', ...b }));
    const text = [...classes.keys()].map((name) => `export class ${name} {}`).join('\n');
    const now = new Date().toISOString();
    this.workers.scripts.set(w.name, {
      name: w.name,
      tag: newId(),
      etag: newId(),
      migrationTag: w.migrationTag,
      exportsMode: w.exportsMode ?? false,
      tags: [],
      classes,
      bindings,
      modules: [
        {
          name: 'index.js',
          contentType: 'application/javascript+module',
          text: `${text}\nexport default {};`,
        },
      ],
      mainModule: 'index.js',
      compatibilityDate: '2026-01-01',
      compatibilityFlags: [],
      createdOn: now,
      modifiedOn: now,
      lastDeployedFrom: 'wrangler',
      versionId: randomUUID(),
      deploymentId: randomUUID(),
      subdomain: { enabled: false, previews_enabled: false },
      previews: (w.previews ?? []).map((preview) => ({
        id: randomUUID(),
        slug: preview.slug,
        name: `${w.name}-${preview.slug}`,
        classes: preview.classes.map((c) => newClass(c.name, true, c.objects ?? 1)),
      })),
    });
  }

  state(): TwinStateDump {
    return {
      accountId: this.accountId,
      d1: [...this.d1.values()].map((db) => ({ uuid: db.uuid, name: db.name, objects: db.describe() })),
      kv: [...this.kv.values()].map((ns) => ({
        id: ns.id,
        title: ns.title,
        keyCount: ns.size,
        sampleKeys: ns.names().slice(0, 20),
      })),
      r2: [...this.r2.values()].map((b) => ({
        name: b.name,
        jurisdiction: b.jurisdiction,
        rules: b.rules,
        ...(b.dataCatalog ? { dataCatalog: true } : {}),
      })),
      workers: [...this.workers.scripts.values()].map((s) => {
        const classes = [...s.classes.values()];
        return {
          name: s.name,
          migrationTag: s.migrationTag ?? null,
          exportsMode: s.exportsMode,
          liveClasses: classes.filter((c) => c.state === 'live').map((c) => c.name),
          tombstonedClasses: classes.filter((c) => c.state === 'deleted').map((c) => c.name),
          containerClasses: classes.filter((c) => c.container !== undefined).map((c) => c.name),
          tags: s.tags,
          bindings: s.bindings,
          mainModule: s.mainModule,
          modules: s.modules.map((m) => ({ name: m.name, contentType: m.contentType, size: m.text.length })),
        };
      }),
      durableObjectNamespaces: this.workers.namespaces().map((ns) => ({
        ...ns,
        objects: this.workers.findNamespace(ns.id)?.objectIds.length ?? 0,
      })),
      containers: [...this.workers.containers.values()].map((app) => ({
        id: app.id,
        name: app.name,
        namespaceId: app.namespaceId ?? null,
      })),
      rateLimit: this.limiter.state(),
      faults: this.faults.list(),
    };
  }
}

export interface TwinStateDump {
  accountId: string;
  d1: { uuid: string; name: string; objects: { name: string; type: string; rows?: number }[] }[];
  kv: { id: string; title: string; keyCount: number; sampleKeys: string[] }[];
  r2: { name: string; jurisdiction: Jurisdiction; rules: LifecycleRule[]; dataCatalog?: true }[];
  workers: {
    name: string;
    migrationTag: string | null;
    exportsMode: boolean;
    liveClasses: string[];
    tombstonedClasses: string[];
    /** Live classes the last upload attached a container to. */
    containerClasses: string[];
    tags: string[];
    bindings: Record<string, unknown>[];
    mainModule: string;
    modules: { name: string; contentType: string; size: number }[];
  }[];
  durableObjectNamespaces: (NamespaceRow & { objects: number })[];
  containers: { id: string; name: string; namespaceId: string | null }[];
  rateLimit: ReturnType<RateLimiter['state']>;
  faults: ReturnType<FaultTable['list']>;
}

// The account's KV namespaces, by id, and what each holds. Deleted keys can linger in listings for
// `listingLagMs`, as KV's eventual consistency makes them do for up to about 60 s on the real service
// (docs/cloudflare.md#kv-eventual-consistency).
import { randomUUID } from 'node:crypto';

export interface KvEntry {
  value: Uint8Array;
  metadata?: unknown;
  /** Seconds since the epoch. */
  expiration?: number;
}

export interface KvListedKey {
  name: string;
  expiration?: number;
  metadata?: unknown;
}

export class KvNamespace {
  readonly id: string;
  title: string;
  private readonly entries = new Map<string, KvEntry>();
  private readonly deletedAt = new Map<string, number>();

  constructor(id: string, title: string) {
    this.id = id;
    this.title = title;
  }

  put(name: string, entry: KvEntry): void {
    this.entries.set(name, entry);
    this.deletedAt.delete(name);
  }

  get(name: string, nowMs: number): KvEntry | undefined {
    const entry = this.entries.get(name);
    if (entry?.expiration !== undefined && entry.expiration * 1000 <= nowMs) return undefined;
    return entry;
  }

  delete(name: string, nowMs: number): void {
    if (this.entries.delete(name)) this.deletedAt.set(name, nowMs);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Keys sorted by name as a listing sees them: live ones plus deletions younger than the lag. */
  list(prefix: string, nowMs: number, lagMs: number): KvListedKey[] {
    const names = new Set<string>();
    for (const [name, entry] of this.entries) {
      if (entry.expiration === undefined || entry.expiration * 1000 > nowMs) names.add(name);
    }
    for (const [name, at] of this.deletedAt) {
      if (nowMs - at < lagMs) names.add(name);
      else this.deletedAt.delete(name);
    }
    return [...names]
      .filter((name) => name.startsWith(prefix))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((name) => {
        const entry = this.entries.get(name);
        const key: KvListedKey = { name };
        if (entry?.expiration !== undefined) key.expiration = entry.expiration;
        if (entry?.metadata !== undefined) key.metadata = entry.metadata;
        return key;
      });
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }
}

/** The account's namespaces by id; `listingLagMs` is how long deleted keys stay in listings. */
export class KvStore extends Map<string, KvNamespace> {
  readonly listingLagMs: number;
  /**
   * Called after every bulk delete, with the namespace and the keys deleted: a test plays a Worker
   * version that is still running and writes a key again right after the erase deleted it.
   */
  afterBulkDelete: ((namespace: KvNamespace, deleted: readonly string[]) => void) | undefined;

  constructor(listingLagMs: number) {
    super();
    this.listingLagMs = listingLagMs;
  }

  create(title: string): KvNamespace {
    const ns = new KvNamespace(randomUUID().replaceAll('-', ''), title);
    this.set(ns.id, ns);
    return ns;
  }

  findByTitle(title: string): KvNamespace | undefined {
    return [...this.values()].find((ns) => ns.title === title);
  }
}

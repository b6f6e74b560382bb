// Resource names become ids (and facts such as a Worker's migration tag) through one listing per
// kind per run, made only when first needed, so a sweep with nothing to erase makes no call. A
// failed listing is not cached: the next slot tries again (within the pacer's budget). Which listing
// a kind makes, and how it finds a name in it, is the kind's own (src/kinds/).
import type { CloudflareApi } from './client.ts';

export class NameResolver {
  private readonly api: CloudflareApi;
  private readonly listings = new Map<string, Promise<unknown>>();

  constructor(api: CloudflareApi) {
    this.api = api;
  }

  /**
   * The listing called `key`, made once per run: the credential check and the slot checks start
   * them, the erase reuses them.
   */
  listing<T>(key: string, list: (api: CloudflareApi) => Promise<T>): Promise<T> {
    const cached = this.listings.get(key) as Promise<T> | undefined;
    if (cached) return cached;
    // Outside any slot's erase: every slot that needs the listing awaits this one promise.
    const listing = this.api.pacer.shared(() => list(this.api));
    this.listings.set(key, listing);
    listing.catch(() => this.listings.delete(key));
    return listing;
  }

  /**
   * Changes the run's listing `key` after the run itself changed what it lists (a store deleted and
   * created again gets a new id), so every later lookup of the run sees the change without listing
   * again. A listing never made stays unmade.
   */
  amend<T>(key: string, change: (listing: T) => T): void {
    const cached = this.listings.get(key) as Promise<T> | undefined;
    if (cached) this.listings.set(key, cached.then(change));
  }
}

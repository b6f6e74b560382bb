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
}

// What is left of a resource after its erase, as the kind reads it back. "Reclaimed" is the
// inventory's word, not the erase's: each kind's inventory is code of its own (its folder's
// `inventory.ts`) that shares no table list, filter or listing with its erase, and reads the resource
// again, so an erase that skipped something cannot also vouch for it (docs/design.md#what-is-left).
import type { CloudflareApi } from '../cloudflare/client.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';

export type InventoryState =
  /** Nothing of a tenant is left. */
  | 'empty'
  /** What is left is removed by Cloudflare on its own by `goneBy` (R2's lifecycle rule). */
  | 'expiring'
  /** Cloudflare has not caught up with the erase yet (a listing that lags): the next run reads again. */
  | 'settling'
  /** A tenant's data or code is still there: `items` says what. */
  | 'left';

export interface Inventory {
  state: InventoryState;
  /** What is left in a few words, the report's "left:" line: "0 rows in 7 tables", "0 keys". */
  summary: string;
  /** What is left, one entry each ("table docs_meta: 12 rows"), a few dozen at most. */
  items?: string[];
  /** When 'expiring': by when Cloudflare will have removed what is left (ISO 8601). */
  goneBy?: string;
}

/** What an inventory gets: the API and the run's listings. It never changes anything. */
export interface InventoryContext {
  api: CloudflareApi;
  resolver: NameResolver;
}

/** The few entries a report shows of what is left, and how many more there are. */
export const MAX_INVENTORY_ITEMS = 20;

export function someItems(items: readonly string[]): string[] {
  return items.length <= MAX_INVENTORY_ITEMS
    ? [...items]
    : [...items.slice(0, MAX_INVENTORY_ITEMS), `… and ${items.length - MAX_INVENTORY_ITEMS} more`];
}

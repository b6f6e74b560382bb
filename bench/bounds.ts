// The fewest requests an erase of a slot can make, computed from the slot's data alone: the yardstick
// the benchmark puts next to what preview-gc actually sent. Pure arithmetic, tested in
// test/bench/bounds.unit.test.ts.

/** Cloudflare's page and batch sizes that the bound is made of. */
export const KV_LIST_PAGE = 1_000;
export const KV_BULK_DELETE_MAX = 10_000;
/** Page size of the name listings (D1 databases, KV namespaces, Durable Object namespaces). */
export const NAME_LIST_PAGE = 1_000;
/** The container applications listing pages by 100. */
export const CONTAINER_LIST_PAGE = 100;

export type StepKind = 'compute' | 'd1' | 'kv' | 'r2';
export const STEP_KINDS: readonly StepKind[] = ['compute', 'd1', 'kv', 'r2'];

/** One slot's resources, as far as the request count depends on them. */
export interface SlotShape {
  /** Workers with Durable Object classes to tombstone: one upload each. */
  workers: number;
  /** Each D1 database: list its tables; when it has rows, one batch that deletes them all. */
  d1Databases: readonly { hasRows: boolean }[];
  /** Keys in each KV namespace of the slot. */
  kvKeys: readonly number[];
  /** Each R2 bucket: read its rules; write them only when the managed rule is missing or differs. */
  r2Buckets: readonly { rulesChange: boolean }[];
}

/**
 * How many of each named thing the account holds: what the once-per-run name listings page through.
 * R2 buckets are not among them: the API addresses a bucket by its name, so nothing needs resolving.
 */
export interface AccountShape {
  d1Databases: number;
  kvNamespaces: number;
  durableObjectNamespaces: number;
  containerApplications: number;
}

/** Pages of a listing of `items` at `pageSize` a page; an empty listing still costs one request. */
export function listingPages(items: number, pageSize: number): number {
  return Math.max(1, Math.ceil(items / pageSize));
}

/** Listing pages until the keys run out, one final listing that comes back empty, and the bulk deletes. */
export function kvEraseRequests(keys: number): number {
  return Math.ceil(keys / KV_LIST_PAGE) + 1 + Math.ceil(keys / KV_BULK_DELETE_MAX);
}

/** The fewest Cloudflare requests that erase one slot, by step kind (name resolution not included). */
export function slotLowerBound(slot: SlotShape): Record<StepKind, number> {
  return {
    compute: slot.workers,
    d1: slot.d1Databases.reduce((sum, database) => sum + 1 + (database.hasRows ? 1 : 0), 0),
    kv: slot.kvKeys.reduce((sum, keys) => sum + kvEraseRequests(keys), 0),
    r2: slot.r2Buckets.reduce((sum, bucket) => sum + 1 + (bucket.rulesChange ? 1 : 0), 0),
  };
}

/**
 * Name resolution for a whole run: one listing of the resources addressed by id (Workers for their
 * migration tag, D1, KV), plus the two listings that tell which Durable Object classes a Worker has
 * and which of them back a container.
 */
export function resolutionLowerBound(account: AccountShape): number {
  return (
    1 + // the Worker scripts listing is not paged
    listingPages(account.d1Databases, NAME_LIST_PAGE) +
    listingPages(account.kvNamespaces, NAME_LIST_PAGE) +
    listingPages(account.durableObjectNamespaces, NAME_LIST_PAGE) +
    listingPages(account.containerApplications, CONTAINER_LIST_PAGE)
  );
}

/** Semaphore calls a sweep cannot do without: one listing per run, an acquire and a release per slot. */
export function semaphoreLowerBound(slots: number): number {
  return 1 + 2 * slots;
}

/** The time a sweep would take if every request waited only for its own latency, one after another. */
export function sequentialLatencyMs(
  cloudflareRequests: number,
  cloudflareLatencyMs: number,
  semaphoreRequests: number,
  semaphoreLatencyMs: number,
): number {
  return cloudflareRequests * cloudflareLatencyMs + semaphoreRequests * semaphoreLatencyMs;
}

/** Which erase step (or `resolution`) a request kind of the pacer's usage belongs to. */
export function stepOfKind(kind: string): StepKind | 'resolution' {
  if (RESOLUTION_KINDS.has(kind)) return 'resolution';
  const prefix = kind.split('.')[0];
  if (prefix === 'workers' || prefix === 'do' || prefix === 'containers') return 'compute';
  if (prefix === 'd1' || prefix === 'kv' || prefix === 'r2') return prefix;
  throw new Error(`bench: request kind '${kind}' belongs to no erase step; teach bench/bounds.ts about it`);
}

/**
 * Listings that turn names into ids (made once per run, whatever the number of slots), the
 * credential check and the spend read, also once per run.
 */
const RESOLUTION_KINDS: ReadonlySet<string> = new Set([
  'analytics.graphql',
  'tokens.verify',
  'accounts.get',
  'workers.list',
  'do.namespaces.list',
  'containers.list',
  'd1.list',
  'kv.namespaces.list',
  'r2.buckets.list',
]);

/** Requests by step kind (plus resolution) out of the pacer's `byKind` counts. */
export function requestsByStep(
  byKind: Readonly<Record<string, number>>,
): Record<StepKind | 'resolution', number> {
  const totals: Record<StepKind | 'resolution', number> = { compute: 0, d1: 0, kv: 0, r2: 0, resolution: 0 };
  for (const [kind, requests] of Object.entries(byKind)) totals[stepOfKind(kind)] += requests;
  return totals;
}

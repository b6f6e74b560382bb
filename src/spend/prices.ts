// Cloudflare's published prices for what a preview slot's compute spends, as the Workers Paid plan
// charges beyond what it includes. The table is dated: prices change, and an estimate must say which
// prices it used. docs/cloudflare.md#what-a-slot-costs names each figure's source, Cloudflare's
// Workers and Durable Objects pricing pages. Change both together, with the date.

/** When the prices below were read from Cloudflare's pricing pages. */
export const PRICES_AS_OF = '2026-12-01';

/**
 * US dollars per unit beyond the plan's included usage. The estimate charges every unit, as if the
 * included usage were spent elsewhere: what a runaway preview adds to the bill is the point, and on a
 * busy account the included usage is gone early in the month.
 */
export const PRICES = {
  /** Workers Standard: $0.30 per million requests. */
  workerRequest: 0.3 / 1e6,
  /** Workers Standard: $0.02 per million CPU milliseconds. */
  workerCpuMs: 0.02 / 1e6,
  /** Durable Objects: $0.15 per million requests (HTTP, RPC sessions, alarm invocations). */
  objectRequest: 0.15 / 1e6,
  /** Incoming WebSocket messages are billed as requests at 20:1. */
  websocketMessagesPerRequest: 20,
  /** Durable Objects: $12.50 per million GB-s of duration (128 MB an object, wall-clock time). */
  gbSecond: 12.5 / 1e6,
  /** SQLite-backed Durable Objects: $0.001 per million rows read. */
  rowRead: 0.001 / 1e6,
  /** SQLite-backed Durable Objects: $1.00 per million rows written. */
  rowWritten: 1.0 / 1e6,
  /** SQLite-backed Durable Objects: $0.20 per GB-month stored. */
  storedGbMonth: 0.2,
} as const;

/** The memory a Durable Object is billed for: 128 MB, as Cloudflare's own examples count it (0.128 GB). */
export const OBJECT_GB = 0.128;

/** Hours in the month the storage price is per (365 × 24 / 12). */
export const HOURS_PER_MONTH = 730;

// The demo pool's data and leases: what a real team's preview pool looks like after a busy week.
// Used by `npm start`, the end-to-end tests and the benchmark, so they all exercise the same shape.
import type { SemaphoreClient } from '../src/semaphore/client.ts';
import type { ActivitySpan } from '../test/twin/analytics/store.ts';
import type { TwinSeed } from '../test/twin/schema.ts';

export const DEMO_CONFIG_PATH = new URL('./preview-slots.yml', import.meta.url).pathname;
export const DEMO_POOL = 'preview-slot';

export function demoSlugs(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `preview-${i + 1}`);
}

/** Five tables chained by foreign keys with ON DELETE RESTRICT, so deleting in the wrong order fails. */
const SCHEMA = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE RESTRICT, total INTEGER NOT NULL);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE RESTRICT, sku TEXT NOT NULL);
CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE RESTRICT, amount INTEGER NOT NULL);
CREATE TABLE refunds (id INTEGER PRIMARY KEY, payment_id INTEGER NOT NULL REFERENCES payments(id) ON DELETE RESTRICT, amount INTEGER NOT NULL);
CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TEXT NOT NULL);
INSERT INTO d1_migrations (name, applied_at) VALUES ('0001_shop.sql', '2026-11-01T00:00:00Z');
`;

function shopRows(orders: number): string {
  const statements: string[] = [];
  for (let i = 1; i <= orders; i++) {
    statements.push(
      `INSERT INTO customers (id, email) VALUES (${i}, 'buyer${i}@example.com');`,
      `INSERT INTO orders (id, customer_id, total) VALUES (${i}, ${i}, ${i * 100});`,
      `INSERT INTO order_items (order_id, sku) VALUES (${i}, 'sku-${i}-a'), (${i}, 'sku-${i}-b');`,
      `INSERT INTO payments (id, order_id, amount) VALUES (${i}, ${i}, ${i * 100});`,
    );
    if (i % 4 === 0) statements.push(`INSERT INTO refunds (payment_id, amount) VALUES (${i}, 50);`);
  }
  return statements.join('\n');
}

/** A rule of the team's own that every erase must leave in place. */
const TEAM_ARCHIVE_RULE = {
  id: 'team-archive-to-ia',
  enabled: true,
  conditions: { prefix: 'archive/' },
  storageClassTransitions: [
    { condition: { type: 'Age' as const, maxAge: 2_592_000 }, storageClass: 'InfrequentAccess' as const },
  ],
};

export interface DemoDataOptions {
  /** Orders per slot; each brings five rows across the chained tables (a refund every fourth). */
  orders?: number;
  kvKeys?: number;
}

/** The Cloudflare side of the demo pool: every slot's resources, with data in them. */
export function demoTwinSeed(slugs: readonly string[], options: DemoDataOptions = {}): TwinSeed {
  const orders = options.orders ?? 40;
  const kvKeys = options.kvKeys ?? 1_500;
  return {
    d1: slugs.map((slug) => ({ name: `shop-${slug}-db`, sql: SCHEMA + shopRows(orders) })),
    kv: slugs.map((slug) => ({
      title: `shop-${slug}-cache`,
      generate: { prefix: 'session:', count: kvKeys },
    })),
    r2: slugs.flatMap((slug) => [
      { bucket: `shop-${slug}-files` },
      {
        bucket: `shop-${slug}-sandboxes`,
        rules: [
          TEAM_ARCHIVE_RULE,
          {
            id: 'Default Multipart Abort Rule',
            enabled: true,
            conditions: {},
            abortMultipartUploadsTransition: { condition: { type: 'Age' as const, maxAge: 604_800 } },
          },
        ],
      },
    ]),
    workers: slugs.map((slug) => ({
      name: `shop-${slug}`,
      migrationTag: 'v2',
      classes: [
        { name: 'CartRoom', sqlite: true },
        { name: 'ChatAgent', sqlite: true },
        { name: 'Sandbox', container: true },
      ],
    })),
  };
}

/**
 * What ran in the demo's Workers around `now`, for the spend columns and the console's chart: a
 * runaway in preview-2 (its CartRoom objects wake themselves by alarm, some 870 of them active all the
 * time: about $5 an hour), preview-7 in use by a reviewer (requests, a chat object now and then), and
 * the last visitors of expired preview-1. `namespaceOf` finds a class's namespace in the twin.
 */
export function demoActivity(
  now: number,
  namespaceOf: (script: string, className: string) => string,
): ActivitySpan[] {
  const hour = 3_600_000;
  const span = (script: string, fromAgo: number, untilAhead: number) => ({
    script,
    from: now - fromAgo,
    until: now + untilAhead,
  });
  return [
    {
      ...span('shop-preview-2', 3 * hour, 48 * hour),
      namespaceId: namespaceOf('shop-preview-2', 'CartRoom'),
      perMinute: { alarms: 5_200, activeSeconds: 52_000, rowsWritten: 5_200 },
    },
    { ...span('shop-preview-2', 3 * hour, 48 * hour), perMinute: { requests: 2, cpuTimeUs: 1_500 } },
    {
      ...span('shop-preview-7', 40 * 60_000, 48 * hour),
      perMinute: { requests: 90, subrequests: 30, cpuTimeUs: 4_000 },
    },
    {
      ...span('shop-preview-7', 25 * 60_000, 48 * hour),
      namespaceId: namespaceOf('shop-preview-7', 'ChatAgent'),
      perMinute: { requests: 12, activeSeconds: 40, rowsRead: 300, rowsWritten: 20 },
    },
    { ...span('shop-preview-1', 2 * hour, -35 * 60_000), perMinute: { requests: 15, cpuTimeUs: 2_000 } },
  ];
}

/** How a slot of the demo pool is held when the demo starts. */
export type DemoLeaseState = 'expired' | 'live' | 'dirty' | 'clean';

export interface DemoSlotPlan {
  slug: string;
  state: DemoLeaseState;
  /** The pull request holder, e.g. `pr-1592` (expired, live and dirty slots). */
  holder?: string;
}

/** The mix the demo starts from: three expired pull-request leases, two live, two dirty, two clean. */
export function demoPlan(): DemoSlotPlan[] {
  return [
    { slug: 'preview-1', state: 'expired', holder: 'pr-1588' },
    { slug: 'preview-2', state: 'live', holder: 'pr-1601' },
    { slug: 'preview-3', state: 'expired', holder: 'pr-1592' },
    { slug: 'preview-4', state: 'dirty', holder: 'pr-1570' },
    { slug: 'preview-5', state: 'clean' },
    { slug: 'preview-6', state: 'expired', holder: 'pr-1596' },
    { slug: 'preview-7', state: 'live', holder: 'pr-1603' },
    { slug: 'preview-8', state: 'dirty', holder: 'pr-1581' },
    { slug: 'preview-9', state: 'clean' },
  ];
}

/** Expired leases are taken with the shortest lease the protocol allows, then waited out. */
const SHORT_LEASE_MS = 1_000;
const LIVE_LEASE_MS = 4 * 3_600_000;

/**
 * Adds the pool's slots to the semaphore and puts each in its planned state, then waits (by the
 * server's clock, polling) until every planned expiry has passed.
 */
export async function seedDemoPool(
  semaphore: SemaphoreClient,
  plan: readonly DemoSlotPlan[],
  pool = DEMO_POOL,
): Promise<void> {
  for (const slot of plan) {
    await semaphore.add({ type: pool, slug: slot.slug, data: { app: 'shop' } });
    if (slot.state === 'clean') continue;
    const holder = slot.holder ?? 'pr-1';
    const leaseMs = slot.state === 'expired' ? SHORT_LEASE_MS : LIVE_LEASE_MS;
    const lease = await semaphore.acquireSpecific({ type: pool, slug: slot.slug, holder, leaseMs });
    if (lease === null) throw new Error(`demo: ${slot.slug} could not be leased`);
    if (slot.state === 'dirty')
      await semaphore.release({ type: pool, slug: slot.slug, leaseId: lease.leaseId });
  }
  await waitForExpiries(semaphore, plan, pool);
}

async function waitForExpiries(
  semaphore: SemaphoreClient,
  plan: readonly DemoSlotPlan[],
  pool: string,
): Promise<void> {
  const expiring = new Set(plan.filter((slot) => slot.state === 'expired').map((slot) => slot.slug));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const listing = await semaphore.list(pool);
    const waiting = listing.resources.filter((slot) => expiring.has(slot.slug) && !slot.expired);
    if (waiting.length === 0) return;
    const soonest = Math.min(...waiting.map((slot) => (slot.leasedUntil ?? listing.now) - listing.now));
    await new Promise((resolve) => setTimeout(resolve, Math.max(20, soonest + 5)));
  }
  throw new Error('demo: the short leases did not expire within 30 s by the semaphore clock');
}

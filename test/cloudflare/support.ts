// Shared by the erase tests: a slot shaped like docs/design.md's example, seeded into the twin, and
// the run's plumbing (pacer, account, resolver) pointed at the twin over loopback.

import { afterAll, beforeAll } from 'vitest';
import { CloudflareApi } from '../../src/cloudflare/client.ts';
import { Pacer, type PacerClock, type PacerOptions } from '../../src/cloudflare/pacer.ts';
import { NameResolver } from '../../src/cloudflare/resolver.ts';
import { parseSlotConfig, resourcesForSlot, type SlotResources } from '../../src/config/slot-config.ts';
import { type EraseResult, eraseSlot } from '../../src/erase/erase-slot.ts';
import { DESIGN_EXAMPLE } from '../config/design-example.ts';
import { startTwin, type Twin, type TwinSeed } from '../twin/twin.ts';

/** The config of docs/design.md#the-slot-config-file. */
export const DESIGN_CONFIG = DESIGN_EXAMPLE;

export function slotResources(slug: string, text = DESIGN_CONFIG): SlotResources {
  return resourcesForSlot(parseSlotConfig(text, 'preview-slots.yml'), slug);
}

/** Five tables chained by foreign keys with ON DELETE RESTRICT: deleting a parent first fails. */
const SHOP_SCHEMA = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
CREATE TABLE "orders" (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE RESTRICT);
CREATE TABLE order_items (id INTEGER PRIMARY KEY AUTOINCREMENT, order_id INTEGER NOT NULL REFERENCES "orders"(id) ON DELETE RESTRICT, sku TEXT);
CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders (id) ON DELETE RESTRICT, amount INTEGER);
CREATE TABLE refunds (id INTEGER PRIMARY KEY, payment_id INTEGER NOT NULL REFERENCES [payments](id) ON DELETE RESTRICT, amount INTEGER);
CREATE INDEX orders_by_customer ON orders (customer_id);
CREATE VIEW order_totals AS SELECT order_id, SUM(amount) AS total FROM payments GROUP BY order_id;
CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TEXT NOT NULL);
INSERT INTO d1_migrations (name, applied_at) VALUES ('0001_shop.sql', '2026-11-01T00:00:00Z');
`;

function shopRows(orders: number): string {
  const rows: string[] = [];
  for (let i = 1; i <= orders; i++) {
    rows.push(
      `INSERT INTO customers VALUES (${i}, 'buyer${i}@example.com');`,
      `INSERT INTO orders VALUES (${i}, ${i});`,
      `INSERT INTO order_items (order_id, sku) VALUES (${i}, 'a'), (${i}, 'b');`,
      `INSERT INTO payments VALUES (${i}, ${i}, ${i * 100});`,
    );
    if (i % 4 === 0) rows.push(`INSERT INTO refunds VALUES (${i}, ${i}, 50);`);
  }
  return rows.join('\n');
}

export const TEAM_RULE = {
  id: 'team-archive-to-ia',
  enabled: true,
  conditions: { prefix: 'archive/' },
  storageClassTransitions: [
    { condition: { type: 'Age' as const, maxAge: 2_592_000 }, storageClass: 'InfrequentAccess' as const },
  ],
};
export const DEFAULT_MULTIPART_RULE = {
  id: 'Default Multipart Abort Rule',
  enabled: true,
  conditions: { prefix: '' },
  abortMultipartUploadsTransition: { condition: { type: 'Age' as const, maxAge: 604_800 } },
};

export interface SlotSeedOptions {
  orders?: number;
  kvKeys?: number;
}

/** The Cloudflare side of one slot of DESIGN_CONFIG, full of a tenant's data. */
export function slotSeed(slug: string, options: SlotSeedOptions = {}): TwinSeed {
  return {
    d1: [{ name: `app-${slug}-db`, sql: SHOP_SCHEMA + shopRows(options.orders ?? 40) }],
    kv: [{ title: `app-${slug}-cache`, generate: { prefix: 'session:', count: options.kvKeys ?? 1_500 } }],
    r2: [
      { bucket: `app-${slug}-files` },
      {
        bucket: `app-${slug}-sandboxes`,
        // The team's own rule and an outdated managed rule (1 day instead of 3 h).
        rules: [
          TEAM_RULE,
          DEFAULT_MULTIPART_RULE,
          {
            id: 'expire-sandbox-backups',
            enabled: true,
            conditions: { prefix: 'backups/' },
            deleteObjectsTransition: { condition: { type: 'Age', maxAge: 86_400 } },
          },
        ],
      },
    ],
    workers: [
      {
        name: `app-${slug}`,
        migrationTag: 'v2',
        classes: [{ name: 'Room' }, { name: 'Agent' }, { name: 'Sandbox', container: true }],
      },
    ],
  };
}

/** Time that moves only when the pacer sleeps: waits are honoured without real waiting. */
export class VirtualClock implements PacerClock {
  time = Date.UTC(2026, 10, 20, 12);
  now = (): number => this.time;
  random = (): number => 0.5;
  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    signal?.throwIfAborted();
    this.time += ms;
  };
}

export interface Run {
  pacer: Pacer;
  api: CloudflareApi;
  resolver: NameResolver;
}

/** One run's plumbing against the twin: a fresh pacer (fast, virtual time unless given), API client and resolver. */
export function startRun(twin: Twin, options: PacerOptions = {}): Run {
  const pacer = new Pacer({ ratePerSecond: 1000, clock: new VirtualClock(), ...options });
  const api = new CloudflareApi({
    apiToken: twin.token,
    accountId: twin.accountId,
    baseUrl: twin.baseUrl,
    pacer,
  });
  return { pacer, api, resolver: new NameResolver(api) };
}

export interface EraseRun extends Run {
  result: EraseResult;
}

/** Erases the slot in a new run. */
export async function eraseInNewRun(
  twin: Twin,
  resources: SlotResources,
  options: { dryRun?: boolean; pacer?: PacerOptions; fence?: () => Promise<boolean> } = {},
): Promise<EraseRun> {
  const run = startRun(twin, options.pacer);
  const result = await eraseSlot({
    api: run.api,
    resolver: run.resolver,
    resources,
    fence: options.fence ?? (async () => true),
    dryRun: options.dryRun ?? false,
  });
  return { ...run, result };
}

/** Methods and routes of the requests served, for "only reads" assertions. */
export function writesIn(twin: Twin): string[] {
  return twin
    .requests()
    .filter((request) => request.method !== 'GET')
    .map((request) => request.route);
}

/** A twin started before the file's tests and closed after them; call the result to reach it. */
export function twinForTheseTests(): () => Twin {
  let twin: Twin | undefined;
  beforeAll(async () => {
    twin = await startTwin();
  });
  afterAll(async () => {
    await twin?.close();
  });
  return () => {
    if (!twin) throw new Error('the twin is not started yet');
    return twin;
  };
}

/** A Worker as the twin holds it now. */
export function workerIn(twin: Twin, name: string) {
  const worker = twin.state().workers.find((candidate) => candidate.name === name);
  if (!worker) throw new Error(`no worker ${name} in the twin`);
  return worker;
}

// The slot's wrangler config: an app's own config (JSONC with comments, or TOML) read as data, every
// binding placed at a template of the slot config, and the slot's copy written with the slot's names
// and ids; what cannot be placed (or read) is refused naming the binding and the fix.

import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parseSlotConfig, resourcesForSlot } from '../../src/config/slot-config.ts';
import { parseAppWranglerConfig, WranglerConfigError } from '../../src/config/wrangler/app-config.ts';
import { placeBindings } from '../../src/config/wrangler/placement.ts';
import { type SlotIds, slotWranglerConfigText } from '../../src/config/wrangler/slot-config.ts';
import { everyKind } from '../support/every-kind.ts';

const SLOTS = `pool: shop
resources:
  workers:
    - name: shop-{slot}
  d1:
    - name: shop-{slot}-db
  kv:
    - title: shop-{slot}-cache
  r2:
    - bucket: shop-{slot}-files
      jurisdiction: eu
      expire: { id: expire-preview-files, after: 3h }
  queues:
    - name: shop-{slot}-jobs
`;

const APP = `{
  // The shop, as production runs it.
  "name": "shop",
  "main": "src/index.js",
  "compatibility_date": "2026-01-01",
  "routes": [{ "pattern": "shop.example.com/*", "zone_name": "example.com" }],
  "durable_objects": { "bindings": [{ "name": "CART", "class_name": "Cart" }, { "name": "ROOM", "class_name": "Room", "script_name": "shop" }] },
  "d1_databases": [{ "binding": "DB", "database_name": "shop-db", "database_id": "11111111-1111-4111-8111-111111111111", "migrations_dir": "migrations" }],
  "kv_namespaces": [{ "binding": "CACHE", "id": "0123456789abcdef0123456789abcdef" }], // sessions too
  "r2_buckets": [{ "binding": "FILES", "bucket_name": "shop-files" }],
  "queues": {
    "producers": [{ "binding": "JOBS", "queue": "shop-jobs" }],
    "consumers": [{ "queue": "shop-jobs", "max_batch_size": 10 }]
  },
  "env": { "staging": { "name": "shop-staging" } }
}
`;

const IDS: SlotIds = everyKind({
  workers: [{}],
  d1: [{ id: 'aaaaaaaa-0000-4000-8000-000000000003' }],
  kv: [{ id: 'ffffffffffffffffffffffffffff0003' }],
  r2: [{}],
  queues: [{ id: 'q-3' }],
});

function slotCopy(slots: string, app: string, file = 'wrangler.jsonc', accountId?: string): string {
  const config = parseSlotConfig(slots, 'slots.yml');
  const placement = placeBindings(config, parseAppWranglerConfig(file, app));
  return slotWranglerConfigText(placement, resourcesForSlot(config, 'preview-3'), IDS, { accountId });
}

function refusal(slots: string, app: string, file = 'wrangler.jsonc'): string {
  try {
    slotCopy(slots, app, file);
  } catch (error) {
    if (error instanceof WranglerConfigError) return error.message;
    throw error;
  }
  throw new Error('the config was not refused');
}

/** A JSONC copy as data: its comment lines dropped. */
const parsedCopy = (text: string): Record<string, unknown> =>
  JSON.parse(text.replace(/^\s*\/\/.*$/gm, '').replace(/\/\/ sessions too/, ''));

// Found by an adopter: the copy kept production's account_id (a slot on another account deployed the
// preview to production's), workers_dev: false (the preview answered nowhere), and triggers.crons (nine
// slots ran nine copies of the nightly billing job; leaving crons out would not have removed them).
describe("the slot's wrangler config deploys only into the slot", () => {
  const PRODUCTION = APP.replace(
    '"compatibility_date": "2026-01-01",',
    '"compatibility_date": "2026-01-01", "account_id": "prod0000prod0000prod0000prod0000", "workers_dev": false, "triggers": { "crons": ["0 3 * * *"] },',
  );

  it("puts the slot's account, a workers.dev address and no cron in the JSONC copy", () => {
    const parsed = parsedCopy(
      slotCopy(SLOTS, PRODUCTION, 'wrangler.jsonc', 'slot0000slot0000slot0000slot0000'),
    );
    expect(parsed).toMatchObject({
      account_id: 'slot0000slot0000slot0000slot0000',
      workers_dev: true,
      triggers: { crons: [] },
    });
  });

  it("leaves account_id out when the run names no account, so the deploy's CLOUDFLARE_ACCOUNT_ID applies", () => {
    const parsed = parsedCopy(slotCopy(SLOTS, PRODUCTION));
    expect(parsed).not.toHaveProperty('account_id');
    expect(parsed).toMatchObject({ workers_dev: true, triggers: { crons: [] } });
  });

  it('does the same in a TOML copy, a [triggers] table made where the app has none', () => {
    const toml = `name = "shop"
main = "src/index.js"
account_id = "prod0000prod0000prod0000prod0000"
workers_dev = false

[[d1_databases]]
binding = "DB"
database_name = "shop-db"
database_id = "11111111-1111-4111-8111-111111111111"
`;
    const text = slotCopy(SLOTS, toml, 'wrangler.toml', 'slot0000slot0000slot0000slot0000');
    expect(text).toContain('account_id = "slot0000slot0000slot0000slot0000"');
    expect(text).toContain('workers_dev = true');
    expect(text).toMatch(/\[triggers\]\s*\ncrons = \[\s*\]/);
    expect(text).not.toContain('prod0000');
  });
});

describe("the slot's wrangler config", () => {
  it('points the Worker and every binding at the slot, keeping the comments and everything else', () => {
    const text = slotCopy(SLOTS, APP);
    expect(text.split('\n')[0]).toBe(
      "// Written by preview-gc for slot preview-3 from wrangler.jsonc: the Worker and its bindings point at the slot's resources; env, routes and route are left out, account_id is the slot's, workers_dev is on and no cron runs. Do not edit: acquire writes it anew.",
    );
    expect(text).toContain('// The shop, as production runs it.');
    expect(text).toContain('// sessions too');
    const parsed = JSON.parse(text.replace(/^\s*\/\/.*$/gm, '').replace(/\/\/ sessions too/, ''));
    expect(parsed).toMatchObject({
      name: 'shop-preview-3',
      main: 'src/index.js',
      d1_databases: [
        {
          binding: 'DB',
          database_name: 'shop-preview-3-db',
          database_id: 'aaaaaaaa-0000-4000-8000-000000000003',
          migrations_dir: 'migrations',
        },
      ],
      kv_namespaces: [{ binding: 'CACHE', id: 'ffffffffffffffffffffffffffff0003' }],
      r2_buckets: [{ binding: 'FILES', bucket_name: 'shop-preview-3-files', jurisdiction: 'eu' }],
      queues: {
        producers: [{ binding: 'JOBS', queue: 'shop-preview-3-jobs' }],
        consumers: [{ queue: 'shop-preview-3-jobs', max_batch_size: 10 }],
      },
      durable_objects: {
        bindings: [
          { name: 'CART', class_name: 'Cart' },
          { name: 'ROOM', class_name: 'Room', script_name: 'shop-preview-3' },
        ],
      },
    });
    expect(parsed).not.toHaveProperty('env');
    expect(parsed).not.toHaveProperty('routes');
  });

  it('writes a TOML config anew, saying its comments are not kept', () => {
    const toml = `# production
name = "shop"
main = "src/index.js"

[[d1_databases]]
binding = "DB"
database_name = "shop-db"
database_id = "11111111-1111-4111-8111-111111111111"

[[kv_namespaces]]
binding = "CACHE"
id = "0123456789abcdef0123456789abcdef"
`;
    const text = slotCopy(SLOTS, toml, 'wrangler.toml');
    expect(text.split('\n')[0]).toContain("; the original's comments are not kept.");
    expect(parseToml(text)).toMatchObject({
      name: 'shop-preview-3',
      d1_databases: [
        { database_name: 'shop-preview-3-db', database_id: 'aaaaaaaa-0000-4000-8000-000000000003' },
      ],
      kv_namespaces: [{ binding: 'CACHE', id: 'ffffffffffffffffffffffffffff0003' }],
    });
  });

  it('refuses a binding the slot config cannot place, naming it and the fix', () => {
    const app = APP.replace(
      '"kv_namespaces": [{ "binding": "CACHE", "id": "0123456789abcdef0123456789abcdef" }]',
      '"kv_namespaces": [{ "binding": "CACHE", "id": "0123" }, { "binding": "SESSIONS", "id": "4567" }]',
    );
    const message = refusal(SLOTS, app);
    expect(message).toContain('the wrangler config wrangler.jsonc was refused (no slot was taken):');
    expect(message).toContain(
      'kv_namespaces[0] (binding CACHE) is not a resource of the slot, so the preview would use what it names now; add a template for it to slots.yml under resources.kv with binding: CACHE',
    );
    expect(message).toContain('kv_namespaces[1] (binding SESSIONS) is not a resource of the slot');
  });

  it('places bindings by the binding key when a kind has several templates', () => {
    const slots = SLOTS.replace(
      '    - title: shop-{slot}-cache\n',
      '    - title: shop-{slot}-cache\n      binding: CACHE\n    - title: shop-{slot}-sessions\n      binding: SESSIONS\n',
    );
    const app = APP.replace(
      '"kv_namespaces": [{ "binding": "CACHE", "id": "0123456789abcdef0123456789abcdef" }]',
      '"kv_namespaces": [{ "binding": "SESSIONS", "id": "4567" }, { "binding": "CACHE", "id": "0123" }]',
    );
    const config = parseSlotConfig(slots, 'slots.yml');
    const text = slotWranglerConfigText(
      placeBindings(config, parseAppWranglerConfig('wrangler.jsonc', app)),
      resourcesForSlot(config, 'preview-3'),
      { ...IDS, kv: [{ id: 'cache-3' }, { id: 'sessions-3' }] },
    );
    expect(text).toContain(
      '{ "binding": "SESSIONS", "id": "sessions-3" }, { "binding": "CACHE", "id": "cache-3" }',
    );
  });

  it('refuses a binding key that names nothing, and a Durable Object of another Worker', () => {
    const slots = SLOTS.replace(
      '    - name: shop-{slot}-db\n',
      '    - name: shop-{slot}-db\n      binding: DATABASE\n',
    );
    const app = APP.replace('"script_name": "shop"', '"script_name": "shop-rooms"');
    const message = refusal(slots, app);
    expect(message).toContain(
      "slots.yml resources.d1[0].binding: 'DATABASE' (for 'shop-{slot}-db') names nothing in wrangler.jsonc, whose D1 database references are named DB; fix the binding or remove it",
    );
    expect(message).toContain(
      "wrangler.jsonc durable_objects.bindings[1]: binding ROOM uses class Room of another Worker ('shop-rooms'), whose storage every slot would share",
    );
  });

  it('refuses a config without a Worker template, a key that reaches the prototype, and bad syntax', () => {
    expect(refusal(SLOTS.replace('  workers:\n    - name: shop-{slot}\n', ''), APP)).toContain(
      "name (shop), durable_objects.bindings[1] (binding ROOM): slots.yml names no Worker for this config to deploy as, so the preview would deploy over 'shop'",
    );
    expect(refusal(SLOTS, '{ "name": "shop", "__proto__": { "d1_databases": [] } }')).toContain(
      'wrangler.jsonc:1:19: the key "__proto__" is not a wrangler setting; remove it',
    );
    expect(refusal(SLOTS, '{ "name": "shop",, }')).toContain('wrangler.jsonc:1:18: is not valid JSONC');
    expect(refusal(SLOTS, 'name = "shop', 'wrangler.toml')).toMatch(
      /wrangler\.toml:1:\d+: is not valid TOML/,
    );
  });
});

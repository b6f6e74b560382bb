// The preview's own settings in the slot's wrangler config (issue 30): an `env.preview` block applied
// as `wrangler deploy --env preview` would, the slot config's vars ({slot}, {n}), a warning naming the
// production vars when neither gives the preview its own, every binding to something no slot has
// refused (or shared on purpose), service bindings to the slot's own Worker pointed at it, crons kept
// only on request, and a preview route.

import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSlotConfig, resourcesForSlot } from '../../src/config/slot-config.ts';
import { parseAppWranglerConfig, WranglerConfigError } from '../../src/config/wrangler/app-config.ts';
import { deployWranglerConfig } from '../../src/config/wrangler/deploy-config.ts';
import { placeBindings, type WranglerPlacement } from '../../src/config/wrangler/placement.ts';
import { applyPreviewEnv } from '../../src/config/wrangler/preview-env.ts';
import { type SlotIds, slotWranglerConfigText } from '../../src/config/wrangler/slot-config.ts';
import { everyKind } from '../support/every-kind.ts';
import { PRODUCTION_APP, shopSlots } from '../support/production-app.ts';

const SLOTS = shopSlots('shop');

const IDS: SlotIds = everyKind({ workers: [{}], d1: [{ id: 'aaaaaaaa-0000-4000-8000-000000000003' }] });

const PRODUCTION = PRODUCTION_APP;

function app(top: object, file = 'wrangler.jsonc') {
  return parseAppWranglerConfig(file, JSON.stringify(top, null, 2));
}

function placementOf(slots: string, top: object, file?: string): WranglerPlacement {
  const config = parseSlotConfig(slots, 'slots.yml');
  return placeBindings(config, applyPreviewEnv(app(top, file), config.deploy.env));
}

function copyOf(slots: string, top: object): Record<string, unknown> {
  const config = parseSlotConfig(slots, 'slots.yml');
  const text = slotWranglerConfigText(placementOf(slots, top), resourcesForSlot(config, 'preview-3'), IDS, {
    accountId: 'slot0000slot0000slot0000slot0000',
  });
  return JSON.parse(text.replace(/^\/\/.*\n/, ''));
}

function refusal(slots: string, top: object): string {
  try {
    placementOf(slots, top);
  } catch (error) {
    if (error instanceof WranglerConfigError) return error.message;
    throw error;
  }
  throw new Error('the config was not refused');
}

describe('a binding the pool cannot place is a choice the user makes', () => {
  it('refuses a Hyperdrive and a service binding to a production Worker, naming each, its place and both fixes', () => {
    const message = refusal(SLOTS, PRODUCTION);
    expect(message).toContain('no slot was taken');
    expect(message).toContain('hyperdrive[0] (binding WAREHOUSE) is not a resource of the slot');
    expect(message).toContain('services[0] (binding AUTH) is not a resource of the slot');
    expect(message).toContain('give the preview its own in env.preview of wrangler.jsonc');
    expect(message).toContain('deploy: { shared: [WAREHOUSE] } in slots.yml');
    expect(message).toContain('deploy: { shared: [AUTH] } in slots.yml');
  });

  it('refuses every other kind that reaches the account, and a key preview-gc does not know', () => {
    const message = refusal(SLOTS, {
      name: 'shop',
      d1_databases: PRODUCTION.d1_databases,
      mtls_certificates: [{ binding: 'CERT', certificate_id: 'c1' }],
      dispatch_namespaces: [{ binding: 'TENANTS', namespace: 'customers' }],
      analytics_engine_datasets: [{ binding: 'EVENTS', dataset: 'shop_events' }],
      secrets_store_secrets: [{ binding: 'STRIPE_KEY', store_id: 's1', secret_name: 'stripe' }],
      workflows: [
        { binding: 'OWN', name: 'checkout', class_name: 'Checkout' },
        { binding: 'BILLING', name: 'billing', class_name: 'Billing', script_name: 'billing-worker' },
      ],
      teleporter: { binding: 'BEAM' },
    });
    for (const place of [
      'mtls_certificates[0] (binding CERT)',
      'dispatch_namespaces[0] (binding TENANTS)',
      'analytics_engine_datasets[0] (binding EVENTS)',
      'secrets_store_secrets[0] (binding STRIPE_KEY)',
      'workflows[1] (binding BILLING)',
    ])
      expect(message).toContain(`${place} is not a resource of the slot`);
    // Even the Worker's own Workflow: its name is the account's, so the deploy would take it over.
    expect(message).toContain('workflows[0] (binding OWN) is not a resource of the slot');
    expect(message).toContain('"teleporter" is a wrangler setting preview-gc does not know');
    expect(message).toContain('deploy: { shared: [BEAM] }');
  });

  it('accepts what deploy.shared names, lists it, and refuses a shared name that matches nothing', () => {
    const shared = `${SLOTS}deploy:\n  shared: [WAREHOUSE, AUTH]\n  vars: { MODE: preview }\n`;
    expect(placementOf(shared, PRODUCTION).shared).toEqual([
      { name: 'WAREHOUSE', place: 'hyperdrive[0]' },
      { name: 'AUTH', place: 'services[0]' },
    ]);
    const typo = `${SLOTS}deploy:\n  shared: [WAREHOUSE, AUTH, WAREHOSE]\n`;
    expect(refusal(typo, PRODUCTION)).toContain(
      "slots.yml deploy.shared: 'WAREHOSE' names no binding of wrangler.jsonc outside the slot (those are WAREHOUSE, AUTH)",
    );
  });

  it("points a service binding to the Worker itself, or to another Worker of the slot, at the slot's Worker", () => {
    const slots = `pool: shop
resources:
  workers:
    - name: shop-{slot}
      binding: shop
    - name: auth-{slot}
      binding: auth
  d1:
    - name: shop-{slot}-db
`;
    const copy = copyOf(slots, {
      ...PRODUCTION,
      hyperdrive: undefined,
      services: [
        { binding: 'AUTH', service: 'auth', environment: 'production', entrypoint: 'Sessions' },
        { binding: 'SELF', service: 'shop' },
      ],
    });
    expect(copy.services).toEqual([
      { binding: 'AUTH', service: 'auth-preview-3', entrypoint: 'Sessions' },
      { binding: 'SELF', service: 'shop-preview-3' },
    ]);
  });
});

describe("the preview's own settings", () => {
  const withPreviewEnv = {
    ...PRODUCTION,
    env: {
      preview: {
        vars: { API_BASE: 'https://api.staging.example.com', STRIPE_MODE: 'test' },
        triggers: { crons: ['*/5 * * * *'] },
        d1_databases: [{ binding: 'DB', database_name: 'shop-staging-db', database_id: 'x' }],
        services: [{ binding: 'AUTH', service: 'auth-staging' }],
      },
      staging: { name: 'shop-staging' },
    },
  };

  it('applies env.preview as wrangler deploy --env preview would: its vars and bindings, none of production', () => {
    const shared = `${SLOTS}deploy:\n  shared: [AUTH]\n`;
    const copy = copyOf(shared, withPreviewEnv);
    expect(copy).toMatchObject({
      name: 'shop-preview-3',
      account_id: 'slot0000slot0000slot0000slot0000',
      workers_dev: true,
      vars: { API_BASE: 'https://api.staging.example.com', STRIPE_MODE: 'test' },
      // Still no schedule: the env's crons are production's kind of work too, unless kept.
      triggers: { crons: [] },
      d1_databases: [{ binding: 'DB', database_name: 'shop-preview-3-db', database_id: IDS.d1[0]?.id }],
      services: [{ binding: 'AUTH', service: 'auth-staging' }],
    });
    // wrangler does not inherit bindings into an env: production's Hyperdrive is not the preview's.
    expect(copy).not.toHaveProperty('hyperdrive');
    expect(copy).not.toHaveProperty('env');
    expect(copy).not.toHaveProperty('routes');
    expect(JSON.stringify(copy)).not.toContain('live');
  });

  it("names the env block's place when one of its bindings is refused", () => {
    expect(refusal(SLOTS, withPreviewEnv)).toContain(
      'env.preview.services[0] (binding AUTH) is not a resource',
    );
  });

  it('takes the env block the slot config names', () => {
    const review = { ...PRODUCTION, env: { review: { vars: { MODE: 'review' } } } };
    expect(copyOf(`${SLOTS}deploy:\n  env: review\n`, review).vars).toEqual({ MODE: 'review' });
    // The block gives no services: wrangler deploys none, so nothing is shared and AUTH names nothing.
    const slots = `${SLOTS}deploy:\n  env: review\n  shared: [AUTH]\n`;
    expect(() => placementOf(slots, { ...PRODUCTION, env: { review: {} } })).toThrow(
      /'AUTH' names no binding/,
    );
  });

  it("gives the slot config's vars, {slot} and {n} expanded, when the app has no preview block", () => {
    const slots = `${SLOTS}deploy:
  shared: [WAREHOUSE, AUTH]
  vars: { API_BASE: "https://api-{slot}.staging.example.com", SHARD: "{n}", DEBUG: true }
`;
    expect(copyOf(slots, PRODUCTION).vars).toEqual({
      API_BASE: 'https://api-preview-3.staging.example.com',
      SHARD: '3',
      DEBUG: true,
    });
  });

  it('keeps the crons of a Worker whose template says crons: keep', () => {
    const slots = SLOTS.replace('    - name: shop-{slot}\n', '    - name: shop-{slot}\n      crons: keep\n');
    const copy = copyOf(`${slots}deploy:\n  shared: [WAREHOUSE, AUTH]\n`, PRODUCTION);
    expect(copy.triggers).toEqual({ crons: ['0 3 * * *'] });
  });

  it("routes the preview at the slot config's pattern, {slot} expanded, instead of production's domains", () => {
    const slots = `${SLOTS}deploy:\n  shared: [WAREHOUSE, AUTH]\n  route: "{slot}.preview.example.com/*"\n`;
    expect(copyOf(slots, PRODUCTION).routes).toEqual(['preview-3.preview.example.com/*']);
    expect(() => parseSlotConfig(`${SLOTS}deploy:\n  route: "preview.example.com/*"\n`, 'slots.yml')).toThrow(
      /must hold \{slot\} or \{n\} in its host/,
    );
  });

  it("warns once, naming production's vars, when nothing gives the preview its own", async () => {
    const directory = await mkdtemp(join(tmpdir(), 'preview-gc-vars-'));
    const file = join(directory, 'wrangler.jsonc');
    await writeFile(file, JSON.stringify(PRODUCTION));
    const config = parseSlotConfig(`${SLOTS}deploy:\n  shared: [WAREHOUSE, AUTH]\n`, 'slots.yml');
    const deploy = await deployWranglerConfig(file, config, "input 'wrangler-config'");
    expect(deploy?.warnings).toEqual([
      `The preview runs with the vars of ${file} as production has them: "API_BASE", "STRIPE_MODE". Give it its own in an env.preview block of ${file}, or under deploy.vars in slots.yml ({slot} and {n} expand).`,
    ]);
    expect(deploy?.shared.map((binding) => binding.name)).toEqual(['WAREHOUSE', 'AUTH']);
    const written = await deploy?.write('preview-3', IDS);
    const copy = (await readFile(written ?? '', 'utf8')).replace(/^\/\/.*\n/, '');
    expect(JSON.parse(copy).vars).toEqual(PRODUCTION.vars);
    const quiet = parseSlotConfig(`${SLOTS}deploy:\n  shared: [WAREHOUSE, AUTH]\n  vars: {}\n`, 'slots.yml');
    expect((await deployWranglerConfig(file, quiet, "input 'wrangler-config'"))?.warnings).toEqual([]);
  });

  it('applies an env.preview table of a TOML config', () => {
    const toml = `name = "shop"
main = "src/index.js"

[vars]
STRIPE_MODE = "live"

[[d1_databases]]
binding = "DB"
database_name = "shop-db"
database_id = "11111111-1111-4111-8111-111111111111"

[env.preview.vars]
STRIPE_MODE = "test"

[[env.preview.d1_databases]]
binding = "DB"
database_name = "shop-staging-db"
database_id = "22222222-2222-4222-8222-222222222222"
`;
    const config = parseSlotConfig(SLOTS, 'slots.yml');
    const placement = placeBindings(
      config,
      applyPreviewEnv(parseAppWranglerConfig('wrangler.toml', toml), 'preview'),
    );
    const text = slotWranglerConfigText(placement, resourcesForSlot(config, 'preview-3'), IDS);
    expect(text.split('\n')[0]).toContain('from wrangler.toml with its env.preview applied');
    expect(text).toContain('STRIPE_MODE = "test"');
    expect(text).toContain('database_name = "shop-preview-3-db"');
    expect(text).not.toContain('live');
    expect(text).not.toContain('[env');
  });
});

// Found by an attacker's read of the change: each let a branch's config reach production through the
// slot's copy, or refused nothing while the docs said it would.
describe("the slot's copy cannot be turned against production", () => {
  it('refuses a JSONC key written twice: the edits change the first, wrangler reads the last', () => {
    const text = `{ "name": "shop", "account_id": "slot", "d1_databases": [], "account_id": "prod0000prod0000prod0000prod0000" }`;
    expect(() => parseAppWranglerConfig('wrangler.jsonc', text)).toThrow(
      /wrangler\.jsonc:1:\d+: the key "account_id" is written twice in one object; keep one/,
    );
    expect(() =>
      parseAppWranglerConfig('wrangler.jsonc', '{ "env": { "preview": { "vars": {}, "vars": {} } } }'),
    ).toThrow(/"vars" is written twice/);
  });

  it('refuses a Durable Object transfer, odd triggers, and Workers AI and Images unless shared', () => {
    const message = refusal(`${SLOTS}deploy:\n  shared: [WAREHOUSE, AUTH]\n`, {
      ...PRODUCTION,
      triggers: [],
      migrations: [{ tag: 'v1', transferred_classes: [{ from: 'Cart', from_script: 'shop', to: 'Cart' }] }],
      exports: {
        Cart: {
          type: 'durable-object',
          state: 'expecting-transfer',
          storage: 'sqlite',
          transfer_from: 'shop',
        },
      },
      ai: { binding: 'AI' },
      images: { binding: 'IMAGES' },
    });
    expect(message).toContain('migrations[0].transferred_classes: moves another Worker');
    expect(message).toContain('exports."Cart": state "expecting-transfer" moves Durable Object storage');
    expect(message).toContain('triggers: must be a table');
    expect(message).toContain('ai (binding AI) is not a resource of the slot');
    expect(message).toContain('images (binding IMAGES) is not a resource of the slot');
  });

  it('shares a name of one kind only, and a list key never by its key', () => {
    const twoKinds = { ...PRODUCTION, services: [{ binding: 'WAREHOUSE', service: 'billing' }] };
    expect(refusal(`${SLOTS}deploy:\n  shared: [WAREHOUSE]\n`, twoKinds)).toContain(
      'deploy.shared: "WAREHOUSE" names bindings of 2 kinds (hyperdrive, services)',
    );
    expect(refusal(`${SLOTS}deploy:\n  shared: [hyperdrive, AUTH]\n`, PRODUCTION)).toContain(
      'hyperdrive[0] (binding WAREHOUSE) is not a resource of the slot',
    );
  });

  it('shows a binding name that deploy.shared could not hold quoted, and suggests no shared: for it', () => {
    const message = refusal(SLOTS, {
      ...PRODUCTION,
      services: [],
      hyperdrive: [{ binding: 'X] } in a.yml; run', id: 'x' }],
    });
    expect(message).toContain('(binding "X] } in a.yml; run")');
    expect(message).not.toContain('shared: [X]');
  });

  it('refuses a TOML __proto__ table and nesting too deep to be a config, as errors that name the file', () => {
    expect(() =>
      parseAppWranglerConfig('wrangler.toml', 'name = "shop"\n[env.preview.__proto__]\nroutes = ["x/*"]\n'),
    ).toThrow(/wrangler\.toml env\.preview\.__proto__: the key "__proto__" is not a wrangler setting/);
    expect(() => parseAppWranglerConfig('wrangler.jsonc', '['.repeat(200_000))).toThrow(
      /is nested too deeply/,
    );
  });
});

// Issue 30's promise, through the bundled action and the real wrangler CLI against the twin: a
// preview deployed from the slot's wrangler config never touches production. An app whose config
// carries production's account_id, routes, workers_dev: false, crons, vars, a Hyperdrive and a service
// binding is refused before any slot is taken, each outside binding named; with an `env.preview`
// block and `deploy.shared` it is accepted, and `wrangler deploy --config <the slot's copy>` puts a
// Worker in the slot with no schedules, the preview's vars, the slot's bindings and a workers.dev
// address. A Worker that keeps its crons on purpose has them until gc takes the slot back; after the
// gc it has none. The real semaphore runs in workerd.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWorker } from '../../demo/app-seed.ts';
import { seedFromConfig } from '../../demo/config-seed.ts';
import { parseSlotConfig } from '../../src/config/slot-config.ts';
import { parseAppWranglerConfig } from '../../src/config/wrangler/app-config.ts';
import type { RunReport } from '../../src/report/model.ts';
import { runAction } from '../support/action-run.ts';
import { type ActionStack, actionInputs, expectNoLeaks, startActionStack } from '../support/action-stack.ts';
import { PRODUCTION_APP, shopSlots } from '../support/production-app.ts';
import { type Wrangler, wranglerFor } from '../twin/wrangler-cli.ts';

const TOKENS = {
  semaphore: 'sem-safe-7d3a21',
  cloudflare: 'cf-safe-2e9b64',
  github: 'ghs-safe-5f1c08',
};
/** Each wrangler start takes seconds on a busy 2-core runner. */
const SLOW = 120_000;
const POOL = 'shop-safe';

const SLOTS = shopSlots(POOL);

const PRODUCTION = PRODUCTION_APP;

/** The same app with the preview's own settings where wrangler users keep them. */
const WITH_PREVIEW_ENV = {
  ...PRODUCTION,
  env: {
    preview: {
      vars: { API_BASE: 'https://api.staging.example.com', STRIPE_MODE: 'test' },
      d1_databases: [{ binding: 'DB', database_name: 'shop-staging-db', database_id: 'staging' }],
      hyperdrive: [{ binding: 'WAREHOUSE', id: 'f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5' }],
      services: [{ binding: 'AUTH', service: 'auth-staging' }],
    },
  },
};

const CODE = `export default { fetch() { return new Response('shop'); }, scheduled() {} };\n`;

let stack: ActionStack;
let app: string;
let wrangler: Wrangler;

beforeAll(async () => {
  stack = await startActionStack(TOKENS);
  app = await mkdtemp(join(tmpdir(), 'preview-gc-safe-'));
  await mkdir(join(app, 'src'));
  await mkdir(join(app, 'home'));
  await writeFile(join(app, 'src', 'index.js'), CODE);
  // The slot as the app's earlier deploys left it: the app's Worker (no Durable Objects), data in D1.
  const worker = appWorker(parseAppWranglerConfig('wrangler.json', JSON.stringify(PRODUCTION)));
  stack.twin.seed(seedFromConfig(parseSlotConfig(SLOTS, 'slots.yml'), ['preview-1'], { worker }));
  await stack.client.add({ type: POOL, slug: 'preview-1' });
  wrangler = wranglerFor(stack.twin, join(app, 'home'));
}, 60_000);

afterAll(async () => {
  await stack?.close();
  if (app) await rm(app, { recursive: true, force: true });
});

async function files(name: string, slots: string, wranglerConfig: object) {
  const configPath = join(app, `${name}.yml`);
  const wranglerPath = join(app, `${name}.jsonc`);
  await writeFile(configPath, slots);
  await writeFile(wranglerPath, JSON.stringify(wranglerConfig, null, 2));
  return { configPath, wranglerPath };
}

function acquire(pr: number, paths: { configPath: string; wranglerPath: string }) {
  return runAction(
    actionInputs(
      stack,
      POOL,
      { command: 'acquire', 'pull-request': String(pr), 'wrangler-config': paths.wranglerPath },
      paths.configPath,
    ),
    { cwd: app },
  );
}

/** The pull request's lease ends (as the cleanup of a closed one would end it): the slot is dirty. */
const releaseDirty = () => stack.client.release({ type: POOL, slug: 'preview-1', force: true });

const reportOf = (run: { outputs: Record<string, string | undefined> }) =>
  JSON.parse(run.outputs.report ?? '{}') as RunReport;

describe('a preview deploy never touches production', () => {
  it('refuses, before taking a slot, each binding no slot has: the Hyperdrive and the production service', {
    timeout: SLOW,
  }, async () => {
    const run = await acquire(1, await files('production', SLOTS, PRODUCTION));
    expectNoLeaks(run, Object.values(TOKENS));
    expect(run.exitCode).toBe(1);
    const [problem] = reportOf(run).problems;
    expect(problem).toContain('was refused (no slot was taken)');
    expect(problem).toContain('hyperdrive[0] (binding WAREHOUSE) is not a resource of the slot');
    expect(problem).toContain('services[0] (binding AUTH) is not a resource of the slot');
    expect(problem).toContain('give the preview its own in env.preview');
    expect(problem).toContain('deploy: { shared: [WAREHOUSE] }');
    const [slot] = (await stack.client.list(POOL)).resources;
    expect(slot?.leaseState).toBe('available');
  });

  it('with env.preview and deploy.shared, wrangler deploys into the slot with no schedule and the preview vars', {
    timeout: SLOW,
  }, async () => {
    const paths = await files('preview', `${SLOTS}deploy:\n  shared: [WAREHOUSE, AUTH]\n`, WITH_PREVIEW_ENV);
    const run = await acquire(2, paths);
    expectNoLeaks(run, Object.values(TOKENS));
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.summary).toContain(
      '| Shared with what they name, on purpose (`deploy.shared`) | `WAREHOUSE` (at `env.preview.hyperdrive[0]`), `AUTH` (at `env.preview.services[0]`) |',
    );
    // The preview has its own vars: no warning about production's.
    expect((reportOf(run).warnings ?? []).join('\n')).not.toContain('vars');
    const copy = run.outputs['wrangler-config'] ?? '';
    expect(copy).toBe(join(app, 'preview.preview-gc.preview-1.jsonc'));

    stack.twin.resetRequests();
    await wrangler(app, 'deploy', '--config', copy);
    const worker = stack.twin.account.workers.scripts.get('shop-preview-1');
    const db = stack.twin.state().d1.find((database) => database.name === 'shop-preview-1-db');
    expect(worker?.bindings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'd1', name: 'DB', id: db?.uuid }),
        expect.objectContaining({ type: 'plain_text', name: 'STRIPE_MODE', text: 'test' }),
        expect.objectContaining({
          type: 'plain_text',
          name: 'API_BASE',
          text: 'https://api.staging.example.com',
        }),
        expect.objectContaining({ type: 'service', name: 'AUTH', service: 'auth-staging' }),
      ]),
    );
    expect(JSON.stringify(worker?.bindings)).not.toContain('live');
    const deployed = stack.twin.state().workers.find((entry) => entry.name === 'shop-preview-1');
    expect(deployed?.crons).toEqual([]);
    expect(deployed?.subdomain.enabled).toBe(true);
    // The url output is the workers.dev address the deployed preview answers at.
    expect(run.outputs.url).toBe(
      `https://shop-preview-1.${stack.twin.account.workers.subdomain}.workers.dev`,
    );
    expect(deployed?.reachable.map((entry) => entry.url)).toContain(run.outputs.url);
    // Nothing went to production's Worker, nor to production's account.
    expect(stack.twin.state().workers.some((entry) => entry.name === 'shop')).toBe(false);
    expect(stack.twin.requests().some((request) => request.path.includes('beef'))).toBe(false);
    await releaseDirty();
  });

  it('a Worker that keeps its crons on purpose has them until gc takes the slot back, and none after', {
    timeout: SLOW,
  }, async () => {
    const slots = SLOTS.replace('    - name: shop-{slot}\n', '    - name: shop-{slot}\n      crons: keep\n');
    const paths = await files(
      'kept',
      `${slots}deploy:\n  shared: [WAREHOUSE, AUTH]\n  vars: { API_BASE: "https://api-{slot}.staging.example.com" }\n`,
      PRODUCTION,
    );
    const run = await acquire(3, paths);
    expect(run.exitCode, run.stdout).toBe(0);
    await wrangler(app, 'deploy', '--config', run.outputs['wrangler-config'] ?? '');
    const deployed = () => stack.twin.state().workers.find((entry) => entry.name === 'shop-preview-1');
    expect(deployed()?.crons).toEqual(['0 3 * * *']);
    expect(stack.twin.account.workers.scripts.get('shop-preview-1')?.bindings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'plain_text',
          name: 'API_BASE',
          text: 'https://api-preview-1.staging.example.com',
        }),
      ]),
    );

    // The pull request goes quiet: its lease ends, and gc reclaims the slot.
    await releaseDirty();
    const gc = await runAction(actionInputs(stack, POOL, { command: 'gc' }, paths.configPath), { cwd: app });
    expect(gc.exitCode, gc.stdout).toBe(0);
    expect(deployed()?.crons).toEqual([]);
    expect(await readFile(join(app, 'kept.jsonc'), 'utf8')).toContain('0 3 * * *');
  });
});

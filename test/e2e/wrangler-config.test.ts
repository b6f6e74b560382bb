// The deploy side through the bundled action: acquire writes the app's own wrangler config for the slot
// it hands over (the Worker's name and every binding pointed at the slot's resources, by name and id),
// and the real wrangler CLI deploys from it against the twin, bundling in a dry run and uploading for
// real; its `resources` output names every kind with its id. A binding the slot config cannot place
// fails the run before any slot is taken. The real semaphore runs in workerd.
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
import { type Wrangler, wranglerFor } from '../twin/wrangler-cli.ts';

const TOKENS = {
  semaphore: 'sem-deploy-4b7e10',
  cloudflare: 'cf-deploy-9c2d55',
  github: 'ghs-deploy-1a0f3e',
};
/** Each wrangler start takes seconds on a busy 2-core runner. */
const SLOW = 120_000;

const SLOTS = `pool: shop-deploy
resources:
  workers:
    - name: shop-{slot}
  d1:
    - name: shop-{slot}-db
  kv:
    - title: shop-{slot}-cache
  r2:
    - bucket: shop-{slot}-files
      expire: { id: expire-preview-files, after: 3h }
  queues:
    - name: shop-{slot}-jobs
  vectorize:
    - name: shop-{slot}-embeddings
`;

/** The app's own config, as its production deploy uses it: bindings that name production's resources. */
const APP_CONFIG = `{
  // The shop, as production deploys it.
  "name": "shop",
  "main": "src/index.js",
  "compatibility_date": "2026-01-01",
  "account_id": "0000000000000000000000000000beef",
  "workers_dev": false,
  "triggers": { "crons": ["0 3 * * *"] },
  "routes": [{ "pattern": "shop.example.com/*", "zone_name": "example.com" }],
  "durable_objects": { "bindings": [{ "name": "CART", "class_name": "Cart" }, { "name": "ROOM", "class_name": "Room" }] },
  "migrations": [{ "tag": "v1", "new_sqlite_classes": ["Cart", "Room"] }],
  "d1_databases": [{ "binding": "DB", "database_name": "shop-db", "database_id": "11111111-1111-4111-8111-111111111111" }],
  "kv_namespaces": [{ "binding": "CACHE", "id": "0123456789abcdef0123456789abcdef" }],
  "r2_buckets": [{ "binding": "FILES", "bucket_name": "shop-files" }],
  "queues": {
    "producers": [{ "binding": "JOBS", "queue": "shop-jobs" }],
    "consumers": [{ "queue": "shop-jobs", "max_batch_size": 10 }]
  },
  "vectorize": [{ "binding": "EMBEDDINGS", "index_name": "shop-embeddings" }]
}
`;

const CODE = `import { DurableObject } from 'cloudflare:workers';
export class Cart extends DurableObject {}
export class Room extends DurableObject {}
export default {
  fetch() { return new Response('shop'); },
  queue() {},
};
`;

let stack: ActionStack;
let app: string;
let configPath: string;
let wrangler: Wrangler;

beforeAll(async () => {
  stack = await startActionStack(TOKENS);
  app = await mkdtemp(join(tmpdir(), 'preview-gc-deploy-'));
  await mkdir(join(app, 'src'));
  await mkdir(join(app, 'home'));
  configPath = join(app, 'preview-slots.yml');
  await Promise.all([
    writeFile(configPath, SLOTS),
    writeFile(join(app, 'wrangler.jsonc'), APP_CONFIG),
    writeFile(join(app, 'src', 'index.js'), CODE),
  ]);
  const config = parseSlotConfig(SLOTS, configPath);
  // The slots as the app's earlier deploys left them: its Durable Object classes, data in every store.
  const worker = appWorker(parseAppWranglerConfig('wrangler.jsonc', APP_CONFIG));
  stack.twin.seed(seedFromConfig(config, ['preview-1', 'preview-2'], { worker }));
  for (const slug of ['preview-1', 'preview-2']) await stack.client.add({ type: 'shop-deploy', slug });
  wrangler = wranglerFor(stack.twin, join(app, 'home'));
}, 60_000);

afterAll(async () => {
  await stack?.close();
  if (app) await rm(app, { recursive: true, force: true });
});

function acquire(pr: number, extra: Record<string, string> = {}, cwd = app) {
  return runAction(
    actionInputs(
      stack,
      'shop-deploy',
      { command: 'acquire', 'pull-request': String(pr), ...extra },
      configPath,
    ),
    { cwd },
  );
}

describe("acquire writes the slot's wrangler config, and wrangler deploys from it", () => {
  it('points the Worker and every binding at the slot, and wrangler bundles and uploads it', {
    timeout: SLOW,
  }, async () => {
    // The working directory's wrangler.jsonc, found as wrangler would find it.
    const run = await acquire(1);
    expectNoLeaks(run, Object.values(TOKENS));
    expect(run.exitCode, run.stdout).toBe(0);
    const slug = run.outputs.slot ?? '';
    const state = stack.twin.state();
    const ids = {
      d1: state.d1.find((db) => db.name === `shop-${slug}-db`)?.uuid,
      kv: state.kv.find((ns) => ns.title === `shop-${slug}-cache`)?.id,
      queue: state.queues.find((queue) => queue.name === `shop-${slug}-jobs`)?.id,
    };
    expect(JSON.parse(run.outputs.resources ?? '{}')).toEqual({
      workers: [{ name: `shop-${slug}` }],
      d1: [{ name: `shop-${slug}-db`, id: ids.d1 }],
      kv: [{ name: `shop-${slug}-cache`, id: ids.kv }],
      // The seed's objects are there and no rule expires them: the next tenant is told so.
      r2: [
        {
          name: `shop-${slug}-files`,
          left: {
            state: 'left',
            summary: '3 objects, and the lifecycle rule expire-preview-files is not in place to expire them',
          },
        },
      ],
      queues: [{ name: `shop-${slug}-jobs`, id: ids.queue }],
      vectorize: [{ name: `shop-${slug}-embeddings`, id: `shop-${slug}-embeddings` }],
    });
    expect(run.outputs['wrangler-config']).toBe(`wrangler.preview-gc.${slug}.jsonc`);
    expect(run.summary).toContain(
      `| Wrangler config (\`wrangler-config\`) | \`wrangler.preview-gc.${slug}.jsonc\` |`,
    );
    const written = await readFile(join(app, `wrangler.preview-gc.${slug}.jsonc`), 'utf8');
    expect(written).toContain('// The shop, as production deploys it.');
    expect(written).not.toContain('shop.example.com');

    const dryRun = await wrangler(
      app,
      'deploy',
      '--config',
      `wrangler.preview-gc.${slug}.jsonc`,
      '--dry-run',
      '--outdir',
      'dist',
    );
    expect(dryRun.stdout).toContain(`env.DB (shop-${slug}-db)`);
    expect(dryRun.stdout).toContain(`env.CACHE (${ids.kv})`);
    expect(dryRun.stdout).toContain(`env.JOBS (shop-${slug}-jobs)`);
    expect(await readFile(join(app, 'dist', 'index.js'), 'utf8')).toMatch(
      /export \{[^}]*\bCart\b[^}]*\bRoom\b/,
    );

    stack.twin.resetRequests();
    await wrangler(app, 'deploy', '--config', `wrangler.preview-gc.${slug}.jsonc`);
    // wrangler found the slot's queue by name, and made the slot's Worker its consumer.
    expect(stack.twin.requests().map((request) => `${request.route} -> ${request.status}`)).toContain(
      'POST /accounts/:account/queues/:queue/consumers -> 200',
    );
    const worker = stack.twin.account.workers.scripts.get(`shop-${slug}`);
    expect(worker?.bindings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'd1', name: 'DB', id: ids.d1 }),
        expect.objectContaining({ type: 'kv_namespace', name: 'CACHE', namespace_id: ids.kv }),
        expect.objectContaining({ type: 'r2_bucket', name: 'FILES', bucket_name: `shop-${slug}-files` }),
        expect.objectContaining({ type: 'queue', name: 'JOBS', queue_name: `shop-${slug}-jobs` }),
        expect.objectContaining({
          type: 'vectorize',
          name: 'EMBEDDINGS',
          index_name: `shop-${slug}-embeddings`,
        }),
      ]),
    );
    expect(
      stack.twin
        .state()
        .workers.find((w) => w.name === `shop-${slug}`)
        ?.liveClasses.sort(),
    ).toEqual(['Cart', 'Room']);
    expect(stack.twin.state().workers.some((w) => w.name === 'shop')).toBe(false);
    // Into the slot's account (not production's account_id), with a workers.dev address and none of
    // production's cron triggers.
    const deployed = stack.twin.state().workers.find((w) => w.name === `shop-${slug}`);
    expect(deployed?.subdomain.enabled).toBe(true);
    // The url output is the address the deployed preview answers at.
    expect(run.outputs.url).toBe(`https://shop-${slug}.${stack.twin.account.workers.subdomain}.workers.dev`);
    expect(deployed?.reachable.map((entry) => entry.url)).toContain(run.outputs.url);
    expect(deployed?.crons).toEqual([]);
    expect(stack.twin.requests().map((request) => request.route)).toContain(
      'PUT /accounts/:account/workers/scripts/:name/schedules',
    );
    expect(stack.twin.account.queues.findByName(`shop-${slug}-jobs`)?.consumers.map((c) => c.script)).toEqual(
      [`shop-${slug}`],
    );
  });

  it('refuses, before taking a slot, a binding the slot config cannot place', { timeout: SLOW }, async () => {
    const path = join(app, 'sessions.jsonc');
    await writeFile(
      path,
      APP_CONFIG.replace(
        '"kv_namespaces": [{ "binding": "CACHE", "id": "0123456789abcdef0123456789abcdef" }]',
        '"kv_namespaces": [{ "binding": "CACHE", "id": "0123" }, { "binding": "SESSIONS", "id": "4567" }]',
      ),
    );
    const before = (await stack.client.list('shop-deploy')).resources.map((slot) => slot.generation);
    const run = await acquire(2, { 'wrangler-config': path });
    expect(run.exitCode).toBe(1);
    const [problem] = (JSON.parse(run.outputs.report ?? '{}') as RunReport).problems;
    expect(problem).toContain(`the wrangler config ${path} was refused (no slot was taken)`);
    expect(problem).toContain(
      `kv_namespaces[1] (binding SESSIONS) is not a resource of the slot, so the preview would use what it names now; add a template for it to ${configPath} under resources.kv with binding: SESSIONS`,
    );
    expect((JSON.parse(run.outputs.report ?? '{}') as RunReport).acquired).toBeUndefined();
    expect((await stack.client.list('shop-deploy')).resources.map((slot) => slot.generation)).toEqual(before);
  });
});

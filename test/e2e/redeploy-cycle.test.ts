// The tenant is real wrangler: a slot's four apps are deployed with the wrangler CLI as a pull
// request would, the bundled action's gc reclaims the slot (the real semaphore in workerd, the twin
// for Cloudflare), the next pull request deploys again, gc reclaims again. After each step the
// Workers' code and Durable Object classes are checked. The four shapes: Durable Objects on legacy
// migrations (new_sqlite_classes, later deleted_classes; after a park wrangler takes the "migration
// tag not found in your config, applying all migrations" path), no Durable Objects,
// `durable-objects: keep` (no migration after a park: wrangler deploys through the versions API),
// and declarative exports. Each app is a plain ES module uploaded with --no-bundle, so no build
// runs; each has one project directory, reused by both pull requests.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { gcInputs, runAction } from '../support/action-run.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { type Wrangler, wranglerFor } from '../twin/wrangler-cli.ts';

const POOL = 'redeploy';
const SLUG = 'preview-1';
const SEMAPHORE_TOKEN = 'sem-redeploy-5c1e9a';
const CLOUDFLARE_TOKEN = 'cf-redeploy-8d2b47';

interface Project {
  /** wrangler.json without name and main. */
  config: Record<string, unknown>;
  /** Durable Object classes the code exports. */
  classes: string[];
}

interface AppShape {
  worker: string;
  /** The app's entry in the slot config. */
  slotConfig: string;
  /** What pull request `n` (1 or 2) deploys. */
  project(pr: number): Project;
  /** Classes live right after pull request `n` deployed. */
  deployed(pr: number): string[];
  /** Classes after gc reclaimed the slot from pull request `n`. */
  parked(pr: number): { live: string[]; tombstoned: string[] };
}

const binding = (className: string) => ({ name: className.toUpperCase(), class_name: className });

const SHAPES: AppShape[] = [
  {
    worker: `rooms-${SLUG}`,
    slotConfig: '    - name: rooms-{slot}\n',
    project: (pr) =>
      pr === 1
        ? {
            classes: ['Room', 'Lobby'],
            config: {
              durable_objects: { bindings: [binding('Room'), binding('Lobby')] },
              migrations: [{ tag: 'v1', new_sqlite_classes: ['Room', 'Lobby'] }],
            },
          }
        : {
            classes: ['Room'],
            config: {
              durable_objects: { bindings: [binding('Room')] },
              migrations: [
                { tag: 'v1', new_sqlite_classes: ['Room', 'Lobby'] },
                { tag: 'v2', deleted_classes: ['Lobby'] },
              ],
            },
          },
    deployed: (pr) => (pr === 1 ? ['Room', 'Lobby'] : ['Room']),
    // Lobby: tombstoned by the first park; the second pull request creates it again and deletes it.
    parked: () => ({ live: [], tombstoned: ['Lobby', 'Room'] }),
  },
  {
    worker: `plain-${SLUG}`,
    slotConfig: '    - name: plain-{slot}\n',
    project: () => ({ classes: [], config: {} }),
    deployed: () => [],
    parked: () => ({ live: [], tombstoned: [] }),
  },
  {
    worker: `kept-${SLUG}`,
    slotConfig: '    - name: kept-{slot}\n      durable-objects: keep\n',
    project: () => ({
      classes: ['Room'],
      config: {
        durable_objects: { bindings: [binding('Room')] },
        migrations: [{ tag: 'v1', new_sqlite_classes: ['Room'] }],
      },
    }),
    deployed: () => ['Room'],
    parked: () => ({ live: ['Room'], tombstoned: [] }),
  },
  {
    worker: `exported-${SLUG}`,
    slotConfig: '    - name: exported-{slot}\n',
    project: () => ({
      classes: ['Room'],
      config: {
        durable_objects: { bindings: [binding('Room')] },
        exports: { Room: { type: 'durable-object', storage: 'sqlite' } },
      },
    }),
    deployed: () => ['Room'],
    parked: () => ({ live: [], tombstoned: ['Room'] }),
  },
];

let semaphore: LocalSemaphore;
let twin: Twin;
let client: SemaphoreClient;
let root: string;
let wrangler: Wrangler;
let configPath: string;

function code(pr: number, classes: string[]): string {
  return [
    ...(classes.length > 0 ? ["import { DurableObject } from 'cloudflare:workers';"] : []),
    ...classes.map((name) => `export class ${name} extends DurableObject {}`),
    `export default { fetch() { return new Response('served by pull request ${pr}'); } };`,
  ].join('\n');
}

/** Pull request `pr` deploys every app of the slot with wrangler (all at once), as its workflow would. */
async function deployAll(pr: number): Promise<void> {
  await Promise.all(
    SHAPES.map((shape) => {
      const dir = join(root, shape.worker);
      const project = shape.project(pr);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'index.js'), code(pr, project.classes));
      const config = { name: shape.worker, main: 'index.js', compatibility_date: '2026-01-01' };
      writeFileSync(join(dir, 'wrangler.json'), JSON.stringify({ ...config, ...project.config }));
      return wrangler(dir, 'deploy', '--no-bundle');
    }),
  );
}

/** What a Worker serves now, and its classes. */
function workerNow(name: string) {
  const script = twin.account.workers.scripts.get(name);
  const state = twin.state().workers.find((worker) => worker.name === name);
  if (!script || !state) throw new Error(`no Worker ${name} in the twin`);
  return {
    code: script.modules.map((module) => module.text).join('\n'),
    live: state.liveClasses,
    tombstoned: [...state.tombstonedClasses].sort(),
  };
}

async function gc() {
  const run = await runAction(gcInputs(configPath, semaphore, twin));
  const report = JSON.parse(run.outputs.report ?? '{}') as { slots?: { slug: string; outcome: string }[] };
  return { run, outcomes: report.slots?.map((slot) => [slot.slug, slot.outcome]) };
}

/** Routes the twin served since its log was last cleared, counted. */
function routeCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of twin.requests()) counts[request.route] = (counts[request.route] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: SEMAPHORE_TOKEN }),
    startTwin({ token: CLOUDFLARE_TOKEN }),
  ]);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
  await client.add({ type: POOL, slug: SLUG, data: {} });
  root = mkdtempSync(join(tmpdir(), 'redeploy-cycle-'));
  wrangler = wranglerFor(twin, join(root, 'home'));
  configPath = join(root, 'preview-slots.yml');
  writeFileSync(
    configPath,
    `pool: ${POOL}\nresources:\n  workers:\n${SHAPES.map((shape) => shape.slotConfig).join('')}`,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close()]);
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('a slot that real wrangler deploys, reclaimed by gc, twice', () => {
  for (const pr of [1, 2]) {
    it(`pull request ${pr}: deployed by wrangler, then gc parks every app`, {
      timeout: 240_000,
    }, async () => {
      const lease = await client.acquireSpecific({
        type: POOL,
        slug: SLUG,
        holder: `pr-${pr}`,
        leaseMs: 3_600_000,
      });
      if (lease === null) throw new Error('the slot could not be leased');
      await deployAll(pr);
      for (const shape of SHAPES) {
        const worker = workerNow(shape.worker);
        expect(worker.code, shape.worker).toContain(`served by pull request ${pr}`);
        expect(worker.live, shape.worker).toEqual(shape.deployed(pr));
      }
      // Every call wrangler made was one the twin knows.
      expect(twin.requests().filter((request) => request.route === 'unmatched')).toEqual([]);
      await client.release({ type: POOL, slug: SLUG, leaseId: lease.leaseId });

      twin.resetRequests();
      const { run, outcomes } = await gc();
      expect(outcomes).toEqual([[SLUG, 'reclaimed']]);
      expect(run.exitCode).toBe(0);
      for (const shape of SHAPES) {
        const worker = workerNow(shape.worker);
        expect(worker.code, shape.worker).toContain('This preview slot is parked.');
        expect(worker.code, shape.worker).not.toContain('served by pull request');
        expect({ live: worker.live, tombstoned: worker.tombstoned }, shape.worker).toEqual(shape.parked(pr));
      }
      const counts = routeCounts();
      // One upload per app, every time: a redeployed Worker is never taken for parked.
      expect(counts['PUT /accounts/:account/workers/scripts/:name']).toBe(SHAPES.length);
      // After the first park the apps with nothing to tombstone still carry preview-gc's tag; only
      // their code, read back, shows that a pull request replaced it.
      expect(counts['GET /accounts/:account/workers/scripts/:name/content/v2'] ?? 0).toBe(pr === 1 ? 0 : 2);
      const slot = await client.find(POOL, SLUG);
      expect(slot).toMatchObject({ leaseState: 'available', dirty: false });
    });
  }
});

// The last tenant's code stops answering once gc reclaims its slot: the real wrangler CLI deploys as
// a pull request would, uploads a version with a preview alias and makes a Worker Preview with a
// Durable Object class of its own; the bundled action's gc (the real semaphore in workerd, the twin
// for Cloudflare) reclaims the slot. Then, in the twin's routing model, only the parked Worker
// answers: preview URLs are off, the old versions are gone, and the preview is deleted with its
// namespace; wrangler's own listings show the parked version alone.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { gcInputs, runAction } from '../support/action-run.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { type Wrangler, wranglerFor } from '../twin/wrangler-cli.ts';

const POOL = 'old-code';
const SEMAPHORE_TOKEN = 'sem-old-code-3e7a1d';
const CLOUDFLARE_TOKEN = 'cf-old-code-9b4c2f';
const HOST = 'preview-gc-twin.workers.dev';
/** wrangler starts take seconds each on a busy 2-core runner. */
const SLOW = 240_000;

let semaphore: LocalSemaphore;
let twin: Twin;
let client: SemaphoreClient;
let root: string;
let wrangler: Wrangler;
let configPath: string;

interface SlotReport {
  slug: string;
  outcome: string;
  erase: { steps: { kind: string; resource: string; status: string; summary: string }[] } | null;
}

function project(name: string, code: string[], config: Record<string, unknown> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.js'), code.join('\n'));
  writeFileSync(
    join(dir, 'wrangler.json'),
    JSON.stringify({ name, main: 'index.js', compatibility_date: '2026-01-01', ...config }),
  );
  return dir;
}

function workerNow(name: string) {
  const worker = twin.state().workers.find((candidate) => candidate.name === name);
  if (!worker) throw new Error(`no Worker ${name} in the twin`);
  return worker;
}

/** Pull request `pr` holds the slot while `deploy` runs, then releases it for gc to reclaim. */
async function asPullRequest(slug: string, pr: number, deploy: () => Promise<void>): Promise<void> {
  const lease = await client.acquireSpecific({ type: POOL, slug, holder: `pr-${pr}`, leaseMs: 3_600_000 });
  if (lease === null) throw new Error(`${slug} could not be leased`);
  await deploy();
  await client.release({ type: POOL, slug, leaseId: lease.leaseId });
}

async function gc(slug: string): Promise<SlotReport | undefined> {
  const run = await runAction(gcInputs(configPath, semaphore, twin));
  expect(run.exitCode).toBe(0);
  const report = JSON.parse(run.outputs.report ?? '{}') as { slots?: SlotReport[] };
  return report.slots?.find((slot) => slot.slug === slug);
}

beforeAll(async () => {
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: SEMAPHORE_TOKEN }),
    startTwin({ token: CLOUDFLARE_TOKEN }),
  ]);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
  await client.add({ type: POOL, slug: 'preview-1', data: {} });
  await client.add({ type: POOL, slug: 'preview-2', data: {} });
  root = mkdtempSync(join(tmpdir(), 'old-code-'));
  wrangler = wranglerFor(twin, join(root, 'home'));
  configPath = join(root, 'preview-slots.yml');
  writeFileSync(
    configPath,
    `pool: ${POOL}\nresources:\n  workers:\n    - name: shop-{slot}\n    - name: rooms-{slot}\n`,
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close()]);
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('gc reclaims a slot whose tenant left versions, an alias and a Worker Preview', () => {
  it('answers only with the parked Worker: no version URL, no alias, the old versions gone', {
    timeout: SLOW,
  }, async () => {
    const shop = 'shop-preview-1';
    const rooms = 'rooms-preview-1';
    const dir = project(shop, ["export default { fetch() { return new Response('pull request 7'); } };"]);
    const roomsDir = project(
      rooms,
      [
        "import { DurableObject } from 'cloudflare:workers';",
        'export class Room extends DurableObject {}',
        "export default { fetch() { return new Response('rooms of pull request 7'); } };",
      ],
      {
        durable_objects: { bindings: [{ name: 'ROOM', class_name: 'Room' }] },
        migrations: [{ tag: 'v1', new_sqlite_classes: ['Room'] }],
      },
    );
    await asPullRequest('preview-1', 7, async () => {
      await wrangler(dir, 'deploy', '--no-bundle');
      await wrangler(roomsDir, 'deploy', '--no-bundle');
      await wrangler(
        dir,
        'versions',
        'upload',
        '--no-bundle',
        '--preview-alias',
        'pr-7',
        '--message',
        'review me',
      );
    });
    const [first, uploaded] = workerNow(shop).versions;
    const aliasUrl = `https://pr-7-${shop}.${HOST}`;
    const versionUrl = `https://${uploaded?.id.slice(0, 8)}-${shop}.${HOST}`;
    expect(workerNow(shop).reachable).toEqual(
      expect.arrayContaining([
        { url: aliasUrl, serves: `version ${uploaded?.id}` },
        { url: versionUrl, serves: `version ${uploaded?.id}` },
        { url: `https://${first?.id.slice(0, 8)}-${shop}.${HOST}`, serves: `version ${first?.id}` },
      ]),
    );

    const slot = await gc('preview-1');
    expect(slot?.outcome).toBe('reclaimed');

    const parked = workerNow(shop);
    const active = parked.deployed[0]?.version_id;
    // Nothing answers on the version URLs or the alias; the Worker's own URL serves the parked code.
    expect(parked.reachable).toEqual([{ url: `https://${shop}.${HOST}`, serves: `version ${active}` }]);
    expect(parked.subdomain).toEqual({ enabled: true, previews_enabled: false });
    expect(twin.account.workers.scripts.get(shop)?.modules.map((module) => module.name)).toEqual([
      'parked.js',
    ]);
    expect(parked.versions.map((version) => version.id)).toEqual([active]);
    expect(slot?.erase?.steps.find((step) => step.resource === shop)?.summary).toBe(
      'parked (no Durable Object classes); deleted 2 old versions',
    );

    // wrangler's own listings show the parked version alone.
    const listed = JSON.parse((await wrangler(dir, 'versions', 'list', '--json')).stdout) as { id: string }[];
    expect(listed.map((version) => version.id)).toEqual([active]);
    const deployments = JSON.parse((await wrangler(dir, 'deployments', 'list', '--json')).stdout) as {
      versions: { version_id: string; percentage: number }[];
    }[];
    expect(deployments.map((deployment) => deployment.versions)).toEqual([
      [{ version_id: active, percentage: 100 }],
    ]);
    // Every deployment's versions are still there to read.
    expect((await wrangler(dir, 'deployments', 'list')).stdout).toContain(`(100%) ${active}`);
  });

  it('deletes the Worker Preview with its Durable Object namespace', { timeout: SLOW }, async () => {
    const rooms = 'rooms-preview-2';
    const dir = project(
      rooms,
      [
        "import { DurableObject } from 'cloudflare:workers';",
        'export class Room extends DurableObject {}',
        "export default { fetch() { return new Response('rooms of pull request 9'); } };",
      ],
      {
        durable_objects: { bindings: [{ name: 'ROOM', class_name: 'Room' }] },
        migrations: [{ tag: 'v1', new_sqlite_classes: ['Room'] }],
        previews: { durable_objects: { bindings: [{ name: 'ROOM', class_name: 'Room' }] } },
      },
    );
    const shopDir = project('shop-preview-2', ["export default { fetch() { return new Response('9'); } };"]);
    await asPullRequest('preview-2', 9, async () => {
      await wrangler(shopDir, 'deploy', '--no-bundle');
      await wrangler(dir, 'deploy', '--no-bundle');
      await wrangler(dir, 'preview', '--name', 'pr-9');
    });
    const namespaces = () =>
      twin
        .state()
        .durableObjectNamespaces.filter((namespace) => namespace.script === rooms)
        .map((namespace) => namespace.name)
        .sort();
    expect(namespaces()).toEqual(['pr-9_Room', `${rooms}_Room`]);
    expect(workerNow(rooms).reachable.map((entry) => entry.url)).toContain(`https://pr-9-${rooms}.${HOST}`);

    const slot = await gc('preview-2');
    expect(slot?.outcome).toBe('reclaimed');
    // The preview's URLs answer nothing and its namespace went with it; the Worker's own class is
    // tombstoned.
    expect(workerNow(rooms).reachable.map((entry) => entry.url)).toEqual([`https://${rooms}.${HOST}`]);
    expect(namespaces()).toEqual([]);
    expect(workerNow(rooms)).toMatchObject({ previews: [], tombstonedClasses: ['Room'] });
    expect(slot?.erase?.steps.find((step) => step.resource === rooms)?.summary).toBe(
      'parked; tombstoned Room; deleted Worker Preview pr-9',
    );
  });
});

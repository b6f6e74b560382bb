// Keeps the twin's versions, deployments, preview URLs and Worker Previews honest with the real
// wrangler CLI: a tenant deploys, uploads a version with an alias, a tag and a message, lists and
// views versions and deployments, deploys the version, and makes and deletes a Worker Preview with a
// Durable Object class of its own. Each command's routes are asserted, so a wrangler release that
// calls something else fails here first.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwin, type Twin } from './twin.ts';
import { type Wrangler, wranglerFor } from './wrangler-cli.ts';

/** Each wrangler start takes seconds on a busy 2-core runner; a test runs several. */
const SLOW = 180_000;
const SHOP = 'shop-preview-1';
const ROOMS = 'rooms-preview-1';

let twin: Twin;
let root: string;
let runWrangler: Wrangler;

function project(name: string, code: string, config: Record<string, unknown> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.js'), code);
  writeFileSync(
    join(dir, 'wrangler.json'),
    JSON.stringify({ name, main: 'index.js', compatibility_date: '2026-01-01', ...config }),
  );
  return dir;
}

/** Runs one wrangler command in `dir` with a fresh request log: its stdout. */
async function wrangler(dir: string, ...args: string[]): Promise<string> {
  twin.resetRequests();
  return (await runWrangler(dir, ...args)).stdout;
}

function routesCalled(): string[] {
  return twin.requests().map((r) => `${r.route} -> ${r.status}`);
}

function workerNow(name: string) {
  const worker = twin.state().workers.find((candidate) => candidate.name === name);
  if (!worker) throw new Error(`no Worker ${name} in the twin`);
  return worker;
}

beforeAll(async () => {
  twin = await startTwin();
  root = mkdtempSync(join(tmpdir(), 'twin-versions-'));
  runWrangler = wranglerFor(twin, join(root, 'home'));
});

afterAll(async () => {
  await twin?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('wrangler versions against the twin', () => {
  it('uploads a version with an alias, lists, views and deploys it', { timeout: SLOW }, async () => {
    const dir = project(SHOP, "export default { fetch() { return new Response('pull request 7'); } };");
    await wrangler(dir, 'deploy', '--no-bundle');
    // No `preview_urls` in the config: wrangler leaves `previews_enabled` out, and the API takes
    // workers.dev's value.
    expect(workerNow(SHOP).subdomain).toEqual({ enabled: true, previews_enabled: true });
    const [deployed] = workerNow(SHOP).versions;

    const uploaded = await wrangler(
      dir,
      'versions',
      'upload',
      '--no-bundle',
      '--preview-alias',
      'pr-7',
      '--tag',
      'review-1',
      '--message',
      'first review',
    );
    expect(routesCalled()).toEqual([
      'GET /accounts/:account/workers/services/:name -> 200',
      'GET /accounts/:account/workers/scripts/:name/settings -> 200',
      'POST /accounts/:account/workers/scripts/:name/versions -> 200',
      // Only because the answer says the version has a preview: the Worker's subdomain.
      'GET /accounts/:account/workers/workers/:name -> 200',
    ]);
    const version = workerNow(SHOP).versions.at(-1);
    if (!version || !deployed) throw new Error('the upload made no version');
    const versionUrl = `https://${version.id.slice(0, 8)}-${SHOP}.preview-gc-twin.workers.dev`;
    const aliasUrl = `https://pr-7-${SHOP}.preview-gc-twin.workers.dev`;
    expect(uploaded).toContain(`Worker Version ID: ${version.id}`);
    expect(uploaded).toContain(`Version Preview URL: ${versionUrl}`);
    expect(uploaded).toContain(`Version Preview Alias URL: ${aliasUrl}`);
    // Uploaded, not deployed: the Worker's own URL still serves the first version.
    expect(workerNow(SHOP).reachable).toEqual(
      expect.arrayContaining([
        { url: `https://${SHOP}.preview-gc-twin.workers.dev`, serves: `version ${deployed.id}` },
        { url: versionUrl, serves: `version ${version.id}` },
        { url: aliasUrl, serves: `version ${version.id}` },
      ]),
    );

    const listed = JSON.parse(await wrangler(dir, 'versions', 'list', '--json')) as {
      id: string;
      annotations?: Record<string, string>;
    }[];
    expect(routesCalled()).toEqual(['GET /accounts/:account/workers/scripts/:name/versions -> 200']);
    expect(listed.map((entry) => entry.id)).toEqual([deployed.id, version.id]);
    expect(listed[1]?.annotations).toMatchObject({
      'workers/tag': 'review-1',
      'workers/message': 'first review',
    });

    const viewed = await wrangler(dir, 'versions', 'view', version.id);
    expect(viewed).toMatch(/Tag:\s+review-1/);
    expect(viewed).toMatch(/Message:\s+first review/);
    expect(routesCalled()).toEqual(['GET /accounts/:account/workers/scripts/:name/versions/:version -> 200']);

    const deploys = await wrangler(
      dir,
      'versions',
      'deploy',
      `${version.id}@100%`,
      '-y',
      '--message',
      'ship',
    );
    expect(deploys).toContain(`Deployed ${SHOP} version ${version.id} at 100%`);
    expect(routesCalled()).toContain('POST /accounts/:account/workers/scripts/:name/deployments -> 200');

    // Every deployment's versions are read back: the deployments list reads each version.
    const history = await wrangler(dir, 'deployments', 'list');
    expect(history).toContain(`(100%) ${deployed.id}`);
    expect(history).toContain(`(100%) ${version.id}`);
    const status = JSON.parse(await wrangler(dir, 'deployments', 'status', '--json')) as {
      versions: unknown[];
      annotations?: Record<string, string>;
    };
    expect(status.versions).toEqual([{ version_id: version.id, percentage: 100 }]);
    expect(status.annotations).toEqual({ 'workers/message': 'ship' });
  });

  it('gives no version of a Worker with a Durable Object a preview URL', { timeout: SLOW }, async () => {
    const dir = project(
      ROOMS,
      [
        "import { DurableObject } from 'cloudflare:workers';",
        'export class Room extends DurableObject {}',
        "export default { fetch() { return new Response('rooms'); } };",
      ].join('\n'),
      {
        durable_objects: { bindings: [{ name: 'ROOM', class_name: 'Room' }] },
        migrations: [{ tag: 'v1', new_sqlite_classes: ['Room'] }],
        previews: { durable_objects: { bindings: [{ name: 'ROOM', class_name: 'Room' }] } },
      },
    );
    await wrangler(dir, 'deploy', '--no-bundle');
    const uploaded = await wrangler(dir, 'versions', 'upload', '--no-bundle', '--preview-alias', 'pr-8');
    expect(uploaded).not.toContain('Preview URL');
    // The answer said no preview: wrangler does not look the subdomain up.
    expect(routesCalled()).not.toContain('GET /accounts/:account/workers/workers/:name -> 200');
    expect(workerNow(ROOMS).reachable.map((entry) => entry.url)).toEqual([
      `https://${ROOMS}.preview-gc-twin.workers.dev`,
    ]);
  });

  it('makes a Worker Preview with a namespace of its own, and deletes both', { timeout: SLOW }, async () => {
    const dir = join(root, ROOMS);
    const made = await wrangler(dir, 'preview', '--name', 'pr-9');
    expect(made).toContain(`Preview URL: https://pr-9-${ROOMS}.preview-gc-twin.workers.dev`);
    expect(routesCalled()).toEqual([
      // 10025: no such preview yet.
      'GET /accounts/:account/workers/workers/:name/previews/:preview -> 404',
      'POST /accounts/:account/workers/workers/:name/previews -> 200',
      // The config has migrations: the preview's latest deployment is asked for its migration tag.
      'GET /accounts/:account/workers/workers/:name/previews/:preview/deployments/:deployment -> 404',
      'POST /accounts/:account/workers/workers/:name/previews/:preview/deployments -> 200',
    ]);
    const namespacesOf = () =>
      twin
        .state()
        .durableObjectNamespaces.filter((namespace) => namespace.script === ROOMS)
        .map((namespace) => namespace.name)
        .sort();
    expect(namespacesOf()).toEqual(['pr-9_Room', `${ROOMS}_Room`]);
    expect(workerNow(ROOMS).previews).toEqual(['pr-9']);

    expect(await wrangler(dir, 'preview', 'delete', '--name', 'pr-9', '-y')).toContain(
      'Preview "pr-9" deleted successfully',
    );
    expect(routesCalled()).toEqual([
      'DELETE /accounts/:account/workers/workers/:name/previews/:preview -> 200',
    ]);
    expect(namespacesOf()).toEqual([`${ROOMS}_Room`]);
    expect(workerNow(ROOMS).previews).toEqual([]);
  });
});

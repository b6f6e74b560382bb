// gc sweeps Cloudflare's own Worker Previews, end to end: the real wrangler CLI makes previews of the
// Worker `shop` on the twin (`wrangler preview`, named after the branch it runs on, or `--name`), the
// bundled action sweeps them against the real semaphore and a GitHub double. The previews: an open pull
// request's branch (whose `previews` block binds production's D1 database), a closed one's branch, a
// merged one's `pr-<n>`, a branch with no pull request, and `staging` (old, but kept by name).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport, WorkerPreviewRow } from '../../src/report/model.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { type ActionRunResult, gcInputs, runAction } from '../support/action-run.ts';
import { expectNoLeaks } from '../support/action-stack.ts';
import { type GitHubDouble, startGitHubDouble } from '../support/github-double.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { wranglerFor } from '../twin/wrangler-cli.ts';

const TOKENS = { semaphore: 'sem-previews-5d1c7e20a4', github: 'ghs-previews-9b3f6a1d27' };
const POOL = 'previews';
const WORKER = 'shop';
const PROD_DB = '4f1c2a9e-7b3d-4e8a-9c0f-1d2e3f4a5b6c';
const OWN_DB = '9a8b7c6d-5e4f-4a3b-8c1d-0e9f8a7b6c5d';
/** Each wrangler start takes seconds on a busy 2-core runner; a test runs several. */
const SLOW = 240_000;
const DAY = 86_400_000;

let twin: Twin;
let semaphore: LocalSemaphore;
let github: GitHubDouble;
let root: string;
let configPath: string;
/** The twin's clock runs this far from the wall clock: previews made meanwhile are that old. */
let skewMs = 0;

function project(name: string, previewDb: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.js'), "export default { fetch() { return new Response('shop'); } };\n");
  const db = (id: string) => ({ binding: 'DB', database_name: 'shop-db', database_id: id });
  writeFileSync(
    join(dir, 'wrangler.json'),
    JSON.stringify({
      name: WORKER,
      main: 'index.js',
      compatibility_date: '2026-01-01',
      no_bundle: true,
      d1_databases: [db(PROD_DB)],
      previews: { d1_databases: [db(previewDb)] },
    }),
  );
  return dir;
}

/** `wrangler preview` on `branch` (GITHUB_HEAD_REF, as in a pull request's job), or with `--name`. */
async function preview(dir: string, branch: { branch: string } | { name: string }): Promise<void> {
  const env: Record<string, string> = 'branch' in branch ? { GITHUB_HEAD_REF: branch.branch } : {};
  const args = 'name' in branch ? ['preview', '--name', branch.name] : ['preview'];
  await wranglerFor(twin, join(root, 'home'), { WORKERS_CI_BRANCH: '', GITHUB_REF_NAME: '', ...env })(
    dir,
    ...args,
  );
}

/** The previews of `shop` the twin holds now, by name (the state dump shows slugs). */
function previewsNow(): string[] {
  return (twin.account.workers.scripts.get(WORKER)?.previews ?? []).map((made) => made.name).sort();
}

/**
 * Time passes for the previews: their deployments' times move back by `ms`. The action compares them
 * with its own clock, which a test cannot move; this is the twin's test clock for them.
 */
function passTime(ms: number): void {
  const script = twin.account.workers.scripts.get(WORKER);
  for (const made of script?.previews ?? []) {
    const back = (iso: string) => new Date(Date.parse(iso) - ms).toISOString();
    made.createdOn = back(made.createdOn);
    made.updatedOn = back(made.updatedOn);
    for (const deployment of made.deployments) deployment.createdOn = back(deployment.createdOn);
  }
}

async function run(command: string, extra: Record<string, string> = {}): Promise<ActionRunResult> {
  const result = await runAction(
    {
      ...gcInputs(configPath, { url: semaphore.url, token: TOKENS.semaphore }, twin),
      command,
      'github-token': TOKENS.github,
      ...extra,
    },
    { env: { GITHUB_API_URL: github.url } },
  );
  expectNoLeaks(result, [...Object.values(TOKENS), twin.token]);
  return result;
}

const reportOf = (result: ActionRunResult): RunReport => JSON.parse(result.outputs.report ?? '{}');
const rowsOf = (result: ActionRunResult): WorkerPreviewRow[] =>
  JSON.parse(result.outputs['worker-previews'] ?? '[]')[0]?.previews ?? [];
const plan = (rows: WorkerPreviewRow[]) =>
  Object.fromEntries(rows.map((row) => [row.name, { pullRequest: row.pullRequest, why: row.why }]));
const actions = (rows: WorkerPreviewRow[]) => Object.fromEntries(rows.map((row) => [row.name, row.action]));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'worker-previews-'));
  [twin, semaphore, github] = await Promise.all([
    startTwin({ now: () => Date.now() + skewMs }),
    startLocalSemaphore({ token: TOKENS.semaphore }),
    startGitHubDouble(TOKENS.github),
  ]);
  configPath = join(root, 'preview-slots.yml');
  writeFileSync(
    configPath,
    [
      `pool: ${POOL}`,
      'resources:',
      '  workers:',
      '    - name: shop-{slot}',
      'worker-previews:',
      `  - worker: ${WORKER}`,
      '    ttl: 3d',
      '    keep: [staging]',
      '',
    ].join('\n'),
  );
  // A pool with one clean slot: gc has no slot to take back, only previews to sweep.
  await new SemaphoreClient({ baseUrl: semaphore.url, token: TOKENS.semaphore }).add({
    type: POOL,
    slug: 'shop-1',
  });
  for (const [number, state] of [
    [41, 'open'],
    [42, 'closed'],
    [43, 'merged'],
    [44, 'open'],
  ] as const)
    github.pullRequests.set(number, state);
  github.heads.set(41, 'feature/cart');
  github.heads.set(42, 'fix/typo');

  const shared = project('shared', PROD_DB);
  const own = project('own', OWN_DB);
  await wranglerFor(twin, join(root, 'home'))(own, 'deploy');
  await preview(shared, { branch: 'feature/cart' });
  await preview(own, { branch: 'fix/typo' });
  await preview(own, { name: 'pr-43' });
  await preview(own, { branch: 'spike/search' });
  skewMs = -10 * DAY;
  await preview(own, { name: 'staging' });
  skewMs = 0;
}, SLOW);

afterAll(async () => {
  await github?.close();
  await Promise.all([semaphore?.stop(), twin?.close()]);
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('gc sweeps the Worker Previews of a Worker in worker-previews', () => {
  let dryRows: WorkerPreviewRow[];

  it('a dry run plans the deletes and deletes nothing', { timeout: SLOW }, async () => {
    const result = await run('gc', { 'dry-run': 'true' });
    expect(result.exitCode, result.stdout).toBe(0);
    dryRows = rowsOf(result);
    expect(actions(dryRows)).toEqual({
      'feature/cart': 'kept',
      'fix/typo': 'would-delete',
      'pr-43': 'would-delete',
      'spike/search': 'kept',
      staging: 'kept',
    });
    expect(previewsNow()).toEqual(['feature/cart', 'fix/typo', 'pr-43', 'spike/search', 'staging']);
  });

  it('deletes the previews of closed and merged pull requests only, and says why', {
    timeout: SLOW,
  }, async () => {
    github.requests.length = 0;
    const result = await run('gc');
    expect(result.exitCode, result.stdout).toBe(0);
    const rows = rowsOf(result);
    expect(previewsNow()).toEqual(['feature/cart', 'spike/search', 'staging']);
    expect(actions(rows)).toEqual({
      'feature/cart': 'kept',
      'fix/typo': 'deleted',
      'pr-43': 'deleted',
      'spike/search': 'kept',
      staging: 'kept',
    });
    // The dry run planned exactly this.
    expect(plan(rows)).toEqual(plan(dryRows));
    expect(plan(rows)).toMatchObject({
      'feature/cart': { pullRequest: { number: 41, state: 'open' }, why: 'pull request #41 is open' },
      'fix/typo': { pullRequest: { number: 42, state: 'closed' }, why: 'pull request #42 is closed' },
      'pr-43': { pullRequest: { number: 43, state: 'merged' }, why: 'pull request #43 is merged' },
      'spike/search': { pullRequest: null, why: expect.stringContaining('tied to no pull request') },
      staging: { pullRequest: null, why: "`keep` names it ('staging')" },
    });
    // One page of pull requests for every preview, not one lookup each.
    expect(github.requests.filter((request) => request.path.startsWith('/repos/acme/shop/pulls'))).toEqual([
      expect.objectContaining({ method: 'GET', path: '/repos/acme/shop/pulls' }),
    ]);
    // The table, and the warning about the preview that writes to production's database.
    expect(result.summary).toContain('### Worker Previews of `shop`');
    expect(result.summary).toMatch(/\| `spike\/search` \| – \| .* \| ⏭️ kept \| tied to no pull request/);
    expect(reportOf(result).warnings).toContainEqual(
      expect.stringContaining(
        `Worker Preview 'feature/cart' of 'shop' binds what production binds: D1 database '${PROD_DB}'`,
      ),
    );
    expect(result.summary).toContain(`shares with production: D1 database '${PROD_DB}'`);
    expect(rows.find((row) => row.name === 'spike/search')?.sharesWithProduction).toEqual([]);
  });

  it('doctor warns about the preview that binds production D1 database, and deletes nothing', {
    timeout: SLOW,
  }, async () => {
    const result = await run('doctor');
    expect(reportOf(result).warnings).toContainEqual(
      expect.stringContaining(
        `Worker Preview 'feature/cart' of 'shop' binds what production binds: D1 database '${PROD_DB}'`,
      ),
    );
    expect(previewsNow()).toEqual(['feature/cart', 'spike/search', 'staging']);
  });

  it('status counts the previews of each Worker', { timeout: SLOW }, async () => {
    const result = await run('status');
    expect(result.exitCode, result.stdout).toBe(0);
    expect(reportOf(result).workerPreviewCounts).toEqual([{ worker: 'shop', previews: 3 }]);
    expect(result.summary).toContain('Worker Previews (gc sweeps them): `shop` 3.');
  });

  it('deletes the preview idle past its ttl once its deployment is that old', { timeout: SLOW }, async () => {
    passTime(4 * DAY);
    // The open pull request was pushed to since: a fresh deployment.
    await preview(join(root, 'shared'), { branch: 'feature/cart' });
    const result = await run('gc');
    expect(result.exitCode, result.stdout).toBe(0);
    expect(previewsNow()).toEqual(['feature/cart', 'staging']);
    expect(rowsOf(result).find((row) => row.name === 'spike/search')).toMatchObject({
      action: 'deleted',
      why: 'no deployment for 4d, past the ttl of 3d',
    });
  });

  it('cleanup deletes the closing pull request preview at once and says so', { timeout: SLOW }, async () => {
    github.pullRequests.set(41, 'closed');
    const result = await run('cleanup', { 'pull-request': '41' });
    expect(result.exitCode, result.stdout).toBe(0);
    expect(previewsNow()).toEqual(['staging']);
    expect(rowsOf(result)).toEqual([
      expect.objectContaining({ name: 'feature/cart', action: 'deleted', why: 'pull request #41 closed' }),
    ]);
    expect(result.summary).toContain('✅ deleted');
    // Gone already: a second cleanup finds nothing to delete, and is fine.
    const again = await run('cleanup', { 'pull-request': '41' });
    expect(again.exitCode, again.stdout).toBe(0);
    expect(rowsOf(again)).toEqual([]);
  });
});

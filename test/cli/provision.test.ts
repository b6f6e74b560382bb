// preview-gc slots provision as an adopter runs it against the twin and the real semaphore: the dry run
// names each create, the real run creates what is missing (R2 with its rule, Vectorize with its
// dimensions), a second run creates nothing, and a template it cannot create from is named.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { type CliResult, runCli } from './run-cli.ts';

const CONFIG = `pool: made
resources:
  workers:
    - name: made-{slot}
  d1:
    - name: made-{slot}-db
  kv:
    - title: made-{slot}-cache
  r2:
    - bucket: made-{slot}-files
      expire: { id: expire-preview-files, after: 3h }
  queues:
    - name: made-{slot}-jobs
  vectorize:
    - name: made-{slot}-embeddings
      dimensions: 32
      metric: euclidean
`;

let semaphore: LocalSemaphore;
let twin: Twin;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preview-gc-provision-'));
  await writeFile(join(dir, 'slots.yml'), CONFIG);
  [semaphore, twin] = await Promise.all([startLocalSemaphore({ port: 0 }), startTwin()]);
  twin.seed({
    d1: [{ name: 'made-preview-1-db', sql: 'CREATE TABLE kept (n INTEGER); INSERT INTO kept VALUES (1);' }],
  });
}, 60_000);

afterAll(async () => {
  await twin?.close();
  await semaphore?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function cli(args: string[], config = join(dir, 'slots.yml')): Promise<CliResult> {
  return runCli(['slots', 'provision', ...args, '--config', config], {
    SEMAPHORE_URL: semaphore.url,
    SEMAPHORE_TOKEN: semaphore.token,
    CLOUDFLARE_API_TOKEN: twin.token,
    CLOUDFLARE_ACCOUNT_ID: twin.accountId,
    CLOUDFLARE_API_BASE_URL: twin.baseUrl,
  });
}

describe('slots provision', () => {
  it('shows each create in a dry run, creates what is missing, and then nothing', async () => {
    const plan = await cli(['--count', '2', '--dry-run']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/preview-1\s+D1 database 'made-preview-1-db'\s+exists/);
    expect(plan.stdout).toMatch(/preview-2\s+Vectorize index 'made-preview-2-embeddings'\s+\+ would create/);
    expect(plan.stdout).toContain('Dry run, nothing was created: would create 11, 1 exist.');
    expect(twin.state().kv).toEqual([]);

    const made = await cli(['--count', '2']);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    expect(made.stdout).toContain('Created 11, 1 existed.');
    const state = twin.state();
    expect(state.workers.map((worker) => worker.name).sort()).toEqual(['made-preview-1', 'made-preview-2']);
    expect(
      state.r2.find((bucket) => bucket.name === 'made-preview-2-files')?.rules.map((rule) => rule.id),
    ).toContain('expire-preview-files');
    expect(state.vectorize.find((index) => index.name === 'made-preview-2-embeddings')).toMatchObject({
      dimensions: 32,
      metric: 'euclidean',
    });
    // What existed was left as it was.
    expect(
      state.d1.find((db) => db.name === 'made-preview-1-db')?.objects.find((object) => object.name === 'kept')
        ?.rows,
    ).toBe(1);

    const again = await cli(['--count', '2']);
    expect(again.stdout).toContain('Created 0, 12 existed.');
  });

  it('refuses a protected name before any call, and names what it cannot create from', async () => {
    twin.resetRequests();
    const refused = await cli(['--slugs', 'prod-1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("contains the protected word 'prod'");
    expect(twin.requests()).toEqual([]);

    const path = join(dir, 'no-dimensions.yml');
    await writeFile(path, CONFIG.replace('      dimensions: 32\n      metric: euclidean\n', ''));
    const failed = await cli(['--slugs', 'preview-3'], path);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      "cannot create Vectorize index 'made-preview-3-embeddings' without its dimensions and metric; give them at resources.vectorize[0]",
    );
  });
});

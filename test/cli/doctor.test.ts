// preview-gc doctor as a person runs it, a process against the real semaphore (workerd, its test clock)
// and the Cloudflare twin: a pool with one slot of each kind of trouble gets one table, each problem
// with its fix, exit 1, and nothing changed; a healthy pool exits 0; the Cloudflare listings are one
// per kind, whatever the number of slots; a config whose template is protected in its fixed part is
// refused as it is read.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSlotConfig } from '../../src/config/slot-config.ts';
import type { RunReport } from '../../src/report/model.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { appSlotConfig } from '../support/app-slot-config.ts';
import { advanceClock } from '../support/test-clock.ts';
import { slotSeed } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { type CliResult, runCli } from './run-cli.ts';

const HOUR = 3_600_000;
const POOL = 'doctor-pool';
const HEALTHY = 'doctor-healthy';

let semaphore: LocalSemaphore;
let twin: Twin;
let client: SemaphoreClient;
let dir: string;
let configPath: string;
let healthyPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preview-gc-doctor-'));
  configPath = join(dir, 'doctor.yml');
  healthyPath = join(dir, 'healthy.yml');
  await writeFile(configPath, appSlotConfig(POOL, 'shop'));
  await writeFile(healthyPath, appSlotConfig(HEALTHY, 'fine'));
  const config = parseSlotConfig(appSlotConfig(POOL, 'shop'), 'doctor.yml');
  const healthy = parseSlotConfig(appSlotConfig(HEALTHY, 'fine'), 'healthy.yml');
  const slugs = ['preview-1', 'preview-2', 'preview-3', 'preview-4', 'preview-5', 'preview-6'];
  const seed = slotSeed(config, slugs, slugs);
  // preview-3's bucket was deleted by hand.
  seed.r2 = (seed.r2 ?? []).filter((entry) => entry.bucket !== 'shop-preview-3-files');
  const fine = slotSeed(healthy, ['preview-1', 'preview-2'], ['preview-1', 'preview-2']);
  [semaphore, twin] = await Promise.all([startLocalSemaphore({ port: 0, testClock: true }), startTwin({})]);
  twin.seed(seed);
  twin.seed(fine);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });

  for (const slug of [...slugs, 'prod-1']) await client.add({ type: POOL, slug });
  // preview-2: released dirty by a pull request.
  const dirty = await client.acquireSpecific({
    type: POOL,
    slug: 'preview-2',
    holder: 'pr-7',
    leaseMs: HOUR,
  });
  await client.release({ type: POOL, slug: 'preview-2', leaseId: dirty?.leaseId ?? '' });
  // preview-4: taken with a two-day lease (a workflow that still sets lease-minutes: 2880).
  await client.acquireSpecific({ type: POOL, slug: 'preview-4', holder: 'pr-12', leaseMs: 48 * HOUR });
  // preview-5: its lease of a minute ended five hours ago, and no gc took it back.
  await client.acquireSpecific({ type: POOL, slug: 'preview-5', holder: 'pr-13', leaseMs: 60_000 });
  // preview-6: two erases in a row failed on its KV namespace.
  for (let attempt = 0; attempt < 2; attempt++) {
    const lease = await client.acquireSpecific({
      type: POOL,
      slug: 'preview-6',
      holder: 'gc',
      leaseMs: HOUR,
    });
    await client.release({
      type: POOL,
      slug: 'preview-6',
      leaseId: lease?.leaseId ?? '',
      eraseFailure: { step: "kv 'shop-preview-6-cache'", message: 'HTTP 500 from Cloudflare' },
    });
  }
  await advanceClock(semaphore, POOL, 5 * HOUR + 60_000);
  for (const slug of ['preview-1', 'preview-2']) await client.add({ type: HEALTHY, slug });
}, 60_000);

afterAll(async () => {
  await twin?.close();
  await semaphore?.stop();
  await rm(dir, { recursive: true, force: true });
});

function env(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    SEMAPHORE_URL: semaphore.url,
    SEMAPHORE_TOKEN: semaphore.token,
    CLOUDFLARE_API_TOKEN: twin.token,
    CLOUDFLARE_ACCOUNT_ID: twin.accountId,
    CLOUDFLARE_API_BASE_URL: twin.baseUrl,
    ...overrides,
  };
}

function show(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** The table's line of a slot, with the lines under it up to the next slot's. */
function rowOf(stdout: string, slug: string): string {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`  ${slug} `));
  const end = lines.findIndex((line, index) => index > start && /^ {2}\S/.test(line));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

describe('preview-gc doctor', () => {
  let result: CliResult;
  let generations: number[];

  beforeAll(async () => {
    generations = (await client.list(POOL)).resources.map((slot) => slot.generation);
    twin.resetRequests();
    result = await runCli(['doctor', '--config', configPath], env());
  }, 60_000);

  it('fails, and says in its headline how many slots have a problem', () => {
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe(
      '✖ preview-gc doctor on pool doctor-pool: 5 of 7 slots have problems',
    );
  });

  it('shows every slot in one table, a healthy one ok and a dirty one ok with its note', () => {
    expect(result.stdout).toMatch(/\n {2}SLOT +STATE +HOLDER +LEASE +RESOURCES +VERDICT\n/);
    expect(rowOf(result.stdout, 'preview-1')).toMatch(/^ {2}preview-1 +available +– +– +4 of 4 +✔ ok$/);
    expect(rowOf(result.stdout, 'preview-2')).toMatch(
      /available, dirty .* 4 of 4 +✔ ok, 1 note\n.*· dirty: the next gc, or its next acquirer, erases it/,
    );
  });

  it('names a resource the account does not have, with the template it comes from', () => {
    expect(rowOf(result.stdout, 'preview-3')).toContain('3 of 4');
    expect(rowOf(result.stdout, 'preview-3')).toContain(
      `✖ the R2 bucket 'shop-preview-3-files' (from 'shop-{slot}-files' at ${configPath} resources.r2[0].bucket) does not exist in the account`,
    );
  });

  it('finds a lease far beyond lease-minutes, one that ended long ago, a slot that needs repair and a protected name', () => {
    expect(rowOf(result.stdout, 'preview-4')).toMatch(
      /✖ its lease ends in 1 d 19 h, far beyond lease-minutes \(3 h\).*\n.*fix: .*preview-gc release --slot preview-4 --force --holder \S+ --generation \d+ --note why/,
    );
    expect(rowOf(result.stdout, 'preview-5')).toContain(
      '✖ its lease ended 5 h ago and no gc has taken it back',
    );
    expect(rowOf(result.stdout, 'preview-6')).toContain(
      `✖ needs repair: its erase failed 2 times in a row, last in "kv 'shop-preview-6-cache'": "HTTP 500 from Cloudflare"`,
    );
    expect(rowOf(result.stdout, 'prod-1')).toMatch(
      /✖ the slot config refuses it, [\s\S]*'shop-\{slot\}-db' expands to 'shop-prod-1-db', which contains the protected word 'prod'/,
    );
  });

  it('changes nothing, and lists each kind once for all slots', async () => {
    expect((await client.list(POOL)).resources.map((slot) => slot.generation)).toEqual(generations);
    const writes = twin.requests().filter((request) => request.method !== 'GET');
    expect(writes).toEqual([]);
    const listings = twin
      .requests()
      .filter((request) =>
        /\/(workers\/scripts|d1\/database|storage\/kv\/namespaces|r2\/buckets)$/.test(request.path),
      );
    expect(listings.map((request) => request.path.split('/').slice(-2).join('/')).sort()).toEqual([
      'd1/database',
      'kv/namespaces',
      'r2/buckets',
      'workers/scripts',
    ]);
  });

  it('gives the same in --json, the findings of each slot with their fix', async () => {
    const json = await runCli(['doctor', '--config', configPath, '--json'], env());
    const report = JSON.parse(json.stdout) as RunReport;
    expect(json.code).toBe(1);
    expect(
      report.doctor?.rows.map((row) => [row.slug, row.findings.map((finding) => finding.severity)]),
    ).toEqual([
      ['preview-1', []],
      ['preview-2', ['note']],
      ['preview-3', ['problem']],
      ['preview-4', ['problem']],
      ['preview-5', ['problem']],
      ['preview-6', ['problem']],
      ['prod-1', ['problem']],
    ]);
  });

  it('exits 0 for a healthy pool, and says what it did not check without credentials', async () => {
    const healthy = await runCli(['doctor', '--config', healthyPath], env());
    expect(healthy.code, show(healthy)).toBe(0);
    expect(healthy.stdout.split('\n')[0]).toBe(
      '✔ preview-gc doctor on pool doctor-healthy: 2 slots, no problem found',
    );
    const unchecked = await runCli(['doctor', '--config', healthyPath], env({ CLOUDFLARE_API_TOKEN: '' }));
    expect(unchecked.code, show(unchecked)).toBe(0);
    expect(unchecked.stdout).toContain(
      "WARNING  Not checked that the slots' Cloudflare resources exist: give CLOUDFLARE_API_TOKEN (environment variable) and --cloudflare-account-id / CLOUDFLARE_ACCOUNT_ID to check them",
    );
  });

  it('says once when Cloudflare refuses the token, and fails', async () => {
    const refused = await runCli(
      ['doctor', '--config', healthyPath],
      env({ CLOUDFLARE_API_TOKEN: 'not-a-token-of-the-twin' }),
    );
    expect(refused.code, show(refused)).toBe(1);
    expect(refused.stdout.split('The Cloudflare API token is invalid or expired').length - 1).toBe(1);
    expect(refused.stdout).toContain("so the slots' resources were not checked. Fix: ");
  });
});

describe('a config whose template is protected in its fixed part', () => {
  it('is refused as it is read, naming the key, the word and the line', async () => {
    const path = join(dir, 'protected.yml');
    await writeFile(
      path,
      'pool: p\nresources:\n  r2:\n    - bucket: myapp-prod-{n}-uploads\n      expire: { id: e, after: 3h }\n',
    );
    const result = await runCli(['doctor', '--config', path], env());
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      `${path}:4:15 resources.r2[0].bucket: 'myapp-prod-{n}-uploads' contains the protected word 'prod' (protect-words) in its fixed part`,
    );
  });
});

// The two ways an attack session erased data a live pull request holds, against the real semaphore
// (workerd), the Cloudflare twin and the real action in-process:
// - compare-and-release: pr-7's lease ends and pr-8 acquires the slot between cleanup's read and its
//   force (the proxy in front of the semaphore makes it happen right then); the force must change
//   nothing, and pr-8 keeps the slot and its rows. The same for `preview-gc release --force`;
// - one owner per resource name: `d1: [{ name: app-{n}-db }]` with slots preview-1 and staging-1
//   gives both the database app-1-db; gc must not erase it for the expired staging-1 while pr-5
//   holds preview-1, cleanup must not erase it either, and the CLI must not build such a pool.
// And SIGTERM is honoured at any point, reading and validating a large slot config included.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '../../src/config/settings.ts';
import { loadSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { executeSettings } from '../../src/services.ts';
import { runCli } from '../cli/run-cli.ts';
import { runAction } from '../support/action-run.ts';
import { runActionInProcess } from '../support/in-process-action.ts';
import { secretLeaks, summaryEscapeProblems } from '../support/run-checks.ts';
import { type SemaphoreProxy, startSemaphoreProxy } from '../support/semaphore-proxy.ts';
import { advanceClock } from '../support/test-clock.ts';
import { requestsTouching, slotContents, slotSeed, tenantData } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SEMAPHORE_TOKEN = 'sem-invariants-5b2e90c4d1';
const CLOUDFLARE_TOKEN = 'cf-invariants-a83f1e6d27';
const SHARED_CONFIG = fileURLToPath(new URL('./fixtures/shared-n.yml', import.meta.url));
const OWN_CONFIG = fileURLToPath(new URL('./fixtures/small-slots.yml', import.meta.url));
const PR_LEASE_MS = 10 * 60_000;

let semaphore: LocalSemaphore;
let twin: Twin;
let client: SemaphoreClient;
let proxy: SemaphoreProxy;
let shared: SlotConfig;
let own: SlotConfig;

beforeAll(async () => {
  [shared, own] = await Promise.all([loadSlotConfig(SHARED_CONFIG), loadSlotConfig(OWN_CONFIG)]);
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: SEMAPHORE_TOKEN, testClock: true }),
    // app-1-db holds pr-5's data: preview-1's database, which staging-1 names too.
    startTwin({ token: CLOUDFLARE_TOKEN, seed: slotSeed(shared, ['preview-1']) }),
  ]);
  twin.seed(slotSeed(own, ['race-1', 'race-cli-1']));
  proxy = await startSemaphoreProxy(semaphore.url);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all([semaphore?.stop(), twin?.close()]);
});

function actionInputs(pool: string, extra: Record<string, string>): Record<string, string> {
  return {
    config: SHARED_CONFIG,
    pool,
    'semaphore-url': semaphore.url,
    'semaphore-token': SEMAPHORE_TOKEN,
    'cloudflare-api-token': CLOUDFLARE_TOKEN,
    'cloudflare-account-id': twin.accountId,
    'cloudflare-api-base-url': twin.baseUrl,
    ...extra,
  };
}

/** A pool with preview-1 held live by pr-5 and staging-1 held by `staging`, expired or live. */
async function sharedPool(pool: string, staging: { holder: string; expired: boolean }): Promise<void> {
  for (const slug of ['preview-1', 'staging-1']) await client.add({ type: pool, slug });
  await client.acquireSpecific({ type: pool, slug: 'staging-1', holder: staging.holder, leaseMs: 1_000 });
  if (staging.expired) await advanceClock(semaphore, pool, 2_000);
  else
    await client.acquireSpecific({
      type: pool,
      slug: 'staging-1',
      holder: staging.holder,
      leaseMs: PR_LEASE_MS,
      force: true,
    });
  await client.acquireSpecific({ type: pool, slug: 'preview-1', holder: 'pr-5', leaseMs: PR_LEASE_MS });
}

/**
 * A pool of one slot held live by pr-7; the moment its `find` is answered (the read before a force),
 * pr-7's lease runs out by the semaphore's clock and pr-8 acquires the slot and deploys into it.
 * Gives pr-8's lease generation and the rows of the slot right after pr-8 deployed.
 */
async function raceOnFind(pool: string, slug: string): Promise<() => Pr8 | undefined> {
  await client.add({ type: pool, slug });
  await client.acquireSpecific({ type: pool, slug, holder: 'pr-7', leaseMs: PR_LEASE_MS });
  twin.seed(tenantData(own, slug, 'pr-7'));
  let pr8: Pr8 | undefined;
  proxy.hooks.afterUpstream = async (request) => {
    if (request.method !== 'GET' || request.path !== `/api/resources/${pool}/${slug}`) return;
    if (pr8 !== undefined) return;
    await advanceClock(semaphore, pool, PR_LEASE_MS + 1_000);
    const lease = await client.acquireSpecific({ type: pool, slug, holder: 'pr-8', leaseMs: PR_LEASE_MS });
    if (lease === null) throw new Error('pr-8 could not take the expired slot');
    twin.seed(tenantData(own, slug, 'pr-8'));
    pr8 = { generation: lease.generation, rows: slotContents(twin, own, slug).rows };
  };
  return () => pr8;
}

interface Pr8 {
  generation: number;
  rows: number;
}

/** What pr-8 must still have after the race: the slot, its generation, its rows, no force event. */
async function expectPr8Keeps(pool: string, slug: string, pr8: Pr8 | undefined) {
  if (pr8 === undefined) throw new Error('the race did not happen: the force was not preceded by a read');
  const slot = (await client.list(pool)).resources.find((candidate) => candidate.slug === slug);
  expect(slot).toMatchObject({
    leaseState: 'leased',
    holder: 'pr-8',
    expired: false,
    generation: pr8.generation,
  });
  expect(pr8.rows).toBeGreaterThan(0);
  expect(slotContents(twin, own, slug).rows).toBe(pr8.rows);
  const events = await client.events(pool, slug);
  expect(events.filter((event) => ['force-released', 'evicted'].includes(event.event))).toEqual([]);
}

describe('compare-and-release: a force releases only the lease it read', () => {
  it("cleanup of pr-7 leaves pr-8's lease and rows alone when pr-8 took the slot after the read", async () => {
    const pr8 = await raceOnFind('race-cleanup', 'race-1');
    const logStart = twin.requests().length;
    const run = await runActionInProcess(
      {
        ...actionInputs('race-cleanup', { command: 'cleanup', 'pull-request': '7' }),
        config: OWN_CONFIG,
        'semaphore-url': proxy.url,
      },
      'real',
    );
    proxy.hooks.afterUpstream = undefined;

    await expectPr8Keeps('race-cleanup', 'race-1', pr8());
    expect(requestsTouching(twin, own, 'race-1', logStart)).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(run.report?.slots).toMatchObject([{ slug: 'race-1', outcome: 'skipped', previousHolder: 'pr-7' }]);
    expect(run.report?.slots[0]?.problem).toMatch(
      /^the slot changed since it was read: pr-7 no longer holds it at generation \d+ \(now pr-8, generation \d+\), so nothing was done$/,
    );
    const force = proxy.requests.find((request) => request.path.endsWith('/release'));
    expect(JSON.parse(force?.body ?? '{}')).toMatchObject({
      force: true,
      ifHolder: 'pr-7',
      ifLeaseVersion: 1,
    });
  });

  it('preview-gc release --force releases nothing when the slot changed hands after it was read', async () => {
    const pr8 = await raceOnFind('race-cli', 'race-cli-1');
    const released = await runCli(
      [
        'release',
        ...['--slot', 'race-cli-1', '--force', '--holder', 'pr-7', '--generation', '1', '--note', 'stuck'],
        ...['--yes', '--pool', 'race-cli', '--config', OWN_CONFIG],
      ],
      { SEMAPHORE_URL: proxy.url, SEMAPHORE_TOKEN },
    );
    proxy.hooks.afterUpstream = undefined;

    expect(released.code).toBe(1);
    expect(released.stdout).toMatch(
      /Nothing released: race-cli-1 changed after it was read \(pr-7 held it at generation 1, lease version 1; pr-8 holds it now, generation \d+, lease version 1\)/,
    );
    await expectPr8Keeps('race-cli', 'race-cli-1', pr8());
  });
});

const SHARED_MESSAGE =
  /slots 'preview-1' and 'staging-1' both map to the D1 database 'app-1-db' \(.*shared-n\.yml:6:13 resources\.d1\[0\]\.name 'app-\{n\}-db'\): erasing one would erase the other's data, so both are refused\. Fix: use \{slot\} instead of \{n\} in the template, or take one of the two slots out of the pool \(preview-gc slots remove staging-1\)/;

describe('one owner per resource name', () => {
  it('gc does not erase app-1-db for the expired staging-1 while pr-5 holds preview-1', async () => {
    await sharedPool('shared-gc', { holder: 'pr-4', expired: true });
    const rowsBefore = slotContents(twin, shared, 'preview-1').rows;
    const logStart = twin.requests().length;
    const run = await runActionInProcess(actionInputs('shared-gc', { command: 'gc' }), 'real');

    expect(rowsBefore).toBeGreaterThan(0);
    expect(slotContents(twin, shared, 'preview-1').rows).toBe(rowsBefore);
    expect(requestsTouching(twin, shared, 'preview-1', logStart)).toEqual([]);
    expect(run.exitCode).toBe(1);
    expect(run.report?.slots).toMatchObject([{ slug: 'staging-1', outcome: 'erase-failed' }]);
    expect(run.report?.slots[0]?.problem).toMatch(SHARED_MESSAGE);
    // Nothing was acquired: staging-1 still waits, under pr-4's expired lease.
    const staging = (await client.list('shared-gc')).resources.find((slot) => slot.slug === 'staging-1');
    expect(staging).toMatchObject({ holder: 'pr-4', expired: true });
    expect(run.summary).toContain('staging-1');
    expect(secretLeaks(run, [SEMAPHORE_TOKEN, CLOUDFLARE_TOKEN])).toEqual([]);
    expect(summaryEscapeProblems(run.summary)).toEqual([]);
  });

  it('cleanup gives the closed pull request its slot back, and erases nothing of app-1-db', async () => {
    await sharedPool('shared-cleanup', { holder: 'pr-4', expired: false });
    const rowsBefore = slotContents(twin, shared, 'preview-1').rows;
    const logStart = twin.requests().length;
    const run = await runActionInProcess(
      actionInputs('shared-cleanup', { command: 'cleanup', 'pull-request': '4' }),
      'real',
    );

    expect(slotContents(twin, shared, 'preview-1').rows).toBe(rowsBefore);
    expect(requestsTouching(twin, shared, 'preview-1', logStart)).toEqual([]);
    expect(run.report?.slots).toMatchObject([{ slug: 'staging-1', outcome: 'released' }]);
    expect(run.report?.slots[0]?.problem).toMatch(SHARED_MESSAGE);
    const slots = new Map((await client.list('shared-cleanup')).resources.map((slot) => [slot.slug, slot]));
    expect(slots.get('staging-1')).toMatchObject({ leaseState: 'available', dirty: true });
    expect(slots.get('preview-1')).toMatchObject({ holder: 'pr-5', expired: false });
  });

  describe('the CLI does not build such a pool', () => {
    const cli = (args: string[]) =>
      runCli([...args, '--config', SHARED_CONFIG, '--pool', 'shared-cli'], {
        SEMAPHORE_URL: semaphore.url,
        SEMAPHORE_TOKEN,
      });

    it('slots add refuses staging-1 next to preview-1, with the same message, and changes nothing', async () => {
      await client.add({ type: 'shared-cli', slug: 'preview-1' });
      const refused = await cli(['slots', 'add', 'staging-1', 'preview-2']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/nothing was changed/);
      expect(refused.stderr).toMatch(SHARED_MESSAGE);
      const slugs = (await client.list('shared-cli')).resources.map((slot) => slot.slug);
      expect(slugs).toEqual(['preview-1']);
    });

    it('slots sync --pattern without --prune refuses a second numbering of the same pool', async () => {
      const refused = await cli(['slots', 'sync', '--count', '2', '--pattern', 'pv-{n}']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/slots 'preview-1' and 'pv-1' both map to the D1 database 'app-1-db'/);
      expect(refused.stderr).not.toContain('pv-2');
      const slugs = (await client.list('shared-cli')).resources.map((slot) => slot.slug);
      expect(slugs).toEqual(['preview-1']);
    });

    it('slots sync with --prune may renumber: the old slot goes as the new one comes', async () => {
      const synced = await cli(['slots', 'sync', '--count', '1', '--pattern', 'pv-{n}', '--prune']);
      expect(synced.code, synced.stderr).toBe(0);
      const slugs = (await client.list('shared-cli')).resources.map((slot) => slot.slug);
      expect(slugs).toEqual(['pv-1']);
    });
  });
});

describe('SIGTERM at any point, the slot config included', () => {
  /** A valid slot config of `count` database templates (30,000 make about 900 KB). */
  const bigConfig = (count: number) =>
    `pool: reliability\nresources:\n  d1:\n${Array.from({ length: count }, (_, i) => `    - name: big${i}-{slot}\n`).join('')}`;

  /** A pool whose one slot a sweep would take (pr-3's lease expired), and a folder for its config. */
  async function stalePool(pool: string): Promise<string> {
    await client.add({ type: pool, slug: 'stale-1' });
    await client.acquireSpecific({ type: pool, slug: 'stale-1', holder: 'pr-3', leaseMs: 1_000 });
    await advanceClock(semaphore, pool, 2_000);
    return mkdtemp(join(tmpdir(), 'preview-gc-signal-'));
  }

  it('a signal while the config is read and validated stops the run before any call', async () => {
    const dir = await stalePool('signal-load');
    // A named pipe: reading the config waits until the test writes it, and the signal comes first.
    const fifo = join(dir, 'slots.yml');
    execFileSync('mkfifo', [fifo]);
    const settings = parseSettings({
      ...actionInputs('signal-load', { command: 'gc' }),
      config: fifo,
      'semaphore-url': proxy.url,
    });
    const controller = new AbortController();
    const proxied = proxy.requests.length;
    const running = executeSettings(settings, { signal: controller.signal, progress: () => {} });
    controller.abort('SIGTERM');
    await writeFile(fifo, bigConfig(100));
    const report = await running;
    await rm(dir, { recursive: true, force: true });

    expect(report).toMatchObject({ interruptedBy: 'SIGTERM', problems: [], slots: [] });
    expect(proxy.requests.slice(proxied)).toEqual([]);
  });

  it('the bundled action stops on SIGTERM during a 900 KB config: no acquire, a summary, exit 1', async () => {
    const dir = await stalePool('signal-big');
    const file = join(dir, 'big.yml');
    await writeFile(file, bigConfig(30_000));
    const proxied = proxy.requests.length;
    const result = await runAction(
      { ...actionInputs('signal-big', { command: 'gc' }), config: file, 'semaphore-url': proxy.url },
      {
        // The first line is written before the config is read: the signal comes while it is validated
        // (or, on a fast machine, just after), never after a slot was started.
        onSpawn: (child, output) => {
          const signalOnce = () => {
            if (!output.stdout().includes('preview-gc gc')) return;
            child.stdout?.off('data', signalOnce);
            child.kill('SIGTERM');
          };
          child.stdout?.on('data', signalOnce);
        },
      },
    );
    await rm(dir, { recursive: true, force: true });

    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('SIGTERM received');
    expect(result.summary).toContain('**Stopped by SIGTERM.**');
    const calls = proxy.requests.slice(proxied).map((request) => `${request.method} ${request.path}`);
    expect(calls.filter((call) => !call.startsWith('GET /api/resources?'))).toEqual([]);
    const stale = (await client.list('signal-big')).resources[0];
    expect(stale).toMatchObject({ holder: 'pr-3', expired: true });
  });
});

// The bundled action against the real semaphore (workerd) and the Cloudflare twin over loopback, on
// the nine-slot demo pool: three expired leases (one whose erase keeps failing, one re-leased between
// the listing and the acquire), two live, two available and dirty, two clean.
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_CONFIG_PATH,
  DEMO_POOL,
  demoActivity,
  demoPlan,
  demoSlugs,
  demoTwinSeed,
  seedDemoPool,
} from '../../demo/fixture.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import type { Slot } from '../../src/semaphore/protocol.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { type SemaphoreProxy, startSemaphoreProxy } from '../support/semaphore-proxy.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SEMAPHORE_TOKEN = 'sem-e2e-7f3a9c2b5d1e';
const CLOUDFLARE_TOKEN = 'cf-e2e-4b8d2f6a0c9e';

let semaphore: LocalSemaphore;
let proxy: SemaphoreProxy;
let twin: Twin;
let client: SemaphoreClient;

function inputs(extra: Record<string, string> = {}): Record<string, string> {
  return {
    command: 'gc',
    config: DEMO_CONFIG_PATH,
    'semaphore-url': proxy.url,
    'semaphore-token': SEMAPHORE_TOKEN,
    'cloudflare-api-token': CLOUDFLARE_TOKEN,
    'cloudflare-account-id': twin.accountId,
    'cloudflare-api-base-url': twin.baseUrl,
    'requests-per-second': '50',
    ...extra,
  };
}

async function pool(): Promise<Map<string, Slot>> {
  const listing = await client.list(DEMO_POOL);
  return new Map(listing.resources.map((slot) => [slot.slug, slot]));
}

/** The log a person sees: the runner consumes `::add-mask::` commands and never shows them. */
function visibleLog(stdout: string): string {
  return stdout
    .split('\n')
    .filter((line) => !line.startsWith('::add-mask::'))
    .join('\n');
}

function expectNoSecrets(run: ActionRunResult): void {
  for (const text of [visibleLog(run.stdout), run.stderr, run.summary, JSON.stringify(run.outputs)]) {
    expect(text).not.toContain(SEMAPHORE_TOKEN);
    expect(text).not.toContain(CLOUDFLARE_TOKEN);
  }
}

/** The account's resources and data, without the twin's own bookkeeping (rate limiter, faults). */
function resources(): string {
  const { d1, kv, r2, workers, durableObjectNamespaces, containers } = twin.state();
  return JSON.stringify({ d1, kv, r2, workers, durableObjectNamespaces, containers });
}

function d1Rows(name: string): Record<string, number | undefined> {
  const db = twin.state().d1.find((entry) => entry.name === name);
  return Object.fromEntries(
    (db?.objects ?? []).filter((o) => o.type === 'table').map((o) => [o.name, o.rows]),
  );
}

const kvKeys = (title: string) => twin.state().kv.find((ns) => ns.title === title)?.keyCount;
const worker = (name: string) => twin.state().workers.find((w) => w.name === name);

beforeAll(async () => {
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: SEMAPHORE_TOKEN }),
    startTwin({ token: CLOUDFLARE_TOKEN, seed: demoTwinSeed(demoSlugs(9), { orders: 10, kvKeys: 1_200 }) }),
  ]);
  proxy = await startSemaphoreProxy(semaphore.url);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
  await seedDemoPool(client, demoPlan());
  // What ran in the last hours: preview-2's objects wake themselves by alarm, about $5 an hour.
  const namespaceOf = (script: string, className: string) =>
    twin.state().durableObjectNamespaces.find((ns) => ns.script === script && ns.class === className)?.id ??
    '';
  for (const span of demoActivity(Date.now(), namespaceOf)) twin.account.analytics.add(span);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all([semaphore?.stop(), twin?.close()]);
});

describe('gc, end to end', () => {
  it('dry-run reports what it would reclaim and writes nothing anywhere', async () => {
    const twinBefore = resources();
    const poolBefore = await pool();
    twin.resetRequests();

    const run = await runAction(inputs({ 'dry-run': 'true' }));

    expect(run.exitCode).toBe(0);
    expect(run.summary).toContain('**Dry run.** Nothing was acquired, erased or released');
    expect(run.summary.split('\n')[0]).toContain('5 would be reclaimed');
    expect(JSON.parse(run.outputs.report ?? '{}').slots.map((s: { outcome: string }) => s.outcome)).toEqual(
      Array(5).fill('would-reclaim'),
    );
    expect(resources()).toBe(twinBefore);
    // Reads only: listings, D1 counts and the spend read.
    expect(
      twin
        .requests()
        .filter((r) => r.method !== 'GET' && !r.route.endsWith('/query') && r.route !== 'POST /graphql'),
    ).toEqual([]);
    expect(proxy.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    for (const [slug, slot] of await pool()) expect(slot.generation).toBe(poolBefore.get(slug)?.generation);
    expectNoSecrets(run);
  });

  it('reclaims expired and dirty slots, skips a slot re-leased after the listing, and fails on a broken erase', async () => {
    const before = await pool();
    // preview-3's database keeps answering 500: its erase fails, and its lease must still be released.
    const db3 = twin.state().d1.find((db) => db.name === 'shop-preview-3-db');
    twin.faults.add({ pathPattern: `/d1/database/${db3?.uuid}/`, status: 500 });
    // preview-6 is taken by a new pull request between the listing and the GC's acquire.
    let reLeased = false;
    proxy.requests.length = 0;
    proxy.hooks.afterUpstream = async (request) => {
      if (reLeased || !request.path.startsWith('/api/resources?')) return;
      reLeased = true;
      await client.acquireSpecific({
        type: DEMO_POOL,
        slug: 'preview-6',
        holder: 'pr-1700',
        leaseMs: 3_600_000,
      });
    };

    const run = await runAction(inputs());
    proxy.hooks.afterUpstream = undefined;
    twin.faults.clear();
    // `npm run example-summary` keeps docs/example-summary.md equal to what this run posts.
    if (process.env.PREVIEW_GC_EXAMPLE_SUMMARY)
      await writeFile(process.env.PREVIEW_GC_EXAMPLE_SUMMARY, run.summary);

    const report = JSON.parse(run.outputs.report ?? '{}');
    const outcomes = Object.fromEntries(
      report.slots.map((s: { slug: string; outcome: string }) => [s.slug, s.outcome]),
    );
    expect(outcomes).toEqual({
      'preview-1': 'reclaimed',
      'preview-3': 'erase-failed',
      'preview-4': 'reclaimed',
      'preview-6': 'skipped',
      'preview-8': 'reclaimed',
    });
    expect(run.exitCode).toBe(1);
    expect(run.outputs).toMatchObject({
      expired: '3',
      reclaimed: '3',
      skipped: '1',
      deferred: '0',
      failed: '1',
    });
    expect(run.stdout).toMatch(
      /^::error title=preview-gc%3A preview-3 erase-failed::d1 'shop-preview-3-db': .*HTTP 500/m,
    );
    // preview-2's live lease spends above the alert: one warning, and the lease is left alone.
    expect(run.stdout).toMatch(
      /^::warning title=preview-gc%3A preview-2 spends \$5\.\d\d\/h::preview-2, leased by pr-1601 \(https:\/\/github\.com\/acme\/shop\/pull\/1601\).*Durable Object class CartRoom of shop-preview-2, woken by alarms/m,
    );

    // The semaphore: nothing held by gc, clean only where the erase completed, live leases untouched.
    const after = await pool();
    expect([...after.values()].filter((slot) => slot.holder === 'gc')).toEqual([]);
    for (const slug of ['preview-1', 'preview-4', 'preview-8']) {
      expect(after.get(slug)).toMatchObject({ leaseState: 'available', dirty: false, lastHolder: 'gc' });
    }
    expect(after.get('preview-3')).toMatchObject({ leaseState: 'available', dirty: true, lastHolder: 'gc' });
    expect(after.get('preview-6')).toMatchObject({ leaseState: 'leased', holder: 'pr-1700' });
    for (const slug of ['preview-2', 'preview-7']) {
      expect(after.get(slug)).toMatchObject({
        holder: before.get(slug)?.holder,
        generation: before.get(slug)?.generation,
      });
    }

    // The twin: rows, keys and compute gone from reclaimed slots; rules in place; live slots untouched.
    expect(d1Rows('shop-preview-1-db')).toMatchObject({
      customers: 0,
      orders: 0,
      refunds: 0,
      d1_migrations: 1,
    });
    expect(kvKeys('shop-preview-1-cache')).toBe(0);
    expect(worker('shop-preview-1')).toMatchObject({
      tombstonedClasses: ['CartRoom', 'ChatAgent'],
      liveClasses: ['Sandbox'],
    });
    const sandboxes = twin.state().r2.find((bucket) => bucket.name === 'shop-preview-1-sandboxes');
    expect(sandboxes?.rules.map((rule) => rule.id).sort()).toEqual(
      ['Default Multipart Abort Rule', 'expire-sandbox-backups', 'team-archive-to-ia'].sort(),
    );
    expect(d1Rows('shop-preview-2-db').customers).toBe(10);
    expect(kvKeys('shop-preview-2-cache')).toBe(1_200);
    expect(worker('shop-preview-2')?.tombstonedClasses).toEqual([]);

    // The summary a person reads.
    expect(run.summary.split('\n')[0]).toBe(
      '## ❌ preview-gc gc on pool `preview-slot`: 3 of 5 reclaimed, 1 skipped, 1 failed',
    );
    expect(run.summary).toContain('[pr-1588](https://github.com/acme/shop/pull/1588)');
    expect(run.summary).toContain('re-leased since the listing');
    expect(run.summary).toContain('### What needs attention');
    expect(run.summary).toContain('### Pool after the run');
    expectNoSecrets(run);
  });

  it("heals the failed slot on the next sweep, then stays quiet: a listing and the live leases' hour, one Cloudflare call", async () => {
    // The runaway stopped: this sweep keeps the slots' quiet records, the next has nothing to keep.
    twin.account.analytics.clear();
    proxy.requests.length = 0;
    const healing = await runAction(inputs());
    expect(healing.exitCode).toBe(0);
    expect(healing.outputs).toMatchObject({ reclaimed: '1', failed: '0' });
    // One lease for one slot of five erase steps: the acquire fences the first, a renew each of the others.
    expect(proxy.requests.map((r) => r.path.replace(/\?.*/, ''))).toEqual([
      '/api/resources',
      '/api/resources/activity',
      '/api/resources/acquire-specific',
      ...Array(4).fill('/api/resources/renew'),
      '/api/resources/release',
      '/api/resources',
    ]);
    expect((await pool()).get('preview-3')).toMatchObject({ dirty: false });

    proxy.requests.length = 0;
    twin.resetRequests();
    const quiet = await runAction(inputs());
    expect(quiet.exitCode).toBe(0);
    expect(quiet.summary.split('\n')[0]).toBe(
      '## ✅ preview-gc gc on pool `preview-slot`: nothing to reclaim',
    );
    // The pool's live leases have their quiet hour kept all the same (their cost so far counts every
    // hour a read covered; an hour not kept would be missing): one write, nothing else.
    expect(proxy.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/resources?type=${DEMO_POOL}`,
      'POST /api/resources/activity',
    ]);
    expect(twin.requests().map((r) => r.route)).toEqual(['POST /graphql']);
    expectNoSecrets(quiet);
  });
});

describe('cleanup and status, end to end', () => {
  it('releases the slot of a closed pull request named by the event, and erases it', async () => {
    const run = await runAction(inputs({ command: 'cleanup' }), {
      event: { name: 'pull_request', payload: { action: 'closed', pull_request: { number: 1603 } } },
    });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.outputs.report ?? '{}').slots).toMatchObject([
      { slug: 'preview-7', outcome: 'reclaimed' },
    ]);
    expect((await pool()).get('preview-7')).toMatchObject({
      leaseState: 'available',
      holder: null,
      dirty: false,
    });
    expect(worker('shop-preview-7')?.tombstonedClasses).toEqual(['CartRoom', 'ChatAgent']);
    expectNoSecrets(run);
  });

  it('says so and succeeds when the pull request holds no slot', async () => {
    const run = await runAction(inputs({ command: 'cleanup', 'pull-request': '42' }));
    expect(run.exitCode).toBe(0);
    expect(run.summary.split('\n')[0]).toBe(
      '## ✅ preview-gc cleanup on pool `preview-slot`: pull request #42 holds no slot, nothing to do',
    );
  });

  it('shows the pool read-only, without Cloudflare credentials', async () => {
    proxy.requests.length = 0;
    const run = await runAction({
      command: 'status',
      pool: DEMO_POOL,
      'semaphore-url': proxy.url,
      'semaphore-token': SEMAPHORE_TOKEN,
    });
    expect(run.exitCode).toBe(0);
    expect(run.summary).toContain('### Pool');
    expect(run.summary).toContain('[pr-1601](https://github.com/acme/shop/pull/1601)');
    // Without a Cloudflare token, what each slot spends is gc's last record, kept by the semaphore.
    expect(run.summary).toContain('| Last hour | $/h |');
    expect(run.summary).toContain("gc's last read of each slot, kept by the semaphore");
    expect(proxy.requests.map((r) => r.method)).toEqual(['GET']);
  });
});

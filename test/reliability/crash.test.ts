// Crash recovery: the bundled action (dist/index.js, a child process as the runner starts it) is
// killed with SIGKILL right after its acquire, in the middle of an erase, and just before its
// release. Nothing runs in a killed process, so the slot stays held by gc: a sweep right after leaves
// it alone, and once the GC's own lease (gc-lease-minutes: 1) has run out by the semaphore's clock,
// the next sweep takes it over and finishes the erase. The clock is the semaphore's test clock: one
// minute passes in one call instead of sixty seconds of waiting. Also: SIGINT (what a cancelled
// workflow sends first) during a stuck erase releases the lease and writes the summary.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import type { Slot } from '../../src/semaphore/protocol.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { secretLeaks, summaryEscapeProblems } from '../support/run-checks.ts';
import { type SemaphoreProxy, startSemaphoreProxy } from '../support/semaphore-proxy.ts';
import { advanceClock } from '../support/test-clock.ts';
import { isErased, requestsTouching, slotContents, slotSeed } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SEMAPHORE_TOKEN = 'sem-crash-61d0b9f3a2';
const CLOUDFLARE_TOKEN = 'cf-crash-c47e2a8d15';
const CONFIG_PATH = fileURLToPath(new URL('./fixtures/slots.yml', import.meta.url));
const GC_LEASE_MINUTES = 10;
/** Less than the GC lease, as the action requires: a step still running at the deadline ends inside it. */
const DEADLINE_MINUTES = 5;
const CASES = ['after-acquire', 'mid-erase', 'before-release', 'sigint'] as const;
type Case = (typeof CASES)[number];
const slugOf = (crash: Case) => `crash-${crash}`;
const poolOf = (crash: Case) => `crash-${crash}`;

let semaphore: LocalSemaphore;
let proxy: SemaphoreProxy;
let twin: Twin;
let client: SemaphoreClient;
let config: SlotConfig;
let child: ChildProcess | undefined;

function inputs(crash: Case): Record<string, string> {
  return {
    command: 'gc',
    config: CONFIG_PATH,
    pool: poolOf(crash),
    'semaphore-url': proxy.url,
    'semaphore-token': SEMAPHORE_TOKEN,
    'cloudflare-api-token': CLOUDFLARE_TOKEN,
    'cloudflare-account-id': twin.accountId,
    'cloudflare-api-base-url': twin.baseUrl,
    'requests-per-second': '50',
    'gc-lease-minutes': String(GC_LEASE_MINUTES),
    'deadline-minutes': String(DEADLINE_MINUTES),
  };
}

async function run(crash: Case): Promise<ActionRunResult> {
  const result = await runAction(inputs(crash), {
    onSpawn: (spawned) => {
      child = spawned;
    },
  });
  child = undefined;
  expect(
    secretLeaks(
      { log: result.stdout, summary: result.summary, outputs: result.outputs, other: [result.stderr] },
      [SEMAPHORE_TOKEN, CLOUDFLARE_TOKEN],
    ),
  ).toEqual([]);
  expect(summaryEscapeProblems(result.summary)).toEqual([]);
  return result;
}

function kill(signal: NodeJS.Signals): void {
  if (child === undefined) throw new Error('no action is running');
  child.kill(signal);
}

async function slot(crash: Case): Promise<Slot & { now: number }> {
  const listing = await client.list(poolOf(crash));
  const found = listing.resources.find((entry) => entry.slug === slugOf(crash));
  if (found === undefined) throw new Error(`${slugOf(crash)} is missing`);
  return { ...found, now: listing.now };
}

beforeAll(async () => {
  config = await loadSlotConfig(CONFIG_PATH);
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: SEMAPHORE_TOKEN, testClock: true }),
    startTwin({ token: CLOUDFLARE_TOKEN, seed: slotSeed(config, CASES.map(slugOf)) }),
  ]);
  proxy = await startSemaphoreProxy(semaphore.url);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
  for (const crash of CASES) {
    // A pull request went away without cleaning up: its lease has expired.
    await client.add({ type: poolOf(crash), slug: slugOf(crash) });
    await client.acquireSpecific({
      type: poolOf(crash),
      slug: slugOf(crash),
      holder: 'pr-77',
      leaseMs: 1_000,
    });
    await advanceClock(semaphore, poolOf(crash), 2_000);
  }
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all([semaphore?.stop(), twin?.close()]);
});

const isRequest = (path: string, route: string) => path.startsWith(`/api/resources/${route}`);

/** Sets the proxy up to kill the action at the moment the case is about. */
function armKill(crash: Case): void {
  proxy.hooks.afterUpstream = async (request) => {
    const compute = requestsTouching(twin, config, slugOf(crash)).some((r) => r.method === 'PUT');
    if (crash === 'after-acquire' && isRequest(request.path, 'acquire-specific')) kill('SIGKILL');
    // The Worker is parked (the first step) and the lease renewed for the next: the erase is half done.
    if (crash === 'mid-erase' && isRequest(request.path, 'renew') && compute) kill('SIGKILL');
  };
  proxy.hooks.intervene = (request) => {
    if (crash !== 'before-release' || !isRequest(request.path, 'release')) return undefined;
    kill('SIGKILL');
    return { kind: 'hang' };
  };
}

function disarm(): void {
  proxy.hooks.afterUpstream = undefined;
  proxy.hooks.intervene = undefined;
}

describe('SIGKILL: the next sweep after the GC lease runs out reclaims the slot', () => {
  for (const crash of ['after-acquire', 'mid-erase', 'before-release'] as const) {
    it(`killed ${crash.replace('-', ' ')}`, async () => {
      armKill(crash);
      const killed = await run(crash);
      disarm();
      expect(killed.exitCode).toBeNull();
      expect(killed.summary).toBe('');
      // Where the erase stood when the process died.
      const contents = slotContents(twin, config, slugOf(crash));
      const stood = {
        'after-acquire': 'untouched',
        'mid-erase': 'parked, data left',
        'before-release': 'erased',
      };
      const seen = isErased(contents) ? 'erased' : contents.parked ? 'parked, data left' : 'untouched';
      expect(seen).toBe(stood[crash]);

      // Held by gc, by a lease that ends by itself within the GC lease.
      const held = await slot(crash);
      expect(held).toMatchObject({ leaseState: 'leased', holder: 'gc', expired: false });
      expect((held.leasedUntil ?? 0) - held.now).toBeLessThanOrEqual(GC_LEASE_MINUTES * 60_000);

      // A sweep now leaves the slot alone: the GC's own live lease is a live lease like any other.
      const logStart = twin.requests().length;
      const early = await run(crash);
      expect(early.exitCode).toBe(0);
      expect(early.summary.split('\n')[0]).toContain('nothing to reclaim');
      expect(requestsTouching(twin, config, slugOf(crash), logStart)).toEqual([]);
      expect(await slot(crash)).toMatchObject({ holder: 'gc', generation: held.generation });

      // One GC lease later by the semaphore's clock, the next sweep takes it over and erases it all.
      await advanceClock(semaphore, poolOf(crash), GC_LEASE_MINUTES * 60_000 + 1_000);
      const healing = await run(crash);
      expect(healing.exitCode).toBe(0);
      expect(JSON.parse(healing.outputs.report ?? '{}').slots).toMatchObject([
        { slug: slugOf(crash), outcome: 'reclaimed', previousHolder: 'gc', reason: 'expired' },
      ]);
      expect(await slot(crash)).toMatchObject({ leaseState: 'available', dirty: false, lastHolder: 'gc' });
      expect(isErased(slotContents(twin, config, slugOf(crash)))).toBe(true);
    });
  }
});

describe('SIGINT, as a cancelled workflow sends first', () => {
  it('stops the stuck step, releases the lease dirty, writes the summary; the next sweep reclaims the slot', async () => {
    // The D1 step hangs far longer than the test: only the signal ends it.
    twin.faults.add({ route: 'POST /accounts/:account/d1/database/:id/query', delayMs: 120_000 });
    proxy.hooks.afterUpstream = async (request) => {
      const compute = requestsTouching(twin, config, slugOf('sigint')).some((r) => r.method === 'PUT');
      if (isRequest(request.path, 'renew') && compute) setImmediate(() => kill('SIGINT'));
    };
    const stopped = await run('sigint');
    disarm();
    twin.faults.clear();

    expect(stopped.exitCode).toBe(1);
    expect(stopped.stdout).toContain('SIGINT received');
    expect(stopped.summary).toContain('**Stopped by SIGINT.**');
    expect(JSON.parse(stopped.outputs.report ?? '{}').slots).toMatchObject([
      { slug: slugOf('sigint'), outcome: 'interrupted' },
    ]);
    expect(await slot('sigint')).toMatchObject({ leaseState: 'available', dirty: true, lastHolder: 'gc' });

    const healing = await run('sigint');
    expect(healing.exitCode).toBe(0);
    expect(await slot('sigint')).toMatchObject({ leaseState: 'available', dirty: false });
    expect(isErased(slotContents(twin, config, slugOf('sigint')))).toBe(true);
  });
});

describe('the test clock', () => {
  it("moves one pool's clock only, forward only, and refuses a bad request", async () => {
    const pool = poolOf('after-acquire');
    const [before, other] = await Promise.all([client.list(pool), client.list(poolOf('sigint'))]);
    const now = await advanceClock(semaphore, pool, 3_600_000);
    expect(now - before.now).toBeGreaterThanOrEqual(3_600_000);
    const otherAfter = await client.list(poolOf('sigint'));
    expect(otherAfter.now - other.now).toBeLessThan(3_600_000);
    await expect(advanceClock(semaphore, pool, -1)).rejects.toThrow(
      /HTTP 400 .*advanceMs must be at least 1/,
    );
    await expect(advanceClock({ url: semaphore.url, token: 'wrong' }, pool, 1)).rejects.toThrow(/HTTP 401/);
  });
});

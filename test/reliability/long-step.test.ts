// Fences inside long steps: one erase step (a KV namespace of 25,000 keys on a slow twin, 26 listing
// and 3 delete requests) runs several times longer than the GC's lease. The real action (in-process,
// with a GC lease of 1.5 s) renews its lease inside the step, so a pull request polling for any free
// slot the whole time never gets this one, also with two such slots erased in parallel (each renews
// its own lease); and when a person forces the slot away mid-step, the erase stops before its next
// delete.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import { SemaphoreClient, SemaphoreError } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { actionInputs } from '../support/action-stack.ts';
import { runActionInProcess } from '../support/in-process-action.ts';
import { secretLeaks } from '../support/run-checks.ts';
import { slotNames, slotSeed } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SEMAPHORE_TOKEN = 'sem-long-step-5c2e91';
const CLOUDFLARE_TOKEN = 'cf-long-step-a7d403';
const CONFIG_PATH = fileURLToPath(new URL('./fixtures/small-slots.yml', import.meta.url));
const GC_LEASE_MS = 1_500;
const KEYS = 25_000;
/** Every KV request of the twin takes at least this long: the step lasts 29 × 150 ms ≥ 4.3 s. */
const KV_DELAY_MS = 150;

let semaphore: LocalSemaphore;
let client: SemaphoreClient;
let config: SlotConfig;

beforeAll(async () => {
  semaphore = await startLocalSemaphore({ token: SEMAPHORE_TOKEN });
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
  config = await loadSlotConfig(CONFIG_PATH);
}, 60_000);

afterAll(async () => {
  await semaphore?.stop();
});

/** A pool of slots, each released dirty by its last tenant, whose KV namespaces hold KEYS keys each. */
async function dirtySlots(pool: string, slugs: readonly string[]): Promise<Twin> {
  const seed = slotSeed(config, slugs);
  const kv = slugs.map((slug) => ({
    title: slotNames(config, slug).kv ?? '',
    generate: { prefix: 'session:', count: KEYS },
  }));
  const twin = await startTwin({ token: CLOUDFLARE_TOKEN, seed: { ...seed, kv } });
  twin.faults.add({ pathPattern: '/storage/kv/namespaces/[^/]+/', delayMs: KV_DELAY_MS });
  for (const slug of slugs) {
    await client.add({ type: pool, slug });
    const lease = await client.acquireSpecific({ type: pool, slug, holder: 'pr-41', leaseMs: 60_000 });
    if (lease === null) throw new Error('the test slot could not be leased');
    await client.release({ type: pool, slug, leaseId: lease.leaseId });
  }
  return twin;
}

function gcInputs(pool: string, twin: Twin, extra: Record<string, string> = {}): Record<string, string> {
  return actionInputs({ semaphore, twin }, pool, { command: 'gc', ...extra }, CONFIG_PATH);
}

const kvKeys = (twin: Twin, slug: string) =>
  twin.state().kv.find((namespace) => namespace.title === slotNames(config, slug).kv)?.keyCount;

/** A pull request asking for any free slot of the pool every 50 ms until `stop` resolves. */
async function pollForAnySlot(pool: string, stop: Promise<unknown>): Promise<{ attempts: number }> {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  let attempts = 0;
  while (!stopped) {
    attempts += 1;
    try {
      const lease = await client.acquire({ type: pool, holder: 'pr-77', leaseMs: 60_000 });
      await client.release({ type: pool, slug: lease.slug, leaseId: lease.leaseId });
    } catch (error) {
      if (!(error instanceof SemaphoreError && error.code === 'none_available')) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { attempts };
}

describe('a step that runs longer than the GC lease', () => {
  it.each([
    { what: 'one slot', slugs: ['long-1'] },
    { what: 'two slots in parallel, each renewing its own lease', slugs: ['long-3', 'long-4'] },
  ])(
    'keeps its lease by renewing inside the step ($what): a pull request polling all along never gets the slot',
    async ({ slugs }) => {
      const pool = `long-step-kept-${slugs.length}`;
      const twin = await dirtySlots(pool, slugs);
      try {
        const started = Date.now();
        // The pull request starts asking once gc holds every slot.
        let gcHolds: () => void = () => {};
        const acquired = new Promise<void>((resolve) => {
          gcHolds = resolve;
        });
        let acquires = 0;
        const inputs = gcInputs(pool, twin, { 'parallel-slots': String(slugs.length) });
        const run = runActionInProcess(inputs, {
          leaseMs: GC_LEASE_MS,
          ratePerSecond: 1_000,
          semaphoreFetch: (inner) => async (input, init) => {
            const response = await inner(input, init);
            if (String(input).endsWith('/acquire-specific') && ++acquires === slugs.length) gcHolds();
            return response;
          },
        });
        const [result, polled] = await Promise.all([run, acquired.then(() => pollForAnySlot(pool, run))]);
        const tookMs = Date.now() - started;

        expect(result.exitCode, result.log).toBe(0);
        expect(result.report?.slots.map((slot) => slot.outcome)).toEqual(slugs.map(() => 'reclaimed'));
        for (const slug of slugs) expect(kvKeys(twin, slug)).toBe(0);
        // The KV step alone outlasted the lease several times over…
        expect(tookMs).toBeGreaterThan(2 * GC_LEASE_MS);
        // …and no lease ever lapsed: a pull request asked all along, and never took over an expired
        // lease (gc's own releases went through, or the run would not say reclaimed).
        expect(polled.attempts).toBeGreaterThan(10);
        for (const slug of slugs) {
          const events = await client.events(pool, slug, 500);
          // A lease's renews are one event, counted (detail.renews from the second on).
          const renewals = events
            .filter((event) => event.event === 'renewed' && event.holder === 'gc')
            .reduce(
              (sum, event) => sum + (typeof event.detail.renews === 'number' ? event.detail.renews : 1),
              0,
            );
          expect(renewals, slug).toBeGreaterThanOrEqual(2);
          expect(events.filter((event) => event.event === 'took-expired')).toEqual([]);
        }
        expect(secretLeaks(result, [SEMAPHORE_TOKEN, CLOUDFLARE_TOKEN])).toEqual([]);
      } finally {
        await twin.close();
      }
    },
    60_000,
  );

  it('stops before its next delete once a person forced the slot away mid-step', async () => {
    const pool = 'long-step-forced';
    const slug = 'long-2';
    const twin = await dirtySlots(pool, [slug]);
    let deletesAfterForce = 0;
    let forced = false;
    try {
      const result = await runActionInProcess(gcInputs(pool, twin), {
        leaseMs: GC_LEASE_MS,
        ratePerSecond: 1_000,
        cloudflareFetch: (inner) => async (input, init) => {
          const url = new URL(input instanceof Request ? input.url : String(input));
          const isDelete = url.pathname.endsWith('/bulk/delete');
          if (isDelete && forced) deletesAfterForce += 1;
          const response = await inner(input, init);
          if (isDelete && !forced) {
            // The first 10,000 keys are gone; a person takes the slot before the step goes on.
            forced = true;
            await client.acquireSpecific({
              type: pool,
              slug,
              holder: 'manual-ana',
              leaseMs: 60_000,
              force: true,
            });
          }
          return response;
        },
      });

      expect(forced).toBe(true);
      expect(deletesAfterForce).toBe(0);
      expect(kvKeys(twin, slug)).toBe(KEYS - 10_000);
      expect(result.report?.slots).toEqual([
        expect.objectContaining({ slug, outcome: 'skipped', problem: expect.stringMatching(/forced away/) }),
      ]);
      expect(result.exitCode, result.log).toBe(0);
      const slot = await client.find(pool, slug);
      expect(slot).toMatchObject({ holder: 'manual-ana', leaseState: 'leased' });
    } finally {
      await twin.close();
    }
  }, 60_000);
});

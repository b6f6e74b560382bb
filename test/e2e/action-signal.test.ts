// SIGTERM mid-erase (a cancelled workflow): the action stops the step in flight in every slot it is
// erasing (three at once), releases each lease, writes the summary and exits non-zero, long before
// the stuck Cloudflare calls would have returned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, DEMO_POOL, demoSlugs, demoTwinSeed, seedDemoPool } from '../../demo/fixture.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { gcInputs, runAction } from '../support/action-run.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SEMAPHORE_TOKEN = 'sem-signal-0d4e8a1f';
const CLOUDFLARE_TOKEN = 'cf-signal-9b2c7e5a';
/** Far longer than the test may take: only an abort ends the stuck call in time. */
const STUCK_MS = 120_000;
const SLUGS = demoSlugs(3);

let semaphore: LocalSemaphore;
let twin: Twin;
let client: SemaphoreClient;

beforeAll(async () => {
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: SEMAPHORE_TOKEN }),
    startTwin({ token: CLOUDFLARE_TOKEN, seed: demoTwinSeed(SLUGS, { orders: 5, kvKeys: 50 }) }),
  ]);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
  await seedDemoPool(
    client,
    SLUGS.map((slug, index) => ({ slug, state: 'expired', holder: `pr-${1588 + index}` })),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close()]);
});

describe('SIGTERM during an erase', () => {
  it('with three slots in flight, stops the step of each, releases every lease dirty, writes the summary and fails the run', async () => {
    // The D1 step hangs: every slot is mid-erase when the signal comes, which it only is when all
    // three slots are erased at once (one after another, the first would hang alone).
    twin.faults.add({ route: 'POST /accounts/:account/d1/database/:id/query', delayMs: STUCK_MS });
    const uploads = () =>
      twin.requests().filter((r) => r.method === 'PUT' && r.route.includes('/workers/scripts/')).length;

    const inputs = { ...gcInputs(DEMO_CONFIG_PATH, semaphore, twin), 'parallel-slots': '3' };
    const run = await runAction(inputs, {
      onSpawn: (child) => {
        // The twin logs a request once answered: after the compute step's upload of all three
        // slots, each erase is renewing its lease or stuck in its D1 step.
        const poll = setInterval(() => {
          if (uploads() === SLUGS.length) {
            clearInterval(poll);
            child.kill('SIGTERM');
          }
        }, 20);
        child.on('close', () => clearInterval(poll));
      },
    });
    twin.faults.clear();

    expect(run.exitCode).not.toBe(0);
    expect(run.stdout).toContain('SIGTERM received');
    expect(run.summary).toContain('**Stopped by SIGTERM.**');
    expect(JSON.parse(run.outputs.report ?? '{}')).toMatchObject({
      interruptedBy: 'SIGTERM',
      // The listing's order, whichever slot stopped first.
      slots: SLUGS.map((slug) => ({ slug, outcome: 'interrupted' })),
    });
    for (const slug of SLUGS) {
      const slot = await client.find(DEMO_POOL, slug);
      expect(slot).toMatchObject({ leaseState: 'available', holder: null, dirty: true, lastHolder: 'gc' });
    }
  }, 30_000);
});

// SIGTERM mid-erase (a cancelled workflow): the action stops the step in flight, releases its lease,
// writes the summary and exits non-zero, long before the stuck Cloudflare call would have returned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, DEMO_POOL, demoTwinSeed, seedDemoPool } from '../../demo/fixture.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { gcInputs, runAction } from '../support/action-run.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SEMAPHORE_TOKEN = 'sem-signal-0d4e8a1f';
const CLOUDFLARE_TOKEN = 'cf-signal-9b2c7e5a';
/** Far longer than the test may take: only an abort ends the stuck call in time. */
const STUCK_MS = 120_000;

let semaphore: LocalSemaphore;
let twin: Twin;
let client: SemaphoreClient;

beforeAll(async () => {
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: SEMAPHORE_TOKEN }),
    startTwin({ token: CLOUDFLARE_TOKEN, seed: demoTwinSeed(['preview-1'], { orders: 5, kvKeys: 50 }) }),
  ]);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
  await seedDemoPool(client, [{ slug: 'preview-1', state: 'expired', holder: 'pr-1588' }]);
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close()]);
});

describe('SIGTERM during an erase', () => {
  it('stops the step, releases the lease dirty, writes the summary and fails the run', async () => {
    // The D1 step hangs: the erase is mid-slot when the signal comes.
    twin.faults.add({ route: 'POST /accounts/:account/d1/database/:id/query', delayMs: STUCK_MS });

    const run = await runAction(gcInputs(DEMO_CONFIG_PATH, semaphore, twin), {
      onSpawn: (child) => {
        // The twin logs a request once answered: after the compute step's upload, the erase is
        // renewing its lease or stuck in the D1 step.
        const poll = setInterval(() => {
          if (twin.requests().some((r) => r.method === 'PUT' && r.route.includes('/workers/scripts/'))) {
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
      slots: [{ slug: 'preview-1', outcome: 'interrupted' }],
    });
    const slot = await client.find(DEMO_POOL, 'preview-1');
    expect(slot).toMatchObject({ leaseState: 'available', holder: null, dirty: true, lastHolder: 'gc' });
  }, 30_000);
});

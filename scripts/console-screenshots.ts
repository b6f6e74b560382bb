// `node scripts/console-screenshots.ts`: the pictures in docs/console.md. Starts the local semaphore
// (holders linked to acme/shop), seeds the demo pool, gives one slot a history with operator notes and
// three slots the activity records gc writes (a runaway, a preview in use, a parked slot still
// running), and takes the pool page, a force-release's confirmation and that slot's page in headless
// Chromium.
import { fileURLToPath } from 'node:url';
import { DEMO_POOL, demoPlan, seedDemoPool } from '../demo/fixture.ts';
import { SemaphoreClient } from '../src/semaphore/client.ts';
import { startLocalSemaphore } from '../src/semaphore/local.ts';
import type { ActivityRecord } from '../src/semaphore/protocol.ts';
import { launchChromium } from './chromium.ts';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const HOUR = 3_600_000;

/** An activity record as gc writes it: `perBucket(i)` for each five-minute part of the last hour. */
function activity(
  usdPerHour: number,
  perBucket: (index: number) => {
    workerRequests: number;
    objectRequests: number;
    alarms: number;
    activeSeconds: number;
  },
  stillRunning = false,
): ActivityRecord {
  const until = Math.floor(Date.now() / 300_000) * 300_000;
  const buckets = Array.from({ length: 12 }, (_, index) => perBucket(index));
  const sum = (key: keyof (typeof buckets)[number]) =>
    buckets.reduce((total, bucket) => total + bucket[key], 0);
  const activeSeconds = sum('activeSeconds');
  return {
    from: until - HOUR,
    until,
    usdPerHour,
    figures: {
      workerRequests: sum('workerRequests'),
      workerSubrequests: 0,
      workerCpuMs: 0,
      objectRequests: sum('objectRequests'),
      alarms: sum('alarms'),
      websocketMessages: 0,
      activeSeconds,
      gbSeconds: activeSeconds * 0.128,
      rowsRead: 0,
      rowsWritten: 0,
      storedBytes: 0,
    },
    buckets: buckets.map((bucket) => ({
      requests: bucket.workerRequests + bucket.objectRequests,
      alarms: bucket.alarms,
      usd: usdPerHour / 12,
    })),
    stillRunning,
  };
}

const semaphore = await startLocalSemaphore({ repository: 'acme/shop' });
try {
  const client = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
  await seedDemoPool(client, demoPlan());
  // preview-7: pr-1603's deploy hangs; an operator frees the slot for pr-1610 and flags the other.
  const lease = await client.find(DEMO_POOL, 'preview-7');
  await client.release({
    type: DEMO_POOL,
    slug: 'preview-7',
    force: true,
    ifHolder: lease.holder ?? undefined,
    ifGeneration: lease.generation,
    note: 'deploy job of pr-1603 hung for 3 h; freed for pr-1610',
  });
  await client.acquireSpecific({
    type: DEMO_POOL,
    slug: 'preview-7',
    holder: 'pr-1610',
    leaseMs: 2 * 3_600_000,
  });
  await client.markDirty({ type: DEMO_POOL, slug: 'preview-9', note: 'someone ran a load test against it' });
  await client.recordActivity({
    type: DEMO_POOL,
    slots: [
      // pr-1601's objects wake themselves by alarm, more every few minutes.
      {
        slug: 'preview-2',
        activity: activity(5.35, (i) => ({
          workerRequests: 10,
          objectRequests: 14_000 + i * 2_200,
          alarms: 14_000 + i * 2_200,
          activeSeconds: 140_000 + i * 22_000,
        })),
      },
      // pr-1610 reviews its preview.
      {
        slug: 'preview-7',
        activity: activity(0.004, (i) => ({
          workerRequests: [0, 0, 40, 310, 520, 180, 90, 460, 610, 300, 120, 60][i] ?? 0,
          objectRequests: [0, 0, 4, 30, 52, 18, 9, 46, 61, 30, 12, 6][i] ?? 0,
          alarms: 0,
          activeSeconds: 120,
        })),
      },
      // Parked by the last sweep, its Durable Objects go on firing alarms.
      {
        slug: 'preview-5',
        activity: activity(
          0.0061,
          (i) => ({
            workerRequests: 0,
            objectRequests: i < 2 ? 0 : 36,
            alarms: i < 2 ? 0 : 36,
            activeSeconds: i < 2 ? 0 : 300,
          }),
          true,
        ),
      },
    ],
  });

  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1340, height: 640 }, locale: 'en-GB' });
    await page.goto(`${semaphore.url}/`);
    await page.locator('#token').fill(semaphore.token);
    await page.locator('#sign-in-form button[type=submit]').click();
    await page.locator('#sign-out').waitFor({ state: 'visible' });
    await page.goto(`${semaphore.url}/#/pools/${DEMO_POOL}`);
    await page.locator('table.slots tbody tr').nth(8).waitFor();
    await page.screenshot({ path: `${DOCS}console-pool.png`, fullPage: true });
    await page.locator('tr[data-slug="preview-2"]').getByRole('button', { name: 'Force-release…' }).click();
    await page.locator('#confirm-note').fill('pr-1601 was closed an hour ago; its cleanup job failed');
    await page.screenshot({ path: `${DOCS}console-confirm.png` });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.goto(`${semaphore.url}/#/pools/${DEMO_POOL}/preview-7`);
    await page.locator('table.history tbody tr', { hasText: 'force-released' }).waitFor();
    await page.screenshot({ path: `${DOCS}console-history.png`, fullPage: true });
  } finally {
    await browser.close();
  }
  process.stdout.write(`wrote console-pool.png, console-confirm.png and console-history.png in ${DOCS}\n`);
} finally {
  await semaphore.stop();
}

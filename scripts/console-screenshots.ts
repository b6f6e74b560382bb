// `node scripts/console-screenshots.ts`: the pictures in docs/console.md. Starts the local semaphore
// (holders linked to acme/shop), seeds the demo pool, gives one slot a history with operator notes,
// and takes the pool page, a force-release's confirmation and that slot's page in headless Chromium.
import { fileURLToPath } from 'node:url';
import { DEMO_POOL, demoPlan, seedDemoPool } from '../demo/fixture.ts';
import { SemaphoreClient } from '../src/semaphore/client.ts';
import { startLocalSemaphore } from '../src/semaphore/local.ts';
import { launchChromium } from './chromium.ts';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));

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

  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1180, height: 640 }, locale: 'en-GB' });
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

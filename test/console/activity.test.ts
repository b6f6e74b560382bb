// The console's pool table in headless Chromium against the real semaphore Worker: each slot's last
// hour as gc recorded it, drawn as twelve bars (alarms in their own colour), with the hour in words and
// what it costs, "still running" where parking did not stop it, and a record the page cannot read
// refused by name, never drawn.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumExecutable, launchChromium } from '../../scripts/chromium.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import type { ActivityRecord } from '../../src/semaphore/protocol.ts';
import { NO_ACTIVITY } from '../../src/spend/activity.ts';
import { goTo, openConsole, signIn } from './harness.ts';

const POOL = 'activity';
const HOUR = 3_600_000;
const BROWSER_TEST_MS = 60_000;

let semaphore: LocalSemaphore;
let client: SemaphoreClient;
let browser: Browser;

function record(fields: Partial<ActivityRecord> = {}): ActivityRecord {
  const until = Date.parse('2026-12-01T12:00:00Z');
  return {
    from: until - HOUR,
    until,
    usdPerHour: 0,
    figures: { ...NO_ACTIVITY },
    buckets: Array.from({ length: 12 }, () => ({ requests: 0, alarms: 0, usd: 0 })),
    stillRunning: false,
    ...fields,
  };
}

beforeAll(async () => {
  const [started] = await Promise.all([startLocalSemaphore(), chromiumExecutable()]);
  semaphore = started;
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
  for (const slug of ['preview-1', 'preview-2', 'preview-3']) await client.add({ type: POOL, slug });
  await client.acquireSpecific({ type: POOL, slug: 'preview-2', holder: 'pr-1601', leaseMs: 4 * HOUR });
  // preview-2 wakes itself by alarm, more and more; preview-1 still runs after its park.
  await client.recordActivity({
    type: POOL,
    slots: [
      {
        slug: 'preview-2',
        activity: record({
          usdPerHour: 5.04,
          figures: {
            ...record().figures,
            workerRequests: 120,
            objectRequests: 312_000,
            alarms: 312_000,
            activeSeconds: 3_120_000,
          },
          buckets: Array.from({ length: 12 }, (_, index) => ({
            requests: 10 + (index + 1) * 4_000,
            alarms: (index + 1) * 4_000,
            usd: 0.42,
          })),
        }),
      },
      {
        slug: 'preview-1',
        activity: record({
          usdPerHour: 0.0061,
          figures: { ...record().figures, objectRequests: 360, alarms: 360, activeSeconds: 3_600 },
          buckets: Array.from({ length: 12 }, (_, index) => ({
            requests: index < 2 ? 0 : 36,
            alarms: index < 2 ? 0 : 36,
            usd: 0.0006,
          })),
          stillRunning: true,
        }),
      },
    ],
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await semaphore?.stop();
});

/** The bars of a slot's chart, as the browser laid them out: class and height in the chart's units. */
function bars(page: import('playwright-core').Page, slug: string) {
  return page.$$eval(`tr[data-slug="${slug}"] svg.activity-chart rect`, (rects) =>
    rects.map((rect) => ({ kind: rect.getAttribute('class'), height: Number(rect.getAttribute('height')) })),
  );
}

describe("the pool table's last hour", () => {
  it(
    'draws each slot’s hour as twelve bars, alarms in their own colour, with its cost and "still running"',
    async () => {
      const opened = await openConsole(browser, semaphore.url);
      const { page } = opened;
      await signIn(page, semaphore.token);
      await goTo(page, `#/pools/${POOL}`);
      await page.locator('tr[data-slug="preview-3"]').waitFor();

      const headings = await page.$$eval('table.slots thead th', (cells) =>
        cells.map((cell) => cell.textContent),
      );
      expect(headings).toContain('Last hour');
      expect(headings).toContain('$/h');
      // What a person reads: the chart's title is a tooltip, not text in the cell.
      const rows = await page.$$eval('table.slots tbody tr', (trs) =>
        trs.map((tr) =>
          // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point (textContent has the tooltip)
          [...(tr as HTMLTableRowElement).cells].map((cell) => cell.innerText.trim()),
        ),
      );
      const column = (name: string) => headings.indexOf(name);
      const cells = Object.fromEntries(
        rows.map((row) => [row[0], [row[column('Last hour')], row[column('$/h')]]]),
      );
      // The table shows the charts; the hour in words is their tooltip, and the slot's page.
      expect(cells).toEqual({
        'preview-1': ['still running', '< $0.01/h'],
        'preview-2': ['', '$5.04/h'],
        'preview-3': ['—', '—'],
      });

      // preview-2: bars grow through the hour, the last one the full height; alarms almost all of each.
      const runaway = await bars(page, 'preview-2');
      expect(runaway).toHaveLength(24);
      const requests = runaway.filter((bar) => bar.kind === 'requests').map((bar) => bar.height);
      expect(requests.at(-1)).toBe(24);
      expect(requests).toEqual([...requests].sort((a, b) => a - b));
      const alarms = runaway.filter((bar) => bar.kind === 'alarms').map((bar) => bar.height);
      expect(alarms.at(-1)).toBeCloseTo(24 * (48_000 / 48_010), 3);
      // The colours come from the page's own stylesheet: alarms stand out from requests.
      const fills = await page.$$eval('tr[data-slug="preview-2"] svg.activity-chart rect', (rects) => [
        ...new Set(rects.map((rect) => getComputedStyle(rect).fill)),
      ]);
      expect(fills).toHaveLength(2);
      // preview-1: nothing for ten minutes after its park, then alarms.
      expect((await bars(page, 'preview-1')).slice(0, 4).map((bar) => bar.height)).toEqual([0, 0, 0, 0]);
      expect(await page.locator('tr[data-slug="preview-2"] svg.activity-chart title').textContent()).toMatch(
        /^The hour to .+: 120 requests, 312,000 alarms, 867 object-hours, \$5\.04\/h \(read .+ ago\)$/,
      );

      await goTo(page, `#/pools/${POOL}/preview-2`);
      const facts = page.locator('dl.facts');
      await facts.locator('svg.activity-chart').waitFor();
      expect(await facts.locator('dt').allInnerTexts()).toEqual(expect.arrayContaining(['Last hour', '$/h']));
      expect(await facts.textContent()).toContain('120 requests, 312,000 alarms, 867 object-hours');
      expect(await facts.textContent()).toContain('$5.04/h');
      expect(opened.errors).toEqual([]);
      await opened.close();
    },
    BROWSER_TEST_MS,
  );

  it(
    "shows a live lease's cost so far beside its $/h, and its park for spend",
    async () => {
      const pool = 'activity-cost';
      await client.add({ type: pool, slug: 'preview-7' });
      const lease = await client.acquireSpecific({
        type: pool,
        slug: 'preview-7',
        holder: 'pr-7',
        leaseMs: 4 * HOUR,
      });
      if (lease === null) throw new Error('preview-7 could not be leased');
      const start = (await client.find(pool, 'preview-7')).lastAcquiredAt ?? 0;
      const buckets = Array.from({ length: 12 }, () => ({ requests: 1, alarms: 0, usd: 0.5 }));
      for (const from of [start, start + HOUR])
        await client.recordActivity({
          type: pool,
          slots: [
            {
              slug: 'preview-7',
              activity: record({ from, until: from + HOUR, usdPerHour: 6, buckets }),
              ifGeneration: lease.generation,
              overPark: true,
            },
          ],
        });
      const opened = await openConsole(browser, semaphore.url);
      const { page } = opened;
      await signIn(page, semaphore.token);
      await goTo(page, `#/pools/${pool}`);
      const row = page.locator('tr[data-slug="preview-7"]');
      await row.waitFor();
      // The cell a person reads (the chart's tooltip is no text in it).
      const text = await row.locator('span.spend').textContent();
      expect(text).toContain('$6.00/h · lease: about $12.00 so far');
      expect(text).toContain('parked for spend');
      expect(opened.errors).toEqual([]);
      await opened.close();
    },
    BROWSER_TEST_MS,
  );

  it(
    'refuses an activity record it cannot read, naming the field, and draws nothing of it',
    async () => {
      const opened = await openConsole(browser, semaphore.url);
      const { page } = opened;
      await signIn(page, semaphore.token);
      const listing = await client.list(POOL);
      const broken = listing.resources.map((slot) =>
        slot.slug === 'preview-2'
          ? { ...slot, activity: { ...slot.activity, usdPerHour: '<img src=x onerror=alert(1)>' } }
          : slot,
      );
      await page.route(`${semaphore.url}/api/resources?type=${POOL}`, (route) =>
        route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({ now: listing.now, resources: broken }),
        }),
      );
      await goTo(page, `#/pools/${POOL}`);
      await page.locator('#status', { hasText: 'Could not refresh' }).waitFor();
      expect(await page.locator('#status').textContent()).toBe(
        'Could not refresh: the semaphore sent a bad answer: resources[1].activity.usdPerHour is not a number of at least 0. Trying again every 5 s.',
      );
      expect(await page.locator('table.slots svg').count()).toBe(0);
      expect(await page.locator('img').count()).toBe(0);
      await opened.close();
    },
    BROWSER_TEST_MS,
  );
});

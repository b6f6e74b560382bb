// The web console in headless Chromium against the real semaphore Worker in workerd, seeded with the
// demo pool: signing in, the pool table against /api, hostile holders, and the operator's actions.
// One browser and one semaphore for the file; every test opens its own browser context.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_POOL, demoPlan, seedDemoPool } from '../../demo/fixture.ts';
import { chromiumExecutable, launchChromium } from '../../scripts/chromium.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import type { Slot } from '../../src/semaphore/protocol.ts';
import { CONSOLE_CSP } from '../../src/semaphore/worker/console.ts';
import { storeLegacyHolders } from '../semaphore/legacy-store.ts';
import { type ConsolePage, goTo, openConsole, signIn, tableText } from './harness.ts';

const REPOSITORY = 'acme/shop';
const GC_TOKEN = 'console-gc-token-5e1f';
const READ_TOKEN = 'console-read-token-9a2c';
/** Browser start, the Worker's start and the demo pool's short leases running out. */
const SETUP_MS = 120_000;
const BROWSER_TEST_MS = 60_000;

let semaphore: LocalSemaphore;
let client: SemaphoreClient;
let browser: Browser;

beforeAll(async () => {
  // Inflate the packaged Chromium (first run only) while the Worker starts.
  const [started] = await Promise.all([
    startLocalSemaphore({
      repository: REPOSITORY,
      testClock: true,
      gcToken: GC_TOKEN,
      readToken: READ_TOKEN,
    }),
    chromiumExecutable(),
  ]);
  semaphore = started;
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
  [browser] = await Promise.all([launchChromium(), seedDemoPool(client, demoPlan())]);
}, SETUP_MS);

afterAll(async () => {
  await browser?.close();
  await semaphore?.stop();
});

/** A signed-in console page (its browser context closes with the browser); by default the admin's. */
async function signedIn(
  options: Parameters<typeof openConsole>[2] = {},
  on: LocalSemaphore = semaphore,
  token = on.token,
): Promise<ConsolePage> {
  const opened = await openConsole(browser, on.url, options);
  await signIn(opened.page, token);
  return opened;
}

/** Whatever a test did, the token never reached a URL or the page's console. */
function expectNoTokenLeak(opened: ConsolePage): void {
  for (const url of opened.requests) expect(url).not.toContain(semaphore.token);
  for (const message of opened.messages) expect(message).not.toContain(semaphore.token);
}

const rowOf = (opened: ConsolePage, slug: string) =>
  opened.page.locator(`table.slots tbody tr[data-slug="${slug}"]`);

describe('serving', () => {
  it('serves the page with its security headers and nothing about the pool to a signed-out visitor', async () => {
    const response = await fetch(`${semaphore.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assets).toEqual(expect.arrayContaining(['/console.css', '/js/main.js']));
    for (const text of [
      html,
      ...(await Promise.all(assets.map(async (path) => (await fetch(`${semaphore.url}${path}`)).text()))),
    ]) {
      for (const secret of [DEMO_POOL, 'preview-2', 'pr-1601', REPOSITORY, semaphore.token]) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it('keeps /api the protocol’s: the console config needs the token', async () => {
    const refused = await fetch(`${semaphore.url}/api/console/config`);
    expect(refused.status).toBe(401);
    const config = await fetch(`${semaphore.url}/api/console/config`, {
      headers: { authorization: `Bearer ${semaphore.token}` },
    });
    expect(await config.json()).toEqual({ repository: REPOSITORY });
  });
});

describe('signing in', () => {
  it(
    'says a wrong token was refused and keeps nothing; the right one opens the pools',
    async () => {
      const opened = await openConsole(browser, semaphore.url);
      const { page } = opened;
      expect(await page.locator('#view').textContent()).toBe('');
      await page.locator('#token').fill('not-the-token');
      await page.locator('#sign-in-form button[type=submit]').click();
      await page.locator('#sign-in-error', { hasText: 'refused this token' }).waitFor();
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expect(await page.locator('#sign-out').isVisible()).toBe(false);

      await signIn(page, semaphore.token);
      const pools = await client.list(DEMO_POOL);
      await page.locator('table tbody tr', { hasText: DEMO_POOL }).waitFor();
      const [row] = (await tableText(page, 'table')).filter((cells) => cells[0] === DEMO_POOL);
      const leased = pools.resources.filter((slot) => slot.holder !== null && !slot.expired).length;
      expect(row).toEqual([
        DEMO_POOL,
        String(pools.resources.length),
        String(leased + pools.resources.filter((slot) => slot.expired).length),
        String(pools.resources.filter((slot) => slot.expired).length),
        String(pools.resources.filter((slot) => slot.dirty).length),
      ]);
      // The token is kept for this tab only: sessionStorage, no cookie, no localStorage, no URL.
      expect(
        await page.evaluate(() => [localStorage.length, document.cookie, sessionStorage.length]),
      ).toEqual([0, '', 1]);
      expect(page.url()).not.toContain(semaphore.token);

      await page.reload();
      await page.locator('#sign-out').waitFor({ state: 'visible' });
      await page.locator('#sign-out').click();
      await page.locator('#sign-in').waitFor({ state: 'visible' });
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expectNoTokenLeak(opened);
    },
    BROWSER_TEST_MS,
  );
});

/** The cells the pool table shows for a slot as /api has it: the lease end as its countdown's pattern. */
function expectedCells(slot: Slot): unknown[] {
  const state = slot.holder === null ? 'free' : slot.expired ? 'expired' : 'leased';
  const leaseEnd =
    slot.leasedUntil === null
      ? '—'
      : expect.stringMatching(slot.expired ? /expired \S+ ago$/ : /in \dh \d+m$/);
  return [
    slot.slug,
    state,
    slot.holder ?? '—',
    leaseEnd,
    slot.dirty ? 'dirty' : 'clean',
    String(slot.generation),
    slot.lastHolder ?? '—',
    // No activity record yet: gc has not read the demo pool's spend.
    '—',
    '—',
    expect.any(String),
  ];
}

describe('the pool table', () => {
  it(
    'shows every slot as /api does, holders linked to their pull requests, countdowns running',
    async () => {
      const opened = await signedIn();
      const { page } = opened;
      await goTo(page, `#/pools/${DEMO_POOL}`);
      const listing = await client.list(DEMO_POOL);
      await page
        .locator('table.slots tbody tr')
        .nth(listing.resources.length - 1)
        .waitFor();
      expect(await tableText(page, 'table.slots')).toEqual(listing.resources.map(expectedCells));
      const live = listing.resources.find((slot) => slot.holder === 'pr-1601');
      const time = rowOf(opened, live?.slug ?? '').locator('time');
      expect(await time.getAttribute('datetime')).toBe(new Date(live?.leasedUntil ?? 0).toISOString());
      expect(
        await rowOf(opened, live?.slug ?? '')
          .locator('a.holder')
          .getAttribute('href'),
      ).toBe(`https://github.com/${REPOSITORY}/pull/1601`);

      // An expired lease's "expired … ago" moves every second without a reload.
      const expired = listing.resources.find((slot) => slot.expired);
      const countdown = rowOf(opened, expired?.slug ?? '').locator('.countdown');
      const before = await countdown.textContent();
      await page.waitForFunction(
        ([selector, text]) => document.querySelector(selector)?.textContent !== text,
        [`table.slots tr[data-slug="${expired?.slug}"] .countdown`, before] as const,
      );
      expectNoTokenLeak(opened);
    },
    BROWSER_TEST_MS,
  );

  it(
    'counts down by the semaphore’s clock, not the computer’s',
    async () => {
      const pool = 'clock-pool';
      await client.add({ type: pool, slug: 'slot-1' });
      await client.acquireSpecific({ type: pool, slug: 'slot-1', holder: 'pr-7', leaseMs: 3 * 3_600_000 });
      const { page } = await signedIn();
      await goTo(page, `#/pools/${pool}`);
      await page.locator('.countdown', { hasText: /^in 2h 59m$/ }).waitFor();
      // The pool's clock jumps an hour ahead of this computer's: the next refresh shows 1h 59m left.
      await fetch(`${semaphore.url}/api/test-clock/advance`, {
        method: 'POST',
        headers: { authorization: `Bearer ${semaphore.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: pool, advanceMs: 3_600_000 }),
      });
      await page.locator('.countdown', { hasText: /^in 1h 59m$/ }).waitFor();
    },
    BROWSER_TEST_MS,
  );
});

describe('the pool’s queue', () => {
  it(
    'shows who waits for a slot, first first and since when, live as they join and leave',
    async () => {
      const pool = 'queue-pool';
      await client.add({ type: pool, slug: 'slot-1' });
      await client.acquire({ type: pool, holder: 'pr-1', leaseMs: 3_600_000 });
      const opened = await signedIn();
      const { page } = opened;
      await goTo(page, `#/pools/${pool}`);
      await page.locator('.queue', { hasText: 'Nobody is waiting for a slot.' }).waitFor();
      for (const holder of ['pr-1610', 'pr-1611'])
        await client.acquire({ type: pool, holder, leaseMs: 3_600_000, wait: true }).catch(() => null);
      // The page's own refresh brings them in, no reload.
      await page.locator('.queue', { hasText: '2 waiting for a slot, first come, first served:' }).waitFor();
      const items = page.locator('.queue li');
      expect(await items.evaluateAll((lis) => lis.map((li) => (li as HTMLLIElement).value))).toEqual([1, 2]);
      expect(await items.nth(0).locator('a.holder').textContent()).toBe('pr-1610');
      expect(await items.nth(0).locator('a.holder').getAttribute('href')).toBe(
        `https://github.com/${REPOSITORY}/pull/1610`,
      );
      expect(await items.nth(1).textContent()).toMatch(/^pr-1611 since .+ \(\d+s ago\)$/);
      await client.leaveQueue({ type: pool, holder: 'pr-1610' });
      await page.locator('.queue', { hasText: '1 waiting for a slot' }).waitFor();
      expect(await items.nth(0).textContent()).toMatch(/^pr-1611 since /);
      expectNoTokenLeak(opened);
    },
    BROWSER_TEST_MS,
  );
});

/** A holder as the page shows one outside the rule: every other character spelt out, then the flag. */
function flagged(holder: string): string {
  const spelt = holder.replace(
    /[^A-Za-z0-9_.:@/-]/gu,
    (char) => `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
  return `${spelt}⚠ not a holder name`;
}

describe('hostile values', () => {
  const pool = 'hostile-pool';
  // Markup with a handler, Markdown, a right-to-left override that would show "evil" reversed, a
  // Hangul filler and an interlinear mark (both draw as nothing). Today's semaphore refuses such a
  // holder; an older one stored it, and the page must still show it as the data it is.
  const holder =
    '<img src=x onerror="window.pwned=1">**bold** \u202Elive\u202C\u3164\uFFF9 <script>window.pwned=2</script>';
  const note = '<b onmouseover="window.pwned=3">ops</b> _note_';
  // Holders that look like others: a Cyrillic р, a trailing no-break space, an ideographic space, the
  // table's own "no holder" dash, and a sentence that reads like the dialog's fixed text.
  const lookAlikes: Record<string, string> = {
    'legacy-cyrillic': '\u0440r-1601',
    'legacy-nbsp': 'pr-1601\u00a0',
    'legacy-ideographic': 'pr-1601\u3000',
    'legacy-dash': '\u2014',
    'legacy-sentence': "This ends gc's expired lease on preview-9 now. Nothing else is touched;",
  };
  let legacy: LocalSemaphore;
  let persistDir: string;

  beforeAll(async () => {
    persistDir = await mkdtemp(join(tmpdir(), 'console-legacy-'));
    const seeding = await startLocalSemaphore({ persistDir });
    const seeder = new SemaphoreClient({ baseUrl: seeding.url, token: seeding.token });
    await seeder.add({ type: pool, slug: 'slot-1' });
    await seeder.add({ type: pool, slug: 'slot-2' });
    await seeder.acquireSpecific({
      type: pool,
      slug: 'slot-1',
      holder: 'legacy-hostile',
      leaseMs: 3_600_000,
    });
    // slot-2's last holder and its history carry the same holder, and a note of the same kind.
    await seeder.acquireSpecific({
      type: pool,
      slug: 'slot-2',
      holder: 'legacy-hostile',
      leaseMs: 3_600_000,
    });
    await seeder.release({ type: pool, slug: 'slot-2', force: true, note });
    const lookAlikePool = 'look-alikes';
    for (const [index, valid] of ['pr-1601', ...Object.keys(lookAlikes)].entries()) {
      await seeder.add({ type: lookAlikePool, slug: `slot-${index}` });
      await seeder.acquireSpecific({
        type: lookAlikePool,
        slug: `slot-${index}`,
        holder: valid,
        leaseMs: 3_600_000,
      });
    }
    await seeder.add({ type: lookAlikePool, slug: 'slot-free' });
    await seeding.stop();
    await storeLegacyHolders(persistDir, { 'legacy-hostile': holder, ...lookAlikes });
    legacy = await startLocalSemaphore({ persistDir });
  }, SETUP_MS);

  afterAll(async () => {
    await legacy?.stop();
    await rm(persistDir, { recursive: true, force: true });
  });

  /** Nothing the server sent became an element, and nothing of it ran. */
  async function expectInert(opened: ConsolePage): Promise<void> {
    const { page } = opened;
    expect(await page.$$('#view img, #view script, #view b, #view strong, #view em')).toEqual([]);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(opened.errors).toEqual([]);
  }

  const legacyRow = (opened: ConsolePage, slug: string) =>
    opened.page.locator(`table.slots tbody tr[data-slug="${slug}"]`);

  it(
    'renders holders and notes as text, runs nothing, and the CSP reports no violation',
    async () => {
      const opened = await signedIn({ reportCsp: true }, legacy);
      const { page } = opened;
      await goTo(page, `#/pools/${pool}`);
      await legacyRow(opened, 'slot-2').waitFor();
      expect(await legacyRow(opened, 'slot-1').locator('td').nth(2).textContent()).toBe(flagged(holder));
      expect(await legacyRow(opened, 'slot-2').locator('td').nth(6).textContent()).toBe(flagged(holder));
      // The override stays inside its box: the text is isolated (<bdi>) in the holder's own element.
      expect(await legacyRow(opened, 'slot-1').locator('td .holder.flagged bdi').count()).toBe(1);
      await expectInert(opened);

      await goTo(page, `#/pools/${pool}/slot-2`);
      await page.locator('table.history tbody tr', { hasText: 'force-released' }).waitFor();
      const history = await tableText(page, 'table.history');
      expect(history[0]?.[1]).toBe('force-released');
      expect(history[0]?.[2]).toBe(flagged(holder));
      expect(history[0]?.[4]).toContain(note);
      await expectInert(opened);

      const violations = opened.messages.filter((message) =>
        /Content Security Policy|Trusted Type/i.test(message),
      );
      expect(violations).toEqual([]);
      expect(opened.cspReports).toEqual([]);

      // The report channel works: markup forced in through a script the page does not have is refused
      // (Trusted Types) and reported, so the empty list above means no violation, not no reporting.
      const forced = await page.evaluate(() => {
        try {
          document.body.insertAdjacentHTML('beforeend', '<b>forced</b>');
          return 'parsed';
        } catch (error) {
          return error instanceof TypeError ? 'refused' : String(error);
        }
      });
      expect(forced).toBe('refused');
      await expect
        .poll(() => JSON.stringify(opened.cspReports), { timeout: 10_000 })
        .toContain('require-trusted-types-for');
    },
    BROWSER_TEST_MS,
  );

  it(
    'renders them as text even without the CSP: the page never parses data as markup',
    async () => {
      const opened = await signedIn({ withoutCsp: true }, legacy);
      await goTo(opened.page, `#/pools/${pool}`);
      await legacyRow(opened, 'slot-2').waitFor();
      expect(await legacyRow(opened, 'slot-1').locator('td').nth(2).textContent()).toBe(flagged(holder));
      await goTo(opened.page, `#/pools/${pool}/slot-2`);
      await opened.page.locator('table.history tbody tr', { hasText: 'force-released' }).waitFor();
      await expectInert(opened);
    },
    BROWSER_TEST_MS,
  );

  // Found by a hostile read: these rendered exactly like pr-1601, or like "no holder", and a holder
  // could write a sentence into the force-release dialog in the same font as its fixed text.
  it(
    'shows a stored holder that breaks the rule flagged and spelt out, never rewritten, and in its own box in the dialog',
    async () => {
      const opened = await signedIn({}, legacy);
      const { page } = opened;
      await goTo(page, '#/pools/look-alikes');
      await legacyRow(opened, 'slot-free').waitFor();
      const holders = (await tableText(page, 'table.slots')).map((cells) => cells[2]);
      expect(holders).toEqual(['pr-1601', ...Object.values(lookAlikes).map(flagged), '—']);
      expect(new Set(holders).size).toBe(holders.length);
      expect(await legacyRow(opened, 'slot-0').locator('.holder.flagged').count()).toBe(0);
      // The semaphore still has each holder as it was stored.
      const stored = await new SemaphoreClient({ baseUrl: legacy.url, token: legacy.token }).list(
        'look-alikes',
      );
      expect(stored.resources.map((slot) => slot.holder)).toEqual([
        'pr-1601',
        ...Object.values(lookAlikes),
        null,
      ]);

      await legacyRow(opened, 'slot-5').getByRole('button', { name: 'Force-release…' }).click();
      const dialog = page.locator('dialog#confirm[open]');
      await dialog.waitFor();
      const sentence = lookAlikes['legacy-sentence'] ?? '';
      expect(await dialog.locator('dl.facts dd .holder.flagged').textContent()).toBe(flagged(sentence));
      for (const text of await dialog.locator('p.consequence').allTextContents()) {
        expect(text).not.toContain('Nothing else is touched');
        expect(text).not.toContain('U+0020');
      }
      expect(await dialog.locator('h2').textContent()).toBe('Force-release this lease?');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expectInert(opened);
    },
    BROWSER_TEST_MS,
  );

  it(
    'spells out hidden characters in the erase failure’s tooltip, as the history does',
    async () => {
      const failurePool = freshHostilePool();
      await client.add({ type: failurePool, slug: 'slot-1' });
      const lease = await client.acquireSpecific({
        type: failurePool,
        slug: 'slot-1',
        holder: 'gc',
        leaseMs: 60_000,
      });
      await client.release({
        type: failurePool,
        slug: 'slot-1',
        leaseId: lease?.leaseId ?? '',
        eraseFailure: { step: 'd1 \u202Eevil\u202C', message: 'zero\u200bwidth\u2066isolate' },
      });
      const opened = await signedIn();
      await goTo(opened.page, `#/pools/${failurePool}`);
      const badge = rowOf(opened, 'slot-1').locator('.badge.failed');
      await badge.waitFor();
      expect(await badge.getAttribute('title')).toBe(
        'd1 ⟨U+202E⟩evil⟨U+202C⟩: zero⟨U+200B⟩width⟨U+2066⟩isolate',
      );
    },
    BROWSER_TEST_MS,
  );

  it(
    'says which field of a broken answer is wrong, without showing its value',
    async () => {
      const opened = await signedIn();
      const { page } = opened;
      await page.route(`${semaphore.url}/api/resources?type=${pool}`, (route) =>
        route.fulfill({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({
            now: 1,
            resources: [{ type: pool, slug: '<img src=x onerror=alert(1)>', leaseState: 'stolen' }],
          }),
        }),
      );
      await goTo(page, `#/pools/${pool}`);
      await page.locator('#status', { hasText: 'Could not refresh' }).waitFor();
      expect(await page.locator('#status').textContent()).toBe(
        "Could not refresh: the semaphore sent a bad answer: resources[0].leaseState is not 'available' or 'leased'. Trying again every 5 s.",
      );
      expect(await page.locator('table.slots tbody tr').count()).toBe(0);
      await expectInert(opened);
    },
    BROWSER_TEST_MS,
  );

  it(
    'cannot be framed by another page',
    async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const messages: string[] = [];
      page.on('console', (message) => messages.push(message.text()));
      await page.setContent(`<iframe src="${semaphore.url}/"></iframe>`);
      await expect.poll(() => messages.join('\n')).toContain("frame-ancestors 'none'");
      expect(await page.frames()[1]?.$('#sign-in-form')).toBeFalsy();
      await context.close();
    },
    BROWSER_TEST_MS,
  );
});

let hostilePools = 0;
/** A pool of its own for a test on the file's semaphore. */
function freshHostilePool(): string {
  hostilePools += 1;
  return `tooltip-${hostilePools}`;
}

describe('operator actions', () => {
  /** Opens an action's confirmation from a slot's row and checks it names what will happen. */
  async function openAction(opened: ConsolePage, slug: string, action: string, names: string[]) {
    await rowOf(opened, slug).getByRole('button', { name: action }).click();
    const dialog = opened.page.locator('dialog#confirm[open]');
    await dialog.waitFor();
    const consequence = await dialog.textContent();
    for (const name of names) expect(consequence).toContain(name);
    return dialog;
  }

  async function confirm(dialog: ReturnType<ConsolePage['page']['locator']>, note: string, button: string) {
    await dialog.locator('#confirm-note').fill(note);
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  async function openAddSlot(opened: ConsolePage) {
    await opened.page.getByRole('button', { name: 'Add slot…' }).click();
    const dialog = opened.page.locator('dialog#confirm[open]');
    await dialog.waitFor();
    return dialog;
  }

  async function demoPoolPage(): Promise<ConsolePage> {
    const opened = await signedIn();
    await goTo(opened.page, `#/pools/${DEMO_POOL}`);
    await opened.page.locator('table.slots tbody tr').first().waitFor();
    return opened;
  }

  it(
    'force-releases a live lease from the page: the slot is free and the event carries the note',
    async () => {
      const before = await client.find(DEMO_POOL, 'preview-2');
      expect(before.holder).toBe('pr-1601');
      const opened = await demoPoolPage();
      const dialog = await openAction(opened, 'preview-2', 'Force-release…', [
        'pr-1601',
        'preview-2',
        'live',
      ]);
      // The holder is its own element among the facts, never a word of the dialog's sentences.
      expect(await dialog.locator('dl.facts dd .holder').textContent()).toBe('pr-1601');
      expect((await dialog.locator('p.consequence').allTextContents()).join(' ')).not.toContain('pr-1601');
      await confirm(dialog, 'deploy job stuck; freed for pr-1610', 'Force-release');
      await opened.page.locator('#status', { hasText: 'Released preview-2 from pr-1601' }).waitFor();

      const after = await client.find(DEMO_POOL, 'preview-2');
      expect(after).toMatchObject({
        leaseState: 'available',
        holder: null,
        dirty: true,
        lastHolder: 'pr-1601',
      });
      const [event] = await client.events(DEMO_POOL, 'preview-2', 1);
      expect(event).toMatchObject({
        event: 'force-released',
        holder: 'pr-1601',
        generation: before.generation,
        detail: { note: 'deploy job stuck; freed for pr-1610' },
      });
      // The table shows it without a reload.
      await rowOf(opened, 'preview-2').locator('.badge.free').waitFor();
      expectNoTokenLeak(opened);
    },
    BROWSER_TEST_MS,
  );

  it(
    'refuses the release when the holder changed after the page showed it',
    async () => {
      const shown = await client.find(DEMO_POOL, 'preview-7');
      expect(shown.holder).toBe('pr-1603');
      const opened = await demoPoolPage();
      const dialog = await openAction(opened, 'preview-7', 'Force-release…', ['pr-1603', 'preview-7']);
      // Meanwhile pr-1603's lease is taken over by pr-1700 (a newer generation).
      const takeover = await client.acquireSpecific({
        type: DEMO_POOL,
        slug: 'preview-7',
        holder: 'pr-1700',
        leaseMs: 3_600_000,
        force: true,
      });
      expect(takeover?.generation).toBe(shown.generation + 1);
      await confirm(dialog, 'release the stuck pr-1603', 'Force-release');
      await opened.page.locator('#status', { hasText: 'Nothing was released' }).waitFor();
      expect(await opened.page.locator('#status').textContent()).toBe(
        `Nothing was released: preview-7 is now held by pr-1700 (generation ${shown.generation + 1}, lease version 1), ` +
          `not by pr-1603 (generation ${shown.generation}, lease version ${shown.leaseVersion}) as the page showed. The page now shows the current state.`,
      );
      expect(await client.find(DEMO_POOL, 'preview-7')).toMatchObject({
        holder: 'pr-1700',
        leaseState: 'leased',
      });
      const [latest] = await client.events(DEMO_POOL, 'preview-7', 1);
      expect(latest?.holder).toBe('pr-1700');
      await rowOf(opened, 'preview-7').locator('td', { hasText: 'pr-1700' }).waitFor();
    },
    BROWSER_TEST_MS,
  );

  it(
    'marks a slot dirty, adds one and removes it, each with the operator’s note in its event',
    async () => {
      const opened = await demoPoolPage();
      const { page } = opened;
      expect((await client.find(DEMO_POOL, 'preview-5')).dirty).toBe(false);
      const markDialog = await openAction(opened, 'preview-5', 'Mark dirty…', ['preview-5', 'dirty']);
      await confirm(markDialog, 'saw stray rows in its D1', 'Mark dirty');
      await page.locator('#status', { hasText: 'Marked preview-5 dirty' }).waitFor();
      expect((await client.find(DEMO_POOL, 'preview-5')).dirty).toBe(true);
      expect((await client.events(DEMO_POOL, 'preview-5', 1))[0]).toMatchObject({
        event: 'marked-dirty',
        detail: { note: 'saw stray rows in its D1' },
      });

      const addDialog = await openAddSlot(opened);
      await addDialog.locator('#add-slug').fill('preview-10');
      await addDialog.locator('#add-dirty').check();
      await confirm(addDialog, 'tenth slot for the release week', 'Add slot');
      await rowOf(opened, 'preview-10').waitFor();
      expect(await client.find(DEMO_POOL, 'preview-10')).toMatchObject({
        leaseState: 'available',
        dirty: true,
      });
      expect((await client.events(DEMO_POOL, 'preview-10', 1))[0]).toMatchObject({
        event: 'added',
        detail: { note: 'tenth slot for the release week' },
      });

      // It was added dirty: removing it means leaving its data behind, which the operator must say.
      const removeDialog = await openAction(opened, 'preview-10', 'Remove…', ['preview-10', 'dirty']);
      await removeDialog.locator('#confirm-note').fill('release week is over');
      await removeDialog.getByRole('button', { name: 'Remove slot', exact: true }).click();
      await removeDialog.locator('.error', { hasText: 'The slot is dirty: tick the box' }).waitFor();
      await removeDialog.locator('#remove-dirty').check();
      await confirm(removeDialog, 'release week is over', 'Remove slot');
      await rowOf(opened, 'preview-10').waitFor({ state: 'detached' });
      await expect(client.find(DEMO_POOL, 'preview-10')).rejects.toMatchObject({ code: 'not_found' });
      // The history outlives the slot: added back, it shows the removal and its note.
      await client.add({ type: DEMO_POOL, slug: 'preview-10' });
      const [, removed] = await client.events(DEMO_POOL, 'preview-10', 2);
      expect(removed).toMatchObject({ event: 'deleted', detail: { note: 'release week is over' } });
      expectNoTokenLeak(opened);
    },
    BROWSER_TEST_MS,
  );

  // Found by a hostile read: the page showed a slot free and clean; while the dialog was open a pull
  // request took it and its lease lapsed; Remove still succeeded, and the slot left the pool dirty.
  it(
    'removes nothing when the slot was leased while the dialog was open, even once that lease lapsed',
    async () => {
      await client.add({ type: DEMO_POOL, slug: 'preview-11' });
      const opened = await demoPoolPage();
      await rowOf(opened, 'preview-11').waitFor();
      const dialog = await openAction(opened, 'preview-11', 'Remove…', ['preview-11', 'clean']);
      const lease = await client.acquireSpecific({
        type: DEMO_POOL,
        slug: 'preview-11',
        holder: 'pr-1800',
        leaseMs: 1_000,
      });
      await client.release({ type: DEMO_POOL, slug: 'preview-11', leaseId: lease?.leaseId ?? '' });
      await confirm(dialog, 'shrinking the pool', 'Remove slot');
      await opened.page.locator('#status', { hasText: 'The semaphore did not do it' }).waitFor();
      expect(await opened.page.locator('#status').textContent()).toContain(
        'slot preview-11 is at generation 1, not 0 as ifGeneration named',
      );
      expect(await client.find(DEMO_POOL, 'preview-11')).toMatchObject({ dirty: true, generation: 1 });
    },
    BROWSER_TEST_MS,
  );

  // Found by a hostile read: a renew changed nothing a force could pin, so a force read before it
  // still matched.
  it(
    'releases nothing when the holder renewed its lease while the dialog was open',
    async () => {
      await client.add({ type: DEMO_POOL, slug: 'preview-12' });
      await client.acquireSpecific({
        type: DEMO_POOL,
        slug: 'preview-12',
        holder: 'pr-1900',
        leaseMs: 3_600_000,
      });
      const shown = await client.find(DEMO_POOL, 'preview-12');
      const opened = await demoPoolPage();
      await rowOf(opened, 'preview-12').waitFor();
      const dialog = await openAction(opened, 'preview-12', 'Force-release…', ['pr-1900']);
      // The pull request pushes again: its deploy extends the lease (reuseHeld) while the dialog is open.
      await client.acquire({ type: DEMO_POOL, holder: 'pr-1900', leaseMs: 3_600_000, reuseHeld: true });
      await confirm(dialog, 'looks stuck', 'Force-release');
      await opened.page.locator('#status', { hasText: 'Nothing was released' }).waitFor();
      expect(await opened.page.locator('#status').textContent()).toContain(
        `is now held by pr-1900 (generation ${shown.generation}, lease version 2), not by pr-1900 (generation ${shown.generation}, lease version 1)`,
      );
      expect(await client.find(DEMO_POOL, 'preview-12')).toMatchObject({
        holder: 'pr-1900',
        leaseState: 'leased',
        generation: shown.generation,
      });
    },
    BROWSER_TEST_MS,
  );

  it(
    'asks for a note and a valid slot name before it sends anything',
    async () => {
      const opened = await demoPoolPage();
      const before = await client.list(DEMO_POOL);
      const markDialog = await openAction(opened, 'preview-9', 'Mark dirty…', ['preview-9']);
      await markDialog.locator('#confirm-note').fill('   ');
      await markDialog.getByRole('button', { name: 'Mark dirty', exact: true }).click();
      await markDialog.locator('.error', { hasText: 'Write a note' }).waitFor();
      await markDialog.getByRole('button', { name: 'Cancel' }).click();

      const addDialog = await openAddSlot(opened);
      await addDialog.locator('#add-slug').fill('Bad_Name');
      await addDialog.locator('#confirm-note').fill('x');
      await addDialog.getByRole('button', { name: 'Add slot', exact: true }).click();
      await addDialog.locator('.error', { hasText: 'A slot name is' }).waitFor();
      await addDialog.getByRole('button', { name: 'Cancel' }).click();
      await addDialog.waitFor({ state: 'detached' });
      expect(await client.list(DEMO_POOL)).toEqual({ ...before, now: expect.any(Number) });
    },
    BROWSER_TEST_MS,
  );
});

describe('a lease gc keeps', () => {
  it(
    'says so beside its end, and at most until when',
    async () => {
      const pool = 'kept-pool';
      await client.add({ type: pool, slug: 'slot-1' });
      const lease = await client.acquireSpecific({
        type: pool,
        slug: 'slot-1',
        holder: 'pr-7',
        leaseMs: 3_600_000,
      });
      await client.extend({
        type: pool,
        slug: 'slot-1',
        ifHolder: 'pr-7',
        ifGeneration: lease?.generation ?? 0,
        ifLeaseVersion: 1,
        leaseMs: 2 * 3_600_000,
        maxHeldMs: 72 * 3_600_000,
      });
      const opened = await signedIn();
      await goTo(opened.page, `#/pools/${pool}`);
      const kept = rowOf(opened, 'slot-1').locator('.badge.kept');
      await kept.waitFor();
      expect(await kept.textContent()).toBe('kept');
      expect(await kept.getAttribute('title')).toMatch(
        /^kept by gc for the pull request's keep label, at most until /,
      );
    },
    BROWSER_TEST_MS,
  );
});

describe('roles', () => {
  it(
    'says the role signed in with, and shows a viewer no operator action',
    async () => {
      const viewer = await signedIn({}, semaphore, READ_TOKEN);
      await goTo(viewer.page, `#/pools/${DEMO_POOL}`);
      await viewer.page.locator('table.slots tbody tr').first().waitFor();
      expect(await viewer.page.locator('#role').textContent()).toBe('signed in as read (view only)');
      expect(await viewer.page.locator('#view button').count()).toBe(0);

      const sweeper = await signedIn({}, semaphore, GC_TOKEN);
      await goTo(sweeper.page, `#/pools/${DEMO_POOL}`);
      await sweeper.page.locator('table.slots tbody tr').first().waitFor();
      expect(await sweeper.page.locator('#role').textContent()).toBe('signed in as gc');
      const labels = new Set(await sweeper.page.locator('#view button').allTextContents());
      expect([...labels]).toEqual(['Force-release…']);

      const admin = await signedIn();
      expect(await admin.page.locator('#role').textContent()).toBe('signed in as admin');
    },
    BROWSER_TEST_MS,
  );
});

describe('a slot’s history', () => {
  it(
    'lists its events newest first, a page of 20 at a time, as /api has them',
    async () => {
      const pool = 'history-pool';
      await client.add({ type: pool, slug: 'slot-1', note: 'first of many' });
      // Leases, not renews: a lease's renews are one event.
      const take = () =>
        client.acquireSpecific({ type: pool, slug: 'slot-1', holder: 'pr-42', leaseMs: 60_000 });
      for (let cycle = 0; cycle < 12; cycle += 1) {
        const lease = await take();
        await client.release({ type: pool, slug: 'slot-1', leaseId: lease?.leaseId ?? '' });
      }
      await take();
      const events = await client.events(pool, 'slot-1', 100);
      expect(events).toHaveLength(26);
      const { page } = await signedIn();
      await goTo(page, `#/pools/${pool}/slot-1`);
      const rows = page.locator('table.history tbody tr');
      await rows.nth(19).waitFor();
      const eventsOf = async () =>
        (await tableText(page, 'table.history')).map((cells) => [cells[1], cells[3]]);
      const expected = (from: number, to: number) =>
        events.slice(from, to).map((event) => [event.event, String(event.generation)]);
      expect(await eventsOf()).toEqual(expected(0, 20));
      expect(await page.locator('.pager').textContent()).toContain('events 1–20, newest first');

      await page.getByRole('button', { name: 'Older →' }).click();
      await page.locator('.pager', { hasText: 'events 21–26' }).waitFor();
      expect(await eventsOf()).toEqual(expected(20, 26));
      expect((await tableText(page, 'table.history')).at(-1)?.[4]).toContain('first of many');
      expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);

      await page.getByRole('button', { name: '← Newer' }).click();
      await page.locator('.pager', { hasText: 'events 1–20' }).waitFor();
    },
    BROWSER_TEST_MS,
  );
});

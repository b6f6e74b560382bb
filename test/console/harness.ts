// The web console in a real browser against the real semaphore Worker: headless Chromium
// (scripts/chromium.ts) driven by playwright-core, a browser context per test, and what the page did
// that a person would not see: its console, its uncaught errors, its requests and its CSP reports.
import type { Browser, BrowserContext, Page } from 'playwright-core';

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Everything the page printed to its console, as `type: text`. */
  messages: string[];
  /** Uncaught exceptions in the page. */
  errors: string[];
  /** Every URL the page requested. */
  requests: string[];
  /** The CSP violation reports the browser sent (with `reportCsp`). */
  cspReports: unknown[];
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Collects the page's CSP violation reports: adds `report-uri /csp-report` to the Worker's own
   * policy, and the test plays that endpoint. (Same origin: Chromium refuses to post reports to
   * another port on loopback.)
   */
  reportCsp?: boolean;
  /** Serves the page without its CSP, to show the page renders data as text on its own. */
  withoutCsp?: boolean;
}

/** Opens the console's sign-in page in a fresh browser context (its own sessionStorage). */
export async function openConsole(
  browser: Browser,
  baseUrl: string,
  options: OpenOptions = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
  // Every wait here is for something the page does within a second or two, or on its next poll (5 s).
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const messages: string[] = [];
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  const cspReports: unknown[] = [];
  if (options.reportCsp === true) {
    await page.route(`${baseUrl}/csp-report`, async (route) => {
      cspReports.push(JSON.parse(route.request().postData() ?? 'null'));
      await route.fulfill({ status: 204 });
    });
  }
  if (options.reportCsp === true || options.withoutCsp === true) {
    await page.route(`${baseUrl}/`, async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      if (options.withoutCsp === true) delete headers['content-security-policy'];
      else headers['content-security-policy'] += '; report-uri /csp-report';
      await route.fulfill({ response, headers });
    });
  }
  await page.goto(`${baseUrl}/`);
  return { context, page, messages, errors, requests, cspReports, close: () => context.close() };
}

/** Signs in through the form and waits until the page has taken the token. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.locator('#token').fill(token);
  await page.locator('#sign-in-form button[type=submit]').click();
  await page.locator('#sign-out').waitFor({ state: 'visible' });
}

/** Goes to a page of the console (`#/pools/<pool>`) without reloading it. */
export async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate((target) => {
    location.hash = target;
  }, hash);
}

/** The text of every cell of a table's body, row by row. */
export function tableText(page: Page, selector: string): Promise<string[][]> {
  return page.$$eval(`${selector} tbody tr`, (rows) =>
    rows.map((row) => [...(row as HTMLTableRowElement).cells].map((cell) => cell.textContent?.trim() ?? '')),
  );
}

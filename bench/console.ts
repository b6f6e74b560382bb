// `npm run bench:console`: the web console's weight and speed. Prints the bytes the page is made of
// (HTML, JS, CSS; raw and gzipped) and how long the pool table of a 200-slot pool takes to render in
// headless Chromium against the local semaphore: the page's own measure of building the rows, and
// the whole way from opening the pool to the 200th row painted (request, answer, rows, layout).
import { readdir, readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../scripts/chromium.ts';
import { SemaphoreClient } from '../src/semaphore/client.ts';
import { startLocalSemaphore } from '../src/semaphore/local.ts';

const PUBLIC = new URL('../src/semaphore/console/public/', import.meta.url).pathname;
const POOL = 'bench-pool';
const SLOTS = 200;
const RUNS = 15;

function progress(message: string): void {
  process.stderr.write(`bench:console: ${message}\n`);
}

async function pageWeight(): Promise<{ kind: string; files: number; bytes: number; gzipped: number }[]> {
  const files = await readdir(PUBLIC, { recursive: true });
  const kinds = ['html', 'js', 'css'];
  return Promise.all(
    kinds.map(async (kind) => {
      const contents = await Promise.all(
        files.filter((file) => file.endsWith(`.${kind}`)).map((file) => readFile(join(PUBLIC, file))),
      );
      return {
        kind,
        files: contents.length,
        bytes: contents.reduce((sum, content) => sum + content.byteLength, 0),
        gzipped: contents.reduce((sum, content) => sum + gzipSync(content).byteLength, 0),
      };
    }),
  );
}

/** 200 slots: every other one leased by a pull request (a tenth of those expired), a third dirty. */
async function seed(client: SemaphoreClient): Promise<void> {
  for (let n = 1; n <= SLOTS; n += 1) {
    const slug = `preview-${n}`;
    await client.add({ type: POOL, slug, dirty: n % 3 === 0 });
    if (n % 2 === 0) {
      const leaseMs = n % 20 === 0 ? 1_000 : 4 * 3_600_000;
      await client.acquireSpecific({ type: POOL, slug, holder: `pr-${1000 + n}`, leaseMs });
    }
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function measureRender(url: string, token: string): Promise<{ build: number[]; painted: number[] }> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${url}/`);
    await page.locator('#token').fill(token);
    await page.locator('#sign-in-form button[type=submit]').click();
    await page.locator('#sign-out').waitFor({ state: 'visible' });
    const build: number[] = [];
    const painted: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      await page.evaluate(() => {
        location.hash = '#/';
      });
      await page.locator('#view table tbody tr').first().waitFor();
      const result = await page.evaluate(
        ({ pool, slots }) =>
          new Promise<{ build: number; painted: number }>((resolve) => {
            performance.clearMeasures('console: pool table drawn');
            const start = performance.now();
            const done = () => {
              // Two frames: the rows laid out and painted.
              requestAnimationFrame(() =>
                requestAnimationFrame(() => {
                  const [measure] = performance.getEntriesByName('console: pool table drawn');
                  resolve({ build: measure?.duration ?? Number.NaN, painted: performance.now() - start });
                }),
              );
            };
            const observer = new MutationObserver(() => {
              if (document.querySelectorAll('table.slots tbody tr').length === slots) {
                observer.disconnect();
                done();
              }
            });
            observer.observe(document.body, { childList: true, subtree: true });
            location.hash = `#/pools/${pool}`;
          }),
        { pool: POOL, slots: SLOTS },
      );
      build.push(result.build);
      painted.push(result.painted);
    }
    return { build, painted };
  } finally {
    await browser.close();
  }
}

progress('starting the local semaphore…');
const semaphore = await startLocalSemaphore();
try {
  progress(`seeding ${SLOTS} slots…`);
  await seed(new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token }));
  progress(`opening the pool ${RUNS} times in headless Chromium…`);
  const weight = await pageWeight();
  const { build, painted } = await measureRender(semaphore.url, semaphore.token);
  const total = (key: 'bytes' | 'gzipped') => weight.reduce((sum, row) => sum + row[key], 0);
  const lines = [
    'web console: page weight',
    ...weight.map(
      (row) =>
        `  ${row.kind.padEnd(5)} ${String(row.files).padStart(2)} files ${String(row.bytes).padStart(7)} B  (gzip ${row.gzipped} B)`,
    ),
    `  total            ${String(total('bytes')).padStart(7)} B  (gzip ${total('gzipped')} B)`,
    `web console: pool table of ${SLOTS} slots, median of ${RUNS} runs (load average ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} cores)`,
    `  rows built (the page's measure)          ${median(build).toFixed(1)} ms  (min ${Math.min(...build).toFixed(1)}, max ${Math.max(...build).toFixed(1)})`,
    `  opened to painted (request and layout)   ${median(painted).toFixed(1)} ms  (min ${Math.min(...painted).toFixed(1)}, max ${Math.max(...painted).toFixed(1)})`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await semaphore.stop();
}

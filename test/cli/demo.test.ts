// `npm start` as a new user meets it: it completes, exits 0, writes the job summary and leaves
// nothing running.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, startNode } from './run-cli.ts';

let dir: string;
let result: CliResult;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preview-gc-demo-'));
  result = await startNode('scripts/demo.ts', [], { PREVIEW_GC_SUMMARY_PATH: join(dir, 'summary.md') })
    .result;
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('runs status, three deploys, a wrangler deploy, a queue, gc --dry-run, gc and status, and exits 0', () => {
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const steps = result.stdout.split('\n').filter((line) => line.startsWith('━━━'));
    expect(steps.map((line) => line.replace(/ ━+$/, ''))).toEqual([
      '━━━ 1/7  preview-gc status',
      '━━━ 2/7  preview-gc acquire --pr 1610, 1611, 1612',
      '━━━ 3/7  wrangler deploy --config wrangler.preview-gc.preview-4.jsonc',
      '━━━ 4/7  preview-gc acquire --wait-minutes 5 --pr 1621, 1622',
      '━━━ 5/7  preview-gc gc --dry-run',
      '━━━ 6/7  preview-gc gc',
      '━━━ 7/7  preview-gc status',
    ]);
    expect(result.stdout).toMatch(/pull request #1610 has preview-5 until .* UTC, a clean slot/);
    expect(result.stdout).toMatch(/pull request #1611 has preview-9 until .* UTC, a clean slot/);
    // The third deploy gets a slot released dirty, and it is erased before the hand-over.
    expect(result.stdout).toMatch(/pull request #1612 has preview-4 until .* UTC, erased first/);
    expect(result.stdout).toMatch(/preview-4 +pr-1570 +dirty +✔ erased/);
    expect(result.stdout).toContain('✔ preview-gc gc on pool preview-slot: 4 would be reclaimed');
    expect(result.stdout).toContain('✔ preview-gc gc on pool preview-slot: 4 of 4 reclaimed');
    expect(result.stdout).toMatch(
      /✔ Done in \d+ s\. gc reclaimed 4 of 4 slots .* left the 5 live leases alone\./,
    );
  });

  it('shows a queue of two: each waiter says its place, and gets the slot in the order it started', () => {
    const lines = result.stdout.split('\n');
    const at = (text: string) => lines.findIndex((line) => line.includes(text));
    expect(result.stdout).toContain('  pr-1621  1st in line for preview-line, 1 slot, all leased');
    expect(result.stdout).toContain('  pr-1622  2nd in line for preview-line, 1 slot, all leased');
    expect(at('pr-1621  has preview-10')).toBeGreaterThan(at('pr-1620 closes'));
    expect(at('pr-1622  has preview-10')).toBeGreaterThan(at('pr-1621 closes'));
    expect(at('pr-1621 closes')).toBeGreaterThan(at('pr-1621  has preview-10'));
  });

  it("deploys the sample app with the real wrangler from the slot's copy: no production cron, the preview's vars", () => {
    // Read back from the twin after wrangler's deploy, not from the copy.
    expect(result.stdout).toContain(
      "  Schedules   none: production's nightly 0 3 * * * job does not run in the preview",
    );
    expect(result.stdout).toContain(
      '  Vars        API_BASE="https://api.staging.example.com", STRIPE_MODE="test" (from the app\'s env.preview block)',
    );
    expect(result.stdout).toContain(
      '  Shared      "WAREHOUSE" (at "env.preview.hyperdrive[0]") (deploy.shared)',
    );
    expect(result.stdout).not.toContain('STRIPE_MODE="live"');
    expect(result.stdout).toMatch(
      / {2}Address {5}https:\/\/shop-preview-4\.[a-z0-9-]+\.workers\.dev \(acquire's url output\)/,
    );
  });

  it('writes the job summary of the real sweep where it says', async () => {
    const summary = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(summary.split('\n')[0]).toBe('## ✅ preview-gc gc on pool `preview-slot`: 4 of 4 reclaimed');
    expect(result.stdout).toContain(
      `The job summary the action would post for that sweep is in ${join(dir, 'summary.md')}.`,
    );
  });

  it('stops the semaphore and the twin it started', async () => {
    const urls = [...result.stdout.matchAll(/(?:semaphore|Cloudflare) +(http:\/\/127\.0\.0\.1:\d+)/g)].map(
      (match) => match[1] ?? '',
    );
    expect(urls).toHaveLength(2);
    for (const url of urls) await expect(fetch(url)).rejects.toThrow();
    expect(result.stdout).toContain('The semaphore and the twin are stopped.');
  });

  it('says what "clean" means: a mark, under which the slots marked clean still hold data', () => {
    expect(result.stdout).toMatch(
      /the 2 slots marked clean \(preview-5, preview-9\) hold [\d,]+ rows and [\d,]+ keys that no sweep will touch/,
    );
    expect(result.stdout).toContain('preview-gc slots sync --dirty');
    expect(result.stdout).toMatch(/preview-5 +marked clean +[1-9]/);
  });

  it('ends with where to go next', () => {
    const lastLines = result.stdout.trimEnd().split('\n').slice(-4);
    expect(lastLines[0]).toBe('Next:');
    expect(lastLines.join('\n')).toContain('npm run stack');
    expect(lastLines.at(-1)).toBe(
      '  README.md, "Use it in your repository": adopt preview-gc for your app, step by step.',
    );
  });
});

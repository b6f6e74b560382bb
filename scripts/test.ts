// `npm test` and `npm run test:unit`: vitest with its usual output, then one plain last line,
// `N passed, N failed`, that a person or a CI log search can read at a glance. The counts come from
// vitest's JSON report. A test file that could not even load, or a run that failed outside any test
// (an unhandled error), counts as failed too, so the line never says 0 failed for a failed run. The
// exit code is vitest's. Arguments are passed on to `vitest run` (`npm test -- test/cli`).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { status: string; assertionResults: { status: string }[] }[];
}

export interface TestCounts {
  passed: number;
  failed: number;
}

/** The counts of the summary line, from vitest's JSON report (undefined when it wrote none) and its exit code. */
export function countsOf(report: JsonReport | undefined, exitCode: number): TestCounts {
  const passed = report?.numPassedTests ?? 0;
  const filesFailedWithoutATest = (report?.testResults ?? []).filter(
    (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
  ).length;
  const failed = (report?.numFailedTests ?? 0) + filesFailedWithoutATest;
  return { passed, failed: exitCode !== 0 && failed === 0 ? 1 : failed };
}

export function summaryLine(counts: TestCounts): string {
  return `${counts.passed} passed, ${counts.failed} failed`;
}

async function readReport(path: string): Promise<JsonReport | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as JsonReport;
  } catch {
    return undefined;
  }
}

function runVitest(args: readonly string[]): Promise<number> {
  const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
  const child = spawn(process.execPath, [vitest, 'run', ...args], { stdio: 'inherit' });
  // Ctrl-C reaches vitest through the terminal; a SIGTERM from CI is handed on, and the line still follows.
  const handOn = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGTERM', handOn).on('SIGINT', () => {});
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(1));
  });
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'preview-gc-test-'));
  const reportPath = join(directory, 'report.json');
  try {
    const exitCode = await runVitest([
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${reportPath}`,
      ...process.argv.slice(2),
    ]);
    const report = await readReport(reportPath);
    if (report === undefined) console.error('vitest wrote no JSON report; see its output above');
    console.log(summaryLine(countsOf(report, exitCode)));
    process.exitCode = exitCode;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();

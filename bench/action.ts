// Runs the bundled action (dist/index.js) as the runner does and measures it from the outside: wall
// time from spawn to exit, the peak resident set size, and the run report it published as an output.
import { readFileSync } from 'node:fs';
import { DEMO_CONFIG_PATH } from '../demo/fixture.ts';
import type { RunReport } from '../src/report/model.ts';
import { runAction } from '../test/support/action-run.ts';
import type { Twin } from '../test/twin/twin.ts';

export interface GcRunTarget {
  semaphore: { url: string; token: string };
  twin: Twin;
  pool: string;
  /** Inputs beyond the connection ones, e.g. `requests-per-second`. */
  inputs?: Record<string, string>;
}

export interface MeasuredRun {
  exitCode: number | null;
  /** From spawn to exit, as the job sees it (Node's start and the config load included). */
  wallMs: number;
  /** Highest VmHWM of the process, sampled every 20 ms; null where /proc is not there. */
  peakRssBytes: number | null;
  report: RunReport;
}

/** VmHWM ("high water mark" of the resident set) of a live process, in bytes. */
function highWaterMark(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

export function gcInputs(target: GcRunTarget): Record<string, string> {
  return {
    command: 'gc',
    config: DEMO_CONFIG_PATH,
    pool: target.pool,
    'semaphore-url': target.semaphore.url,
    'semaphore-token': target.semaphore.token,
    'cloudflare-api-token': target.twin.token,
    'cloudflare-account-id': target.twin.accountId,
    'cloudflare-api-base-url': target.twin.baseUrl,
    ...target.inputs,
  };
}

export async function runGc(target: GcRunTarget): Promise<MeasuredRun> {
  let spawnedAt = 0;
  let exitedAt = 0;
  let peakRssBytes: number | null = null;
  let sampler: NodeJS.Timeout | undefined;
  const run = await runAction(gcInputs(target), {
    onSpawn: (child) => {
      spawnedAt = performance.now();
      const sample = () => {
        const now = child.pid === undefined ? null : highWaterMark(child.pid);
        if (now !== null) peakRssBytes = Math.max(peakRssBytes ?? 0, now);
      };
      sampler = setInterval(sample, 20);
      child.once('exit', () => {
        exitedAt = performance.now();
        clearInterval(sampler);
      });
    },
  });
  clearInterval(sampler);
  const reportJson = run.outputs.report;
  if (reportJson === undefined) {
    throw new Error(
      `bench: the action published no report (exit ${run.exitCode}).\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`,
    );
  }
  return {
    exitCode: run.exitCode,
    wallMs: exitedAt - spawnedAt,
    peakRssBytes,
    report: JSON.parse(reportJson) as RunReport,
  };
}

// Measurement: gc's sweep of one Worker's 100 Worker Previews (`worker-previews`), through the bundled
// action against the twin and a GitHub double: 30 previews of closed pull requests (`pr-<n>`), 50 of
// open ones (named after their branches), 20 of branches without a pull request, idle for 10 days; 250
// pull requests in the repository. It counts the requests: Cloudflare's by route (one listing of the
// previews in pages of 10, one latest-deployment read per preview, the deletes and the listing after
// them), GitHub's pages of pull requests. Runs on its own too: `node bench/measure-worker-previews.ts`
// (after `npm run bundle`).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunReport } from '../src/report/model.ts';
import { SemaphoreClient } from '../src/semaphore/client.ts';
import { startLocalSemaphore } from '../src/semaphore/local.ts';
import { gcInputs, runAction } from '../test/support/action-run.ts';
import { startGitHubDouble } from '../test/support/github-double.ts';
import { startTwin } from '../test/twin/twin.ts';

export const SWEPT_PREVIEWS = 100;
const CLOSED = 30;
const OPEN = 50;
const IDLE = SWEPT_PREVIEWS - CLOSED - OPEN;
const OTHER_PULL_REQUESTS = 250 - CLOSED - OPEN;
const DAY = 86_400_000;
const TOKENS = { semaphore: 'sem-bench-previews-31c8', github: 'ghs-bench-previews-7e02' };

export interface WorkerPreviewsResult {
  previews: number;
  deleted: number;
  wallMs: number;
  cloudflareRequests: number;
  /** Cloudflare requests by route, e.g. `GET /accounts/:account/workers/workers/:name/previews`. */
  byRoute: Record<string, number>;
  gitHubRequests: number;
}

export async function measureWorkerPreviews(): Promise<WorkerPreviewsResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-previews-'));
  const [twin, semaphore, github] = await Promise.all([
    startTwin(),
    startLocalSemaphore({ token: TOKENS.semaphore }),
    startGitHubDouble(TOKENS.github),
  ]);
  try {
    const closed = Array.from({ length: CLOSED }, (_, i) => `pr-${1000 + i}`);
    const open = Array.from({ length: OPEN }, (_, i) => `feature-${2000 + i}`);
    const idle = Array.from({ length: IDLE }, (_, i) => `spike-${i}`);
    twin.seed({
      workers: [
        { name: 'shop', previews: [...closed, ...open, ...idle].map((slug) => ({ slug, classes: [] })) },
      ],
    });
    // The idle ones were last deployed 10 days ago (the twin's store, moved back).
    for (const preview of twin.account.workers.scripts.get('shop')?.previews ?? []) {
      if (!idle.includes(preview.name)) continue;
      for (const deployment of preview.deployments)
        deployment.createdOn = new Date(Date.now() - 10 * DAY).toISOString();
    }
    closed.forEach((_, i) => {
      github.pullRequests.set(1000 + i, i % 2 === 0 ? 'closed' : 'merged');
    });
    open.forEach((branch, i) => {
      github.pullRequests.set(2000 + i, 'open');
      github.heads.set(2000 + i, branch);
    });
    for (let i = 0; i < OTHER_PULL_REQUESTS; i++) github.pullRequests.set(3000 + i, 'closed');

    const config = join(dir, 'slots.yml');
    await writeFile(
      config,
      'pool: bench-previews\nresources:\n  workers:\n    - name: shop-{slot}\nworker-previews:\n  - worker: shop\n    ttl: 3d\n',
    );
    await new SemaphoreClient({ baseUrl: semaphore.url, token: TOKENS.semaphore }).add({
      type: 'bench-previews',
      slug: 'shop-1',
    });
    twin.resetRequests();
    const started = performance.now();
    const run = await runAction(
      {
        ...gcInputs(config, { url: semaphore.url, token: TOKENS.semaphore }, twin),
        'request-budget': '1000',
        'github-token': TOKENS.github,
      },
      { env: { GITHUB_API_URL: github.url } },
    );
    const wallMs = performance.now() - started;
    const report = JSON.parse(run.outputs.report ?? '{}') as RunReport;
    const rows = report.workerPreviews?.[0]?.previews ?? [];
    if (rows.length !== SWEPT_PREVIEWS)
      throw new Error(
        `bench: the sweep reported ${rows.length} previews (exit ${run.exitCode}):\n${run.stdout}`,
      );
    const byRoute: Record<string, number> = {};
    for (const request of twin.requests()) byRoute[request.route] = (byRoute[request.route] ?? 0) + 1;
    return {
      previews: rows.length,
      deleted: rows.filter((row) => row.action === 'deleted').length,
      wallMs,
      cloudflareRequests: twin.requests().length,
      byRoute,
      gitHubRequests: github.requests.length,
    };
  } finally {
    await github.close();
    await Promise.all([semaphore.stop(), twin.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await measureWorkerPreviews();
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

// Measurement 4: how long `node dist/index.js` takes from process start to its first outbound request,
// next to a bare `node -e 0` (start to exit) timed in the same run, and how big the bundle is. A tiny
// loopback server plays the semaphore: it notes when the first request arrives and answers a pool of
// one clean, free slot, so each run is a quiet sweep that exits at once. It plays Cloudflare's GraphQL
// Analytics API too, for the quiet sweep's one read, with an hour in which nothing ran. (An empty pool
// would be a misconfiguration the action reports, with a second call that lists the semaphore's pools.)
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { DEMO_CONFIG_PATH } from '../demo/fixture.ts';
import { newSlotRecord } from '../test/semaphore/helpers.ts';
import { runAction } from '../test/support/action-run.ts';
import { CLOUDFLARE_TOKEN, SEMAPHORE_TOKEN } from './stack.ts';

export const COLD_START_RUNS = 15;
const ACTION_BUNDLE = new URL('../dist/index.js', import.meta.url).pathname;

export interface ColdStartResult {
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  samplesMs: number[];
  /** `node -e 0` on the same Node, spawn to exit, one run before each run of the action. */
  bareNodeMedianMs: number;
  bareNodeSamplesMs: number[];
  /** medianMs ÷ bareNodeMedianMs: the action's own start-up cost, whatever the machine's speed. */
  ratio: number;
  /** dist/index.js alone. */
  bundleBytes: number;
  /** dist/index.js and the chunks it loads (index-*.js, see scripts/bundle.ts): what the action ships. */
  actionBundleBytes: number;
}

function actionBundleBytes(): number {
  const dist = dirname(ACTION_BUNDLE);
  return readdirSync(dist)
    .filter((file) => /^index(-[\w-]+)?\.js$/.test(file))
    .reduce((sum, file) => sum + statSync(join(dist, file)).size, 0);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const high = sorted[middle];
  const low = sorted[sorted.length % 2 === 0 ? middle - 1 : middle];
  if (high === undefined || low === undefined) throw new Error('median of nothing');
  return (low + high) / 2;
}

/** Spawn to exit of a Node that does nothing: the floor any Node program starts from. */
function timeBareNode(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const startedAt = performance.now();
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(performance.now() - startedAt);
      else reject(new Error(`bench: node -e 0 exited with ${code}`));
    });
  });
}

export async function measureColdStart(): Promise<ColdStartResult> {
  let firstRequestAt: number | undefined;
  let unexpected: string | undefined;
  const server: Server = createServer((request, response) => {
    firstRequestAt ??= performance.now();
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.method === 'POST' && request.url === '/client/v4/graphql') {
      const quietHour = { workers: [], objects: [], namespaces: [], compute: [], storage: [] };
      response.end(JSON.stringify({ data: { viewer: { accounts: [quietHour] } }, errors: null }));
      return;
    }
    if (request.method !== 'GET' || !request.url?.startsWith('/api/resources?')) {
      unexpected ??= `${request.method} ${request.url}`;
    }
    const now = Date.now();
    response.end(JSON.stringify({ now, resources: [newSlotRecord('preview-slot', 'preview-1', now)] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const samplesMs: number[] = [];
    const bareNodeSamplesMs: number[] = [];
    // Run -1 is a warm-up of each, not counted, so neither series is timed with a cold disk cache.
    for (let run = -1; run < COLD_START_RUNS; run++) {
      // Alternating, so a change in the machine's load falls on both series alike.
      const bareMs = await timeBareNode();
      firstRequestAt = undefined;
      let startedAt = 0;
      const result = await runAction(
        {
          command: 'gc',
          config: DEMO_CONFIG_PATH,
          'semaphore-url': url,
          'semaphore-token': SEMAPHORE_TOKEN,
          'cloudflare-api-token': CLOUDFLARE_TOKEN,
          'cloudflare-account-id': '023e105f4ecef8ad9ca31a8372d0c353',
          // A quiet sweep's only Cloudflare call is the spend read; any other lands here and is reported.
          'cloudflare-api-base-url': `${url}/client/v4`,
        },
        {
          onSpawn: () => {
            startedAt = performance.now();
          },
        },
      );
      if (result.exitCode !== 0 || firstRequestAt === undefined || unexpected !== undefined) {
        throw new Error(
          `bench: cold-start run ${run < 0 ? '(warm-up)' : run + 1} did not make exactly one quiet sweep (exit ${result.exitCode}, unexpected request: ${unexpected ?? 'none'}):\n${result.stdout}\n${result.stderr}`,
        );
      }
      if (run >= 0) {
        samplesMs.push(firstRequestAt - startedAt);
        bareNodeSamplesMs.push(bareMs);
      }
    }
    const medianMs = median(samplesMs);
    const bareNodeMedianMs = median(bareNodeSamplesMs);
    return {
      runs: COLD_START_RUNS,
      medianMs,
      minMs: Math.min(...samplesMs),
      maxMs: Math.max(...samplesMs),
      samplesMs,
      bareNodeMedianMs,
      bareNodeSamplesMs,
      ratio: medianMs / bareNodeMedianMs,
      bundleBytes: statSync(ACTION_BUNDLE).size,
      actionBundleBytes: actionBundleBytes(),
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

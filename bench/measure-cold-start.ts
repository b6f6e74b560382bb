// Measurement 4: how long `node dist/index.js` takes from process start to its first outbound request,
// and how big the bundle is. A tiny loopback server plays the semaphore: it notes when the first request
// arrives and answers an empty pool, so each run is a quiet sweep that exits at once.
import { statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_CONFIG_PATH } from '../demo/fixture.ts';
import { runAction } from '../test/support/action-run.ts';
import { CLOUDFLARE_TOKEN, SEMAPHORE_TOKEN } from './stack.ts';

export const COLD_START_RUNS = 10;
const ACTION_BUNDLE = new URL('../dist/index.js', import.meta.url).pathname;

export interface ColdStartResult {
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  samplesMs: number[];
  bundleBytes: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const high = sorted[middle];
  const low = sorted[sorted.length % 2 === 0 ? middle - 1 : middle];
  if (high === undefined || low === undefined) throw new Error('median of nothing');
  return (low + high) / 2;
}

export async function measureColdStart(): Promise<ColdStartResult> {
  let firstRequestAt: number | undefined;
  let unexpected: string | undefined;
  const server: Server = createServer((request, response) => {
    firstRequestAt ??= performance.now();
    if (request.method !== 'GET' || !request.url?.startsWith('/api/resources?')) {
      unexpected ??= `${request.method} ${request.url}`;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ now: Date.now(), resources: [] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const samplesMs: number[] = [];
    for (let run = 0; run < COLD_START_RUNS; run++) {
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
          // A quiet sweep calls no Cloudflare API; should it, the call lands here and is reported.
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
          `bench: cold-start run ${run + 1} did not make exactly one quiet sweep (exit ${result.exitCode}, unexpected request: ${unexpected ?? 'none'}):\n${result.stdout}\n${result.stderr}`,
        );
      }
      samplesMs.push(firstRequestAt - startedAt);
    }
    return {
      runs: COLD_START_RUNS,
      medianMs: median(samplesMs),
      minMs: Math.min(...samplesMs),
      maxMs: Math.max(...samplesMs),
      samplesMs,
      bundleBytes: statSync(ACTION_BUNDLE).size,
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

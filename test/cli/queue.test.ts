// The fair queue as a person at a terminal sees it (issue 31), through `node src/cli.ts` against the
// real semaphore Worker in workerd: `acquire --wait-minutes` prints its place in line as it waits,
// `status` and `status --json` show the pool's queue, and a wait stopped by SIGTERM leaves the queue at
// once, so the next waiter moves up without waiting out the heartbeat.
import { describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH } from '../../demo/fixture.ts';
import type { RunReport } from '../../src/report/model.ts';
import { freshPool, semaphoreErrorOf, semaphoreForFile } from '../semaphore/helpers.ts';
import { type CliResult, runCli, startNode } from './run-cli.ts';

const local = semaphoreForFile();
const HOUR = 3_600_000;

const env = () => ({
  SEMAPHORE_URL: local.semaphore.url,
  SEMAPHORE_TOKEN: local.semaphore.token,
  // acquire asks for Cloudflare's settings up front; a wait that gets no slot never calls it (port 9: discard).
  CLOUDFLARE_API_TOKEN: 'cf-queue-test-token-2b7e',
  CLOUDFLARE_ACCOUNT_ID: '0123456789abcdef0123456789abcdef',
  CLOUDFLARE_API_BASE_URL: 'http://127.0.0.1:9/client/v4',
});
const show = (result: CliResult) => `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

/** Resolves once the CLI's stderr contains `text`, checked as output arrives; fails if it exits first. */
function whenPrinted(started: ReturnType<typeof startNode>, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    started.child.stderr?.on('data', (chunk: string) => {
      seen += chunk;
      if (seen.includes(text)) resolve();
    });
    void started.result.then((result) => reject(new Error(`the CLI exited first:\n${show(result)}`)));
  });
}

describe('waiting in line from the CLI', () => {
  it('prints the place, shows the queue in status, and leaves the queue on SIGTERM', async () => {
    const { client } = local;
    const type = freshPool('cli-queue');
    await client.add({ type, slug: 'slot-1' });
    await client.add({ type, slug: 'slot-2' });
    await client.acquire({ type, holder: 'pr-1', leaseMs: HOUR });
    await client.acquire({ type, holder: 'pr-2', leaseMs: HOUR });
    await semaphoreErrorOf(client.acquire({ type, holder: 'pr-10', leaseMs: HOUR, wait: true }));

    const waiting = startNode(
      'src/cli.ts',
      ['acquire', '--pr', '11', '--wait-minutes', '30', '--pool', type, '--config', DEMO_CONFIG_PATH],
      env(),
    );
    await whenPrinted(waiting, 'No slot can be had yet: 2nd in line for');
    const status = await runCli(['status', '--pool', type], env());
    expect(status.code, show(status)).toBe(0);
    expect(status.stdout).toContain('2 waiting for a slot, the first for');
    expect(status.stdout).toMatch(/^ +1 +pr-10 +\d{4}-\d\d-\d\d \d\d:\d\d UTC \(/m);
    expect(status.stdout).toMatch(/^ +2 +pr-11 +\d{4}-\d\d-\d\d \d\d:\d\d UTC \(/m);
    const json = await runCli(['status', '--json', '--pool', type], env());
    const report = JSON.parse(json.stdout) as RunReport;
    expect(report.queue).toMatchObject({
      length: 2,
      waiters: [
        { position: 1, holder: 'pr-10' },
        { position: 2, holder: 'pr-11' },
      ],
    });

    waiting.child.kill('SIGTERM');
    const stopped = await waiting.result;
    expect(stopped.code, show(stopped)).toBe(1);
    expect(stopped.stderr).toContain(
      'No slot can be had yet: 2nd in line for preview-slot'.replace('preview-slot', type),
    );
    expect(stopped.stderr).toContain('2 slots, all leased');
    expect(stopped.stdout).toContain(
      `It was 2nd in line for ${type}, 2 slots, all leased, when the wait ended; it has left the line.`,
    );
    // Left at once: pr-10 alone in line, the heartbeat not waited out.
    expect((await client.list(type)).queue?.waiters.map((waiter) => waiter.holder)).toEqual(['pr-10']);
  });
});

// The rehearsal's queue (issue 31): a pool of one slot that a pull request holds, two more pull
// requests whose deploys wait for it (acquire with wait-minutes), started one after the other. Each
// says its place as it waits; as the slot is released, each gets it in the order it started. The
// acquires are executeSettings, the code the action runs; the pool and its slot are the demo's own.
import type { ProgressEvent } from '../src/commands/context.ts';
import type { RunReport } from '../src/report/model.ts';
import { placeInLine } from '../src/report/queue-text.ts';
import type { SemaphoreClient } from '../src/semaphore/client.ts';
import { until } from '../test/support/until.ts';
import type { Twin } from '../test/twin/twin.ts';
import { demoTwinSeed } from './fixture.ts';

export const QUEUE_POOL = 'preview-line';
export const QUEUE_SLOT = 'preview-10';
/** The pull request that holds the slot, and the two that wait for it, in the order they start. */
export const QUEUE_HOLDER = 1620;
export const QUEUE_WAITERS = [1621, 1622] as const;

export interface QueueStepOptions {
  client: SemaphoreClient;
  twin: Twin;
  /** acquire for a pull request in QUEUE_POOL, waiting, its progress to `progress`. */
  acquire(pullRequest: number, progress: (event: ProgressEvent) => void): Promise<RunReport>;
  say(line: string): void;
}

export async function rehearseQueue(options: QueueStepOptions): Promise<RunReport[]> {
  const { client, twin, say } = options;
  twin.seed(demoTwinSeed([QUEUE_SLOT]));
  await client.add({ type: QUEUE_POOL, slug: QUEUE_SLOT });
  await client.acquireSpecific({
    type: QUEUE_POOL,
    slug: QUEUE_SLOT,
    holder: `pr-${QUEUE_HOLDER}`,
    leaseMs: 3_600_000,
  });
  say(`  ${QUEUE_SLOT}, the only slot of pool ${QUEUE_POOL}, is held by pr-${QUEUE_HOLDER}.`);
  const deploys: Promise<RunReport>[] = [];
  for (const [index, pullRequest] of QUEUE_WAITERS.entries()) {
    let told = '';
    deploys.push(
      options.acquire(pullRequest, (event) => {
        if (event.kind !== 'waiting-for-slot' || event.place === undefined) return;
        const place = placeInLine(event.place, event.pool, (text) => text);
        if (place !== told) say(`  pr-${pullRequest}  ${place}`);
        told = place;
      }),
    );
    await until(async () => ((await client.list(QUEUE_POOL)).queue?.length ?? 0) === index + 1);
  }
  const reports: RunReport[] = [];
  for (const [index, pullRequest] of QUEUE_WAITERS.entries()) {
    const holder = index === 0 ? `pr-${QUEUE_HOLDER}` : `pr-${QUEUE_WAITERS[index - 1]}`;
    say(`  ${holder} closes: its slot goes back to the pool, dirty.`);
    await client.release({ type: QUEUE_POOL, slug: QUEUE_SLOT, force: true });
    const report = await (deploys[index] as Promise<RunReport>);
    reports.push(report);
    say(
      `  pr-${pullRequest}  has ${report.acquired?.slug ?? 'no slot'}${report.acquired?.wasDirty ? ', erased first' : ''}`,
    );
  }
  return reports;
}

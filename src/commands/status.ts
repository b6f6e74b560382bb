// status: the pool as it is, read-only.
import type { RunReport } from '../report/model.ts';
import { type CommandContext, emptyPoolProblem, poolRowsOf } from './context.ts';
import { poolSpend, withSpend } from './spend.ts';

export async function runStatus(
  ctx: Pick<
    CommandContext,
    'pool' | 'poolSource' | 'semaphore' | 'spend' | 'cloudflareUsage' | 'workerPreviews'
  >,
): Promise<Omit<RunReport, 'startedAt' | 'durationMs'>> {
  const listing = await ctx.semaphore.list(ctx.pool);
  // Only a warning here: status changes nothing, and a new pool is empty until its slots are added.
  const empty = listing.resources.length === 0;
  const warnings = empty ? [await emptyPoolProblem(ctx, 'so gc and cleanup would fail on it')] : [];
  // What each slot spends: read now with Cloudflare credentials and a slot config, else gc's records.
  const spend = empty ? null : await poolSpend(ctx, listing, warnings);
  // The Worker Previews gc sweeps: one listing per Worker in `worker-previews`.
  const workerPreviewCounts =
    ctx.workerPreviews === undefined
      ? undefined
      : await (await import('./worker-previews.ts')).countWorkerPreviews(ctx.workerPreviews);
  return {
    ...(workerPreviewCounts === undefined ? {} : { workerPreviewCounts }),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(spend === null ? {} : { spend: spend.summary }),
    ...(listing.queue === undefined ? {} : { queue: { ...listing.queue, at: listing.now } }),
    command: 'status',
    dryRun: false,
    pool: ctx.pool,
    problems: [],
    leftForNextRun: 0,
    expired: listing.resources.filter((slot) => slot.expired).length,
    slots: [],
    poolAfter: withSpend(poolRowsOf(listing), spend),
    semaphoreRequests: ctx.semaphore.requestCount,
    cloudflare: ctx.cloudflareUsage(),
  };
}

// status: the pool as it is, read-only.
import type { RunReport } from '../report/model.ts';
import { type CommandContext, emptyPoolProblem, poolRowsOf } from './context.ts';

export async function runStatus(
  ctx: Pick<CommandContext, 'pool' | 'poolSource' | 'semaphore'>,
): Promise<Omit<RunReport, 'startedAt' | 'durationMs'>> {
  const listing = await ctx.semaphore.list(ctx.pool);
  // Only a warning here: status changes nothing, and a new pool is empty until its slots are added.
  const empty = listing.resources.length === 0;
  return {
    ...(empty ? { warnings: [await emptyPoolProblem(ctx, 'so gc and cleanup would fail on it')] } : {}),
    command: 'status',
    dryRun: false,
    pool: ctx.pool,
    problems: [],
    leftForNextRun: 0,
    expired: listing.resources.filter((slot) => slot.expired).length,
    slots: [],
    poolAfter: poolRowsOf(listing),
    semaphoreRequests: ctx.semaphore.requestCount,
    cloudflare: null,
  };
}

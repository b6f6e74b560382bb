// status: the pool as it is, read-only.
import type { RunReport } from '../report/model.ts';
import { type CommandContext, poolRowsOf } from './context.ts';

export async function runStatus(
  ctx: Pick<CommandContext, 'pool' | 'semaphore'>,
): Promise<Omit<RunReport, 'startedAt' | 'durationMs'>> {
  const listing = await ctx.semaphore.list(ctx.pool);
  return {
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

// Runs one command with the services it is given and always returns a report, also when the run
// could not start or stopped half-way: the summary is written from it either way.
import { semaphoreRefusedToken } from '../config/run-place.ts';
import type { Command } from '../config/settings.ts';
import type { RunReport } from '../report/model.ts';
import { runAcquire, type SlotWranglerConfig } from './acquire.ts';
import { runCleanup } from './cleanup.ts';
import type { CommandContext } from './context.ts';
import { runDoctor } from './doctor.ts';
import { oneLineError } from './lease.ts';
import type { LeaseEndOptions } from './lease-ends.ts';
import { runStatus } from './status.ts';
import { runGc } from './sweep.ts';

export interface CommandOptions {
  command: Command;
  dryRun: boolean;
  reclaimDirty: boolean;
  maxSlots: number;
  leaseMs: number;
  deadlineAt: number;
  pullRequest: number | undefined;
  /** acquire: the pull request's lease, the wait for a free slot, the sticky comment. */
  pullRequestLeaseMs: number;
  /** acquire signs in with the job's OIDC token, so it leases as `<owner>/<name>/pr-<n>`. */
  oidc: boolean;
  waitMs: number;
  comment: boolean;
  /** acquire: the app's wrangler config, read and placed, to write for the slot. */
  wranglerConfig?: SlotWranglerConfig | undefined;
  /** gc: the warning before reclaim and the keep label. */
  leaseEnds: Omit<LeaseEndOptions, 'dryRun'>;
}

type ReportBody = Omit<RunReport, 'startedAt' | 'durationMs'>;

function dispatch(ctx: CommandContext, options: CommandOptions): Promise<ReportBody> {
  switch (options.command) {
    case 'gc':
      return runGc(ctx, options);
    case 'cleanup':
      if (options.pullRequest === undefined) throw new Error('cleanup needs the pull request number');
      return runCleanup(ctx, {
        pullRequest: options.pullRequest,
        dryRun: options.dryRun,
        leaseMs: options.leaseMs,
      });
    case 'status':
      return runStatus(ctx);
    case 'doctor':
      return runDoctor(ctx, { leaseMs: options.pullRequestLeaseMs });
    case 'acquire':
      if (options.pullRequest === undefined) throw new Error('acquire needs the pull request number');
      return runAcquire(ctx, {
        pullRequest: options.pullRequest,
        leaseMs: options.pullRequestLeaseMs,
        waitMs: options.waitMs,
        comment: options.comment,
        wranglerConfig: options.wranglerConfig,
        oidc: options.oidc,
      });
  }
}

/**
 * A report for a run that failed before it produced one of its own, or (without a problem) was
 * stopped by a signal before it started.
 */
export function failedRunReport(
  options: Pick<CommandOptions, 'command' | 'dryRun' | 'pullRequest'>,
  pool: string,
  problem?: string,
): ReportBody {
  return {
    command: options.command,
    dryRun: options.dryRun,
    pool,
    problems: problem === undefined ? [] : [problem],
    leftForNextRun: 0,
    expired: 0,
    slots: [],
    poolAfter: null,
    semaphoreRequests: 0,
    cloudflare: null,
    ...(options.pullRequest === undefined ? {} : { pullRequest: options.pullRequest }),
  };
}

export async function dispatchCommand(ctx: CommandContext, options: CommandOptions): Promise<RunReport> {
  const startedAt = ctx.now();
  let body: ReportBody;
  try {
    // A signal that came while the config was read and validated stops the run before any call.
    body = ctx.signal.aborted ? failedRunReport(options, ctx.pool) : await dispatch(ctx, options);
  } catch (error) {
    body = {
      ...failedRunReport(
        options,
        ctx.pool,
        `The run stopped: ${semaphoreRefusedToken(error, ctx.place) ?? oneLineError(error)}`,
      ),
      semaphoreRequests: ctx.semaphore.requestCount,
      cloudflare: ctx.cloudflareUsage(),
    };
  }
  const interruptedBy = ctx.signal.aborted ? String(ctx.signal.reason ?? 'a signal') : undefined;
  return {
    ...body,
    ...(interruptedBy === undefined ? {} : { interruptedBy }),
    startedAt: new Date(startedAt).toISOString(),
    durationMs: ctx.now() - startedAt,
  };
}

// gc and cleanup add the Worker Previews sweep to their report: its rows, and a warning for every
// preview that shares a store with production or could not be deleted. The sweep's module (and the
// Cloudflare SDK with it) is loaded only here, for a config with `worker-previews`.
import type { RunReport, WorkerPreviewsSweep } from '../report/model.ts';
import { visible } from '../text/log-text.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';

type Report = Omit<RunReport, 'startedAt' | 'durationMs'>;

/**
 * What a person must know about the sweep: shared stores, failed deletes, what stood in the way. Names
 * and binding values are Cloudflare's answers (anyone who may run `wrangler preview` names a preview):
 * shown on one line, control characters spelled out.
 */
export function workerPreviewWarnings(sweeps: readonly WorkerPreviewsSweep[]): string[] {
  return sweeps.flatMap((sweep) => {
    const of = `of '${visible(sweep.worker)}'`;
    return [
      ...(sweep.problem === undefined ? [] : [`Worker Previews ${of}: ${visible(sweep.problem)}.`]),
      ...sweep.previews.flatMap((row) => [
        ...(row.sharesWithProduction.length === 0
          ? []
          : [
              `Worker Preview '${visible(row.name)}' ${of} binds what production binds: ${visible(row.sharesWithProduction.join('; '))}. A preview's writes land in production's data; give its \`previews\` block its own stores.`,
            ]),
        ...(row.action === 'delete-failed'
          ? [`Worker Preview '${visible(row.name)}' ${of} was not deleted: ${visible(row.why)}.`]
          : []),
      ]),
    ];
  });
}

/** The report with the sweep of every Worker in `worker-previews` (gc), or of the closing pull request's previews (cleanup). */
export async function withWorkerPreviews(
  ctx: CommandContext,
  report: Report,
  dryRun: boolean,
  mode: 'gc' | { pullRequest: number },
): Promise<Report> {
  const access = ctx.workerPreviews;
  if (access === undefined) return report;
  const warnings = [...(report.warnings ?? [])];
  let workerPreviews: WorkerPreviewsSweep[];
  try {
    const sweep = await import('./worker-previews.ts');
    workerPreviews =
      mode === 'gc'
        ? await sweep.sweepWorkerPreviews(ctx, access, dryRun, warnings)
        : await sweep.deletePullRequestPreviews(
            ctx,
            access,
            mode.pullRequest,
            await headRefOf(ctx, mode.pullRequest, warnings),
            dryRun,
          );
  } catch (error) {
    warnings.push(`Worker Previews were not swept: ${oneLineError(error)}`);
    return { ...report, warnings };
  }
  return {
    ...report,
    warnings: [...warnings, ...workerPreviewWarnings(workerPreviews)],
    workerPreviews,
    cloudflare: ctx.cloudflareUsage(),
  };
}

/** The closing pull request's head branch, what a preview `wrangler preview` made for it is named; undefined when GitHub cannot say. */
async function headRefOf(
  ctx: CommandContext,
  pullRequest: number,
  warnings: string[],
): Promise<string | undefined> {
  if (ctx.github === undefined || ctx.github === null) return undefined;
  try {
    return (await ctx.github.get(pullRequest)).headRef;
  } catch (error) {
    warnings.push(
      `Worker Previews: the branch of pull request #${pullRequest} could not be read (${oneLineError(error)}), so only a preview named pr-${pullRequest} was looked for.`,
    );
    return undefined;
  }
}

// gc's sweep of Cloudflare's own Worker Previews (`worker-previews` in the slot config), and cleanup's
// delete of a closing pull request's preview. Cloudflare gives previews no TTL and deletes none when a
// pull request closes; this does. For each Worker: one listing of its previews, one read per preview of
// its latest deployment, the repository's pull requests in pages of 100 (shared by every Worker of the
// run), production's settings once when some preview binds a store; then the deletes, and a second
// listing that shows which previews are gone. Every call goes through the run's pacer (budget, rate,
// deadline). The plan itself is worker-previews-plan.ts; a dry run takes the same path up to the deletes.
// Loaded on first use (it brings the Cloudflare SDK): a config without `worker-previews` never loads it.
import { CloudflareCallError, DEFERRING_REASONS } from '../cloudflare/call-error.ts';
import type { CloudflareApi } from '../cloudflare/client.ts';
import type { WorkerPreviewsEntry } from '../config/worker-previews-config.ts';
import type { ListedPullRequest } from '../github/pull-requests.ts';
import { workerBindings } from '../kinds/workers/api.ts';
import {
  deleteWorkerPreview,
  isPreviewMissing,
  latestPreviewDeployment,
  listWorkerPreviews,
  type PreviewDeployment,
  type WorkerPreview,
} from '../kinds/workers/versions-api.ts';
import type {
  RunReport,
  WorkerPreviewAction,
  WorkerPreviewRow,
  WorkerPreviewsSweep,
} from '../report/model.ts';
import type { CommandContext, WorkerPreviewsAccess } from './context.ts';
import { oneLineError } from './error-line.ts';
import {
  allTied,
  bindsAStore,
  type PlannedRow,
  planWorkerPreviews,
  pullRequestOfPreview,
  sharedWithProduction,
} from './worker-previews-plan.ts';

/** Pages of 100 pull requests read at most a run: the 1,000 most recently updated. */
const MAX_PULL_REQUEST_PAGES = 10;

interface ListedWorker {
  entry: WorkerPreviewsEntry;
  previews: WorkerPreview[];
}

const timeOf = (iso: string | undefined): number | undefined => {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
};

function deferred(error: unknown): boolean {
  return error instanceof CloudflareCallError && DEFERRING_REASONS.has(error.reason);
}

/** The repository's pull requests, enough pages to tie every preview; null without GitHub (said once). */
async function readPullRequests(
  ctx: CommandContext,
  names: readonly string[],
  warnings: string[],
): Promise<ListedPullRequest[] | null> {
  if (names.length === 0) return null;
  if (ctx.github === undefined) {
    warnings.push(
      'Worker Previews: the CLI reads no pull requests, so previews were deleted only past their ttl or beyond max; the action does, with a github-token (pull-requests: read).',
    );
    return null;
  }
  if (ctx.github === null) {
    warnings.push(
      'Worker Previews: without a github-token (pull-requests: read) gc cannot tell which pull requests closed, so previews were deleted only past their ttl or beyond max.',
    );
    return null;
  }
  try {
    return await ctx.github.list({
      maxPages: MAX_PULL_REQUEST_PAGES,
      enough: (sofar) => allTied(names, sofar),
    });
  } catch (error) {
    warnings.push(
      `Worker Previews: the pull requests could not be read (${oneLineError(error)}), so previews were deleted only past their ttl or beyond max.`,
    );
    return null;
  }
}

/** Each preview's latest deployment; undefined for one not read (out of time or budget). */
async function readDeployments(
  api: CloudflareApi,
  worker: string,
  previews: readonly WorkerPreview[],
): Promise<{ deployments: Map<string, PreviewDeployment | undefined>; unread: string | undefined }> {
  const deployments = new Map<string, PreviewDeployment | undefined>();
  for (const preview of previews) {
    try {
      deployments.set(preview.id, await latestPreviewDeployment(api, worker, preview.id));
    } catch (error) {
      return { deployments, unread: oneLineError(error) };
    }
  }
  return { deployments, unread: undefined };
}

/** The stores of production's deployment, read only when a live preview binds one. */
async function productionStores(
  api: CloudflareApi,
  worker: string,
  live: readonly (PreviewDeployment | undefined)[],
): Promise<Record<string, unknown>[] | string> {
  if (!live.some((deployment) => deployment !== undefined && bindsAStore(deployment.bindings))) return [];
  try {
    return await workerBindings(api, worker);
  } catch (error) {
    return `production's bindings could not be read (${oneLineError(error)}), so what the previews share with it is unknown`;
  }
}

type Outcome = { action: WorkerPreviewAction; why?: string };

/** What became of one planned preview: kept, a dry run's "would delete", or the delete's outcome. */
async function outcomeOf(
  ctx: CommandContext,
  access: WorkerPreviewsAccess,
  api: CloudflareApi,
  worker: string,
  row: PlannedRow & { id: string },
  dryRun: boolean,
): Promise<Outcome> {
  if (row.decision === 'keep') return { action: 'kept' };
  if (dryRun) return { action: 'would-delete' };
  if (ctx.signal.aborted || ctx.now() >= access.deadlineAt)
    return { action: 'deferred', why: `${row.why}; not deleted: the run reached its deadline` };
  try {
    await deleteWorkerPreview(api, worker, row.id);
    return { action: 'deleted' };
  } catch (error) {
    // Already gone (cleanup and gc may race, or a person deleted it): what the delete wanted.
    if (isPreviewMissing(error)) return { action: 'deleted' };
    return {
      action: deferred(error) ? 'deferred' : 'delete-failed',
      why: `${row.why}; the delete failed: ${oneLineError(error)}`,
    };
  }
}

/** Deletes the planned previews (unless a dry run), then lists again: a delete counts once it is gone. */
async function carryOut(
  ctx: CommandContext,
  access: WorkerPreviewsAccess,
  api: CloudflareApi,
  worker: string,
  planned: readonly (PlannedRow & { id: string })[],
  dryRun: boolean,
): Promise<{ actions: Map<string, Outcome>; problem?: string }> {
  const actions = new Map<string, Outcome>();
  for (const row of planned) actions.set(row.id, await outcomeOf(ctx, access, api, worker, row, dryRun));
  const deleted = [...actions.entries()].filter(([, entry]) => entry.action === 'deleted');
  if (deleted.length === 0) return { actions };
  // The read-back: what is listed now, by a listing that shares nothing with the deletes.
  try {
    const left = new Set((await listWorkerPreviews(api, worker)).map((preview) => preview.id));
    for (const [id] of deleted)
      if (left.has(id))
        actions.set(id, {
          action: 'delete-failed',
          why: 'still listed after the delete; the next sweep tries again',
        });
    return { actions };
  } catch (error) {
    return {
      actions,
      problem: `the previews could not be listed again to confirm the deletes (${oneLineError(error)})`,
    };
  }
}

/** The rows of the report, in the listing's order. */
function rowsOf(
  planned: readonly (PlannedRow & { id: string })[],
  actions: ReadonlyMap<string, Outcome>,
  shares: (row: PlannedRow & { id: string }, action: WorkerPreviewAction) => string[],
): WorkerPreviewRow[] {
  return planned.map((row) => {
    const { action, why } = actions.get(row.id) ?? { action: 'kept' as const };
    return {
      name: row.name,
      pullRequest: row.pullRequest,
      lastDeployment: row.lastDeployment,
      action,
      why: why ?? row.why,
      sharesWithProduction: shares(row, action),
    };
  });
}

/** gc: sweeps the previews of every Worker in `worker-previews`. */
export async function sweepWorkerPreviews(
  ctx: CommandContext,
  access: WorkerPreviewsAccess,
  dryRun: boolean,
  warnings: string[],
): Promise<WorkerPreviewsSweep[]> {
  const api = await access.api();
  const listed: (ListedWorker | WorkerPreviewsSweep)[] = [];
  for (const entry of access.entries) {
    try {
      listed.push({ entry, previews: await listWorkerPreviews(api, entry.worker) });
    } catch (error) {
      listed.push({
        worker: entry.worker,
        previews: [],
        problem: `its Worker Previews could not be listed: ${oneLineError(error)}`,
      });
    }
  }
  const names = listed.flatMap((worker) => ('entry' in worker ? worker.previews.map((p) => p.name) : []));
  const pulls = await readPullRequests(ctx, names, warnings);
  const sweeps: WorkerPreviewsSweep[] = [];
  for (const worker of listed) {
    if (!('entry' in worker)) {
      sweeps.push(worker);
      continue;
    }
    sweeps.push(await sweepWorker(ctx, access, api, worker, pulls, dryRun));
  }
  return sweeps;
}

async function sweepWorker(
  ctx: CommandContext,
  access: WorkerPreviewsAccess,
  api: CloudflareApi,
  { entry, previews }: ListedWorker,
  pulls: readonly ListedPullRequest[] | null,
  dryRun: boolean,
): Promise<WorkerPreviewsSweep> {
  const { deployments, unread } = await readDeployments(api, entry.worker, previews);
  // A preview whose deployment was not read is not judged: kept, and the next sweep reads it.
  const read = previews.filter((preview) => deployments.has(preview.id));
  const plan = planWorkerPreviews(
    entry,
    read.map((preview) => {
      const deployment = deployments.get(preview.id);
      return {
        name: preview.name,
        lastActiveAt: timeOf(deployment?.createdOn ?? preview.updatedOn ?? preview.createdOn),
        lastDeployment: deployment?.createdOn ?? null,
      };
    }),
    pulls,
    ctx.now(),
    access.protection(entry.worker),
  ).map((row, index) => ({ ...row, id: read[index]?.id ?? '' }));
  const { actions, problem } = await carryOut(ctx, access, api, entry.worker, plan, dryRun);
  const live = plan.filter((row) => !['deleted', 'would-delete'].includes(actions.get(row.id)?.action ?? ''));
  const production = await productionStores(
    api,
    entry.worker,
    live.map((row) => deployments.get(row.id)),
  );
  const rows = rowsOf(plan, actions, (row, action) =>
    typeof production === 'string' || action === 'deleted' || action === 'would-delete'
      ? []
      : sharedWithProduction(deployments.get(row.id)?.bindings ?? {}, production),
  );
  const notRead = previews
    .filter((preview) => !deployments.has(preview.id))
    .map(
      (preview): WorkerPreviewRow => ({
        name: preview.name,
        pullRequest: pullRequestOfPreview(preview.name, pulls),
        lastDeployment: null,
        action: 'deferred',
        why: 'its latest deployment was not read this run; the next sweep judges it',
        sharesWithProduction: [],
      }),
    );
  const problems = [
    ...(unread === undefined ? [] : [`reading the previews' deployments stopped: ${unread}`]),
    ...(typeof production === 'string' ? [production] : []),
    ...(problem === undefined ? [] : [problem]),
  ];
  return {
    worker: entry.worker,
    previews: [...rows, ...notRead],
    ...(problems.length === 0 ? {} : { problem: problems.join('; ') }),
  };
}

/**
 * cleanup: deletes the closing pull request's preview of every Worker in `worker-previews`, the one
 * named `pr-<n>` or after its head branch (`headRef`, when GitHub said it). A preview already gone is fine.
 */
export async function deletePullRequestPreviews(
  ctx: CommandContext,
  access: WorkerPreviewsAccess,
  pullRequest: number,
  headRef: string | undefined,
  dryRun: boolean,
): Promise<WorkerPreviewsSweep[]> {
  const api = await access.api();
  const names = new Set([`pr-${pullRequest}`, ...(headRef === undefined ? [] : [headRef])]);
  const sweeps: WorkerPreviewsSweep[] = [];
  for (const entry of access.entries) {
    let previews: WorkerPreview[];
    try {
      previews = (await listWorkerPreviews(api, entry.worker)).filter((preview) => names.has(preview.name));
    } catch (error) {
      sweeps.push({
        worker: entry.worker,
        previews: [],
        problem: `its Worker Previews could not be listed: ${oneLineError(error)}`,
      });
      continue;
    }
    const plan = planWorkerPreviews(
      // Closing is the reason: ttl and max do not apply to this one delete.
      { ...entry, ttlSeconds: Number.MAX_SAFE_INTEGER / 1000, max: undefined },
      previews.map((preview) => ({ name: preview.name, lastActiveAt: undefined, lastDeployment: null })),
      previews.map((preview) => ({
        number: pullRequest,
        title: '',
        state: 'closed' as const,
        headRef: preview.name,
      })),
      ctx.now(),
      access.protection(entry.worker),
    ).map((row, index) => ({
      ...row,
      id: previews[index]?.id ?? '',
      why: row.decision === 'delete' ? `pull request #${pullRequest} closed` : row.why,
    }));
    const { actions, problem } = await carryOut(ctx, access, api, entry.worker, plan, dryRun);
    sweeps.push({
      worker: entry.worker,
      previews: rowsOf(plan, actions, () => []),
      ...(problem === undefined ? {} : { problem }),
    });
  }
  return sweeps;
}

/** status: how many previews each Worker in `worker-previews` has, one listing each. */
export async function countWorkerPreviews(
  access: WorkerPreviewsAccess,
): Promise<NonNullable<RunReport['workerPreviewCounts']>> {
  const api = await access.api();
  const counts: NonNullable<RunReport['workerPreviewCounts']> = [];
  for (const { worker } of access.entries) {
    try {
      counts.push({ worker, previews: (await listWorkerPreviews(api, worker)).length });
    } catch (error) {
      counts.push({ worker, previews: null, problem: `not listed: ${oneLineError(error)}` });
    }
  }
  return counts;
}

// doctor: every slot of the pool against the config, the account and the lease, read-only. What a
// sweep or a deploy would only find out slot by slot, later (a resource renamed by hand, a name the
// config refuses, a slot that needs repair, a closed pull request's lease, a lease far longer than
// lease-minutes), in one table, and a failed run when a person must act.
import type { PullRequestInfo } from '../github/pull-requests.ts';
import { formatDuration, pullRequestOf } from '../report/format.ts';
import type { DoctorFinding, DoctorRow, PoolRow, RunReport } from '../report/model.ts';
import { needsRepair } from '../report/model.ts';
import type { Slot } from '../semaphore/protocol.ts';
import { quoted } from '../text/log-text.ts';
import { shellCommand } from '../text/shell.ts';
import { type CommandContext, emptyPoolProblem, poolRowsOf } from './context.ts';
import { oneLineError } from './error-line.ts';
import { forceReleaseStep } from './lease.ts';
import { livePullRequestHolders, lookUpPullRequests, pullRequestLabels } from './pull-request-holders.ts';
import { withWorkerPreviews } from './worker-previews-report.ts';

export interface DoctorOptions {
  /** The pull request's lease (`lease-minutes`): leases far beyond it are a finding. */
  leaseMs: number;
}

type ReportBody = Omit<RunReport, 'startedAt' | 'durationMs'>;

/** A live lease that ends more than this many leases from now was not given by lease-minutes. */
const FAR_BEYOND_LEASES = 2;

const problem = (text: string, fix?: string): DoctorFinding => ({
  severity: 'problem',
  text,
  ...(fix === undefined ? {} : { fix }),
});
const note = (text: string): DoctorFinding => ({ severity: 'note', text });

/** What the config says of the slot's names (refused), and whether the account has its resources. */
async function resourceFindings(
  ctx: Pick<CommandContext, 'resources'>,
  slug: string,
  refusal: string | null,
): Promise<{ findings: DoctorFinding[]; resources: DoctorRow['resources'] }> {
  if (refusal !== null) {
    return {
      findings: [
        problem(
          `the slot config refuses it, so no run will erase it or hand it to a deploy: ${refusal}`,
          'Fix the slot config (see the message), or rename or remove the slot.',
        ),
      ],
      resources: null,
    };
  }
  if (!ctx.resources) return { findings: [], resources: null };
  const presence = await ctx.resources.presence(slug);
  return {
    findings: presence.missing.map((resource) =>
      problem(
        `the ${resource} does not exist in the account`,
        'Create it, or fix the template in the slot config; until then every erase of the slot fails.',
      ),
    ),
    resources: { present: presence.named - presence.missing.length, named: presence.named },
  };
}

/** What the slot's lease and its erases say: needs repair, dirty, a closed pull request, a lease far too long. */
function leaseFindings(
  slot: Slot,
  now: number,
  leaseMs: number,
  pullRequests: ReadonlyMap<number, PullRequestInfo>,
  repository: string | undefined,
): DoctorFinding[] {
  const findings: DoctorFinding[] = [];
  const last = slot.lastEraseFailure;
  // The semaphore keeps what the erase reported, which a pull request's code can word: a quoted field.
  const lastFailure = last === null ? '' : `, last in ${quoted(last.step)}: ${quoted(last.message)}`;
  if (needsRepair(slot)) {
    findings.push(
      problem(
        `needs repair: its erase failed ${slot.eraseFailures} times in a row${lastFailure}; deploys are not given it`,
        'Fix what the failing step says, then run preview-gc gc; the first erase that works clears the mark.',
      ),
    );
  } else if (slot.eraseFailures > 0) {
    findings.push(note(`its last erase failed${lastFailure}; the next gc tries again`));
  }
  const endsInMs = slot.leasedUntil === null ? null : slot.leasedUntil - now;
  const live = slot.leaseState === 'leased' && !slot.expired;
  const pullRequest = live ? pullRequestOf(slot.holder, repository) : null;
  const state = pullRequest === null ? undefined : pullRequests.get(pullRequest)?.state;
  if (pullRequest !== null && state !== undefined && state !== 'open') {
    findings.push(
      problem(
        `held by ${slot.holder}, whose pull request is ${state}: its cleanup did not run, and the slot is kept from the pool until the lease ends`,
        `${shellCommand(['preview-gc', 'cleanup', '--pr', String(pullRequest)]) ?? 'preview-gc cleanup'}   # or the next gc, with pull-requests: read, releases it`,
      ),
    );
  }
  if (live && endsInMs !== null && endsInMs > FAR_BEYOND_LEASES * leaseMs) {
    findings.push(
      problem(
        `its lease ends in ${formatDuration(endsInMs)}, far beyond lease-minutes (${formatDuration(leaseMs)}): it was taken with a longer lease (a workflow that still sets lease-minutes, or by hand), and the slot is kept from the pool until then`,
        `Drop the longer lease-minutes from the workflow; once nobody uses the slot, ${forceReleaseStep(slot)}`,
      ),
    );
  }
  if (slot.expired && endsInMs !== null) {
    const ago = formatDuration(-endsInMs);
    findings.push(
      -endsInMs > leaseMs
        ? problem(
            `its lease ended ${ago} ago and no gc has taken it back`,
            'Check that the hourly preview-gc workflow runs (and what its last summary says), or run preview-gc gc.',
          )
        : note(`its lease ended ${ago} ago; the next gc takes it back`),
    );
  }
  if (slot.dirty && slot.leaseState === 'available' && !needsRepair(slot)) {
    findings.push(note('dirty: the next gc, or its next acquirer, erases it'));
  }
  return findings;
}

async function doctorRow(
  ctx: Pick<CommandContext, 'resources' | 'repository'>,
  slot: Slot,
  row: PoolRow,
  now: number,
  refusal: string | null,
  options: DoctorOptions,
  pullRequests: ReadonlyMap<number, PullRequestInfo>,
): Promise<DoctorRow> {
  const { findings, resources } = await resourceFindings(ctx, slot.slug, refusal);
  const { slug, leaseState, holder, expired, leaseEndsInMs, dirty } = row;
  return {
    ...{ slug, leaseState, holder, expired, leaseEndsInMs, dirty },
    resources,
    findings: [...findings, ...leaseFindings(slot, now, options.leaseMs, pullRequests, ctx.repository)],
  };
}

/** Why the slots' resources are not looked for, or null when they are. */
function resourcesNotChecked(ctx: CommandContext): string | null {
  if (ctx.resources) return null;
  const token = ctx.place.describeInput('cloudflare-api-token');
  const account = ctx.place.describeInput('cloudflare-account-id');
  return `Not checked that the slots' Cloudflare resources exist: give ${token} and ${account} to check them (one listing per kind).`;
}

export async function runDoctor(ctx: CommandContext, options: DoctorOptions): Promise<ReportBody> {
  const listing = await ctx.semaphore.list(ctx.pool);
  ctx.progress({ kind: 'listed', slots: listing.resources.length, selected: listing.resources.length });
  const warnings: string[] = [];
  const report = (fields: Partial<ReportBody>): ReportBody => ({
    command: 'doctor',
    dryRun: false,
    pool: ctx.pool,
    problems: [],
    warnings,
    leftForNextRun: 0,
    expired: listing.resources.filter((slot) => slot.expired).length,
    slots: [],
    poolAfter: null,
    ...fields,
    semaphoreRequests: ctx.semaphore.requestCount,
    cloudflare: ctx.cloudflareUsage(),
    ...pullRequestLabels(ctx),
  });
  if (listing.resources.length === 0)
    return report({ problems: [await emptyPoolProblem(ctx, 'so there is nothing to check')] });

  // What the config says of each slot, read before the credential check (after a refusal of the
  // credentials, the eraser refuses every slot for that reason instead).
  const poolSlugs = listing.resources.map((slot) => slot.slug);
  const refusals = poolSlugs.map((slug) => ctx.eraser.refusal(slug, poolSlugs));
  // Credentials Cloudflare refuses are one problem of the run, not one per slot and resource.
  const credentials = ctx.resources
    ? await ctx.eraser.checkCredentials("the slots' resources were not checked")
    : null;
  const unchecked =
    credentials === null
      ? resourcesNotChecked(ctx)
      : "Not checked that the slots' Cloudflare resources exist: Cloudflare refused the credentials (see above).";
  if (credentials === null && unchecked !== null) warnings.push(unchecked);
  if (ctx.github === undefined) {
    warnings.push(
      "Not checked whether the holders' pull requests closed: the CLI reads no pull requests; the action's doctor does, with a github-token that has pull-requests: read.",
    );
  }
  const pullRequests = await lookUpPullRequests(
    ctx,
    livePullRequestHolders(listing.resources, ctx.repository),
    warnings,
    "doctor cannot tell whether a holder's pull request closed",
  );
  const checked = { resources: credentials === null ? ctx.resources : null };
  const poolRows = poolRowsOf(listing);
  const rows: DoctorRow[] = [];
  try {
    for (const [index, slot] of listing.resources.entries()) {
      const row = poolRows[index] as PoolRow;
      const refusal = refusals[index] ?? null;
      rows.push(await doctorRow(checked, slot, row, listing.now, refusal, options, pullRequests));
    }
  } catch (error) {
    return report({
      problems: [`The check stopped: ${oneLineError(error)}; nothing was changed, run it again.`],
    });
  }
  const checkedReport = report({
    problems: credentials === null ? [] : [credentials],
    doctor: { leaseMinutes: Math.round(options.leaseMs / 60_000), resourcesNotChecked: unchecked, rows },
  });
  // The Worker Previews as a dry-run sweep plans them: what gc would delete, and what each shares with production.
  return withWorkerPreviews(ctx, checkedReport, true, 'gc');
}

// acquire: the deploy job's half of the lifecycle. A pull request gets one slot (the one it holds,
// its lease extended, or a free one), erased first when it held someone else's data, and the deploy
// gets the slot's names as outputs. Never by force; a closed pull request gets nothing; when no slot
// can be had, the failure shows the pool: who holds each slot, until when, and which holders are
// closed pull requests.
import { GitHubError } from '../github/github-error.ts';
import { slotNumberOf } from '../kinds/name-template.ts';
import type { IncomingDeploy } from '../kinds/step.ts';
import type { AcquiredResources, RunReport, SharedBindingRow } from '../report/model.ts';
import { needsRepair } from '../report/model.ts';
import { pullRequestHolder } from '../semaphore/holders.ts';
import type { ListAnswer } from '../semaphore/protocol.ts';
import { postSlotComment } from './acquire-comment.ts';
import { eraseBeforeHandOver, eraseNeededFor, releaseUnerased } from './acquire-erase.ts';
import { type TakenSlot, takeSlot } from './acquire-slot.ts';
import { postLeftLineComment, waitingCommenter } from './acquire-waiting.ts';
import { type CommandContext, listPoolRows, poolRowsOf } from './context.ts';
import { oneLineError } from './error-line.ts';
import { workThroughSlots } from './lease.ts';
import type { PreviewUrlAnswer } from './preview-url.ts';
import {
  livePullRequestHolders,
  lookUpPullRequests,
  pullRequestLabels,
  pullRequestsUnreadableWarning,
  warnOnce,
} from './pull-request-holders.ts';

export interface AcquireOptions {
  pullRequest: number;
  /** The pull request's lease: how long it keeps the slot without a new push. */
  leaseMs: number;
  /** How long to keep asking when no slot can be had; 0 asks once. */
  waitMs: number;
  comment: boolean;
  /** Signed in with the job's OIDC token: the semaphore knows the repository, and the holder names it. */
  oidc?: boolean;
  /** The app's wrangler config, when the deploy has one: written for the slot it gets. */
  wranglerConfig?: SlotWranglerConfig | undefined;
}

/** The app's wrangler config as acquire uses it (read and placed before any slot is taken). */
export interface SlotWranglerConfig {
  /** What the deploy declares, which the erase before it keeps (its container classes). */
  incoming: IncomingDeploy;
  /** Bindings the preview shares with what they name, on purpose: in the summary and the comment. */
  shared: readonly SharedBindingRow[];
  /** Said once in the summary (the production vars the preview would run with). */
  warnings: readonly string[];
  /** Writes the config for the slot, its names and ids; its path. */
  write(slug: string, resources: AcquiredResources): Promise<string>;
}

type ReportBody = Omit<RunReport, 'startedAt' | 'durationMs'>;

/** What acquire does without GitHub's answers, in the warning that says the token cannot read them. */
const WITHOUT_PULL_REQUESTS =
  'acquire cannot tell whether this pull request, or one that holds a slot, has closed, and acquired anyway';

/** A closed pull request gets no slot: a deploy that outlived the close must not take one for it. */
async function closedProblem(
  ctx: CommandContext,
  pullRequest: number,
  warnings: string[],
): Promise<string | null> {
  const github = ctx.github;
  if (!github) return null;
  try {
    const { state } = await github.get(pullRequest);
    if (state === 'open') return null;
    return `Pull request #${pullRequest} is ${state}: no slot was acquired, so a deploy that runs after the close cannot hold one for it. Nothing to do; the cleanup workflow releases any slot it still holds.`;
  } catch (error) {
    // The pull request the run deploys exists: refused, or not found, the token cannot read it.
    if (error instanceof GitHubError && (error.failure === 'refused' || error.failure === 'not-found')) {
      warnOnce(warnings, pullRequestsUnreadableWarning(error.status, WITHOUT_PULL_REQUESTS));
      return null;
    }
    warnings.push(
      `Could not tell whether pull request #${pullRequest} is still open (${oneLineError(error)}); acquiring anyway.`,
    );
    return null;
  }
}

/** What a run that got no slot reports: why, the pool as it is now, and where in line it waited. */
async function noSlotFields(
  ctx: CommandContext,
  options: AcquireOptions,
  taken: TakenSlot,
  wait: { holder: string; waitedMs: number },
  warnings: string[],
): Promise<Partial<ReportBody>> {
  // The pool as it is now, not as the last attempt saw it (others may have taken slots meanwhile).
  const listing = await ctx.semaphore.list(ctx.pool).catch(() => taken.listing);
  const holders = livePullRequestHolders(listing.resources, ctx.repository);
  const states = await lookUpPullRequests(ctx, holders, warnings, WITHOUT_PULL_REQUESTS);
  const closedHolders = holders.filter((number) => (states.get(number)?.state ?? 'open') !== 'open');
  const problem = ctx.signal.aborted
    ? 'Stopped while waiting for a slot; nothing was acquired.'
    : noSlotProblem(ctx, wait.holder, listing, closedHolders, options.waitMs > 0 ? wait.waitedMs : 0);
  if (taken.place !== null && options.comment)
    await postLeftLineComment(ctx, options.pullRequest, taken.place, warnings);
  return {
    problems: [problem],
    poolAfter: poolRowsOf(listing),
    ...(taken.place === null ? {} : { inLine: taken.place }),
  };
}

function noSlotProblem(
  ctx: CommandContext,
  holder: string,
  listing: ListAnswer,
  closed: readonly number[],
  waitedMs: number,
): string {
  const slots = listing.resources;
  const repair = slots.filter(needsRepair).map((slot) => slot.slug);
  const held = slots.filter((slot) => slot.leaseState === 'leased' && !slot.expired).length;
  const waited = waitedMs > 0 ? ` after waiting ${Math.round(waitedMs / 1000)} s` : '';
  const parts = [
    slots.length === 0
      ? `Pool ${ctx.pool} has no slots: add them with preview-gc slots sync.`
      : `No slot of pool ${ctx.pool} could be had for ${holder}${waited}: ${held} of ${slots.length} are held by live leases.`,
  ];
  if (repair.length > 0) {
    parts.push(
      `${repair.join(', ')} ${repair.length === 1 ? 'needs' : 'need'} repair (the erase failed twice in a row) and ${repair.length === 1 ? 'is' : 'are'} not handed to deploys; the summary says what to fix.`,
    );
  }
  if (closed.length > 0) {
    const names = closed.map((number) => `#${number}`).join(', ');
    parts.push(
      `Pull request${closed.length === 1 ? '' : 's'} ${names} ${closed.length === 1 ? 'is' : 'are'} closed but still ${closed.length === 1 ? 'holds a slot' : 'hold slots'}: the next gc with a github-token releases ${closed.length === 1 ? 'it' : 'them'}, or run preview-gc cleanup --pr ${closed[0]} now.`,
    );
  }
  if (slots.length > 0) {
    parts.push(
      'Wait for a slot (input wait-minutes), add slots (preview-gc slots sync), or free one: the pool below says who holds each slot and until when.',
    );
  }
  return parts.join(' ');
}

export async function runAcquire(ctx: CommandContext, options: AcquireOptions): Promise<ReportBody> {
  const holder = pullRequestHolder(options.pullRequest, options.oidc === true ? ctx.repository : undefined);
  const warnings: string[] = [...deployWarningsOf(options.wranglerConfig)];
  const startedAt = ctx.now();
  const report = (fields: Partial<ReportBody>): ReportBody => ({
    command: 'acquire',
    dryRun: false,
    pool: ctx.pool,
    pullRequest: options.pullRequest,
    problems: [],
    warnings,
    leftForNextRun: 0,
    expired: 0,
    slots: [],
    poolAfter: null,
    ...fields,
    semaphoreRequests: ctx.semaphore.requestCount,
    cloudflare: ctx.cloudflareUsage(),
    ...pullRequestLabels(ctx),
  });

  const closed = await closedProblem(ctx, options.pullRequest, warnings);
  if (closed !== null) return report({ problems: [closed] });

  const taken = await takeSlot(ctx, {
    holder,
    leaseMs: options.leaseMs,
    waitUntil: startedAt + options.waitMs,
    ...(options.comment ? { onPlace: waitingCommenter(ctx, options.pullRequest, warnings) } : {}),
  });
  ctx.progress({
    kind: 'listed',
    slots: taken.listing.resources.length,
    selected: taken.lease === null ? 0 : 1,
  });
  if (taken.lease === null)
    return report(
      await noSlotFields(ctx, options, taken, { holder, waitedMs: ctx.now() - startedAt }, warnings),
    );

  const lease = taken.lease;
  const need = await eraseNeededFor(ctx, lease);
  // A slot the config refuses (a protected name, a template it cannot fill) is never handed over:
  // the erase path releases it, naming the refusal. A name another slot of the pool maps to too is such
  // a refusal, judged on the listing the acquire was made with.
  const poolSlugs = taken.listing.resources.map((slot) => slot.slug);
  const refused = ctx.eraser.refusal(lease.slug, poolSlugs) !== null;
  const expired = lease.tookExpired ? 1 : 0;
  const base = {
    slug: lease.slug,
    previousHolder: need.previousHolder,
    reason: need.reason,
    waitingMs: 0,
    erase: null,
  };
  // Before an erase: credentials Cloudflare refuses are said once, with their fix, rather than as every
  // step's 401 and a push to try another slot, and the slot goes back untouched. A clean slot meets the
  // same check when its resources are read for the deploy, below, and keeps its lease.
  const credentials =
    need.needed && !refused
      ? await ctx.eraser.checkCredentials(
          `${lease.slug} was not erased and no slot was handed over (the slot went back to the pool dirty, untouched)`,
        )
      : null;
  if (credentials !== null) {
    const unreleased = await releaseUnerased(ctx, base, lease);
    return report({
      problems: [credentials],
      expired,
      slots: unreleased === null ? [] : [{ ...unreleased, durationMs: 0 }],
      poolAfter: await listPoolRows(ctx),
    });
  }
  const slots =
    need.needed || refused
      ? await workThroughSlots(ctx, [{ slug: lease.slug }], () =>
          eraseBeforeHandOver(
            ctx,
            base,
            lease,
            options.leaseMs,
            warnings,
            poolSlugs,
            options.wranglerConfig?.incoming,
          ),
        )
      : [];
  const erased = slots[0];
  if (erased !== undefined && erased.outcome !== 'erased') {
    return report({
      problems: [
        `No slot was handed over: ${lease.slug} ${erased.problem ?? erased.outcome}. Push again (or re-run the job) to try another slot.`,
      ],
      expired,
      slots,
      poolAfter: await listPoolRows(ctx),
    });
  }

  // The ids the deploy binds: the run's listings (the erase's, or made now for a clean slot).
  const located = await ctx.eraser.resources(lease.slug);
  if ('problem' in located) {
    return report({
      problems: [unreadResourcesProblem(located, holder, lease.slug)],
      expired,
      slots,
      poolAfter: await listPoolRows(ctx),
    });
  }
  let wranglerConfig: string | undefined;
  try {
    wranglerConfig = await options.wranglerConfig?.write(lease.slug, located.resources);
  } catch (error) {
    return report({
      problems: [
        `The slot's wrangler config could not be written (${oneLineError(error)}). ${holder} keeps ${lease.slug} meanwhile (its lease stands). Fix: push again to try again.`,
      ],
      expired,
      slots,
      poolAfter: await listPoolRows(ctx),
    });
  }
  const url = await previewUrlOf(ctx, lease.slug, warnings);
  const acquired = {
    slug: lease.slug,
    slotNumber: slotNumberOf(lease.slug) ?? null,
    holder,
    leaseExpiresAt: new Date(lease.expiresAt).toISOString(),
    wasDirty: erased !== undefined,
    reused: lease.reused,
    generation: lease.generation,
    resources: located.resources,
    ...(wranglerConfig === undefined ? {} : { wranglerConfig }),
    ...sharedOf(options.wranglerConfig),
    ...url,
  };
  if (options.comment)
    await postSlotComment(ctx, options.pullRequest, acquired, need.previousHolder, warnings);
  return report({ expired, slots, acquired, poolAfter: await listPoolRows(ctx) });
}

/** The bindings the deploy shares on purpose, for the acquired slot: none is no field. */
function sharedOf(config: SlotWranglerConfig | undefined): { shared?: SharedBindingRow[] } {
  return config === undefined || config.shared.length === 0 ? {} : { shared: [...config.shared] };
}

function deployWarningsOf(config: SlotWranglerConfig | undefined): readonly string[] {
  return config?.warnings ?? [];
}

/**
 * The preview's address, or why it has none: never a failed acquire, since the deploy can go on
 * without it. What a person should fix (the subdomain unread, a name no URL can hold) is a warning too.
 */
async function previewUrlOf(
  ctx: CommandContext,
  slug: string,
  warnings: string[],
): Promise<{ url: string } | { noUrl: string } | Record<string, never>> {
  if (ctx.previewUrl === undefined) return {};
  let answer: PreviewUrlAnswer;
  try {
    answer = await ctx.previewUrl(slug);
  } catch (error) {
    answer = { why: `it could not be worked out (${oneLineError(error)})`, warning: true };
  }
  if ('url' in answer) return { url: answer.url };
  if (answer.warning)
    warnings.push(`The preview has no url: ${answer.why}. The slot is handed over all the same.`);
  return { noUrl: answer.why };
}

/** Why the slot's resources could not be read for its deploy, as one sentence or two, and the fix. */
function unreadResourcesProblem(
  located: { problem: string; nextStep: string | undefined },
  holder: string,
  slug: string,
): string {
  const problem = located.problem.endsWith('.') ? located.problem : `${located.problem}.`;
  const fix = located.nextStep === undefined ? '' : ` Fix: ${located.nextStep}`;
  return `${problem.charAt(0).toUpperCase()}${problem.slice(1)} ${holder} keeps ${slug} meanwhile (its lease stands).${fix}`;
}

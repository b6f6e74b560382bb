// What the commands (gc, cleanup, status, acquire) are given: clients and knobs, all passed in, none global.
import type { CloudflareApi } from '../cloudflare/client.ts';
import type { RunPlace } from '../config/run-place.ts';
import type { WorkerPreviewsEntry } from '../config/worker-previews-config.ts';
import type { GitHubPullRequests } from '../github/pull-requests.ts';
import type { IncomingDeploy } from '../kinds/step.ts';
import type {
  AcquiredResources,
  ApiUsageReport,
  EraseStepReport,
  LeaseCostView,
  PoolRow,
  QueuePlaceReport,
} from '../report/model.ts';
import type { SemaphoreClient } from '../semaphore/client.ts';
import type { Slot } from '../semaphore/protocol.ts';
import type { SpendSource } from '../spend/source.ts';
import { plural } from '../text/words.ts';
import type { NoticeSink } from './notices.ts';
import type { PreviewUrlAnswer } from './preview-url.ts';
import type { SlotResourcePresence } from './resource-presence.ts';

export interface EraseRequest {
  slug: string;
  /** Renews the run's lease; false means someone forced the slot away and the erase must stop. */
  fence: () => Promise<boolean>;
  /**
   * Asked before every Cloudflare request of the slot's own inside a step (not the name listings the
   * slots share, which only read); renews the lease when it is due. False means the lease can no
   * longer be proven and the step must stop before its next request.
   */
  fenceWithinStep?: () => Promise<boolean>;
  dryRun: boolean;
  /** acquire: what the deploy after the erase declares (its wrangler config's container classes). */
  incoming?: IncomingDeploy;
}

export interface EraseOutcome {
  /** `complete`: every step verified; only then is a slot released clean. */
  status: 'complete' | 'fenced' | 'deferred' | 'failed' | 'aborted';
  steps: EraseStepReport[];
  requests: number;
  /** What went wrong, for a person. */
  problem?: string;
  /** The exact next step for a person, when the erase cannot heal itself next sweep. */
  nextStep?: string;
  /**
   * The step that could not erase its resource, for a reason the next attempt would meet again (not
   * a rate limit, the budget, a lost lease or the network). A dirty release reports it to the
   * semaphore, which counts such failures in a row to flag a slot that needs repair.
   */
  failedStep?: { step: string; message: string };
}

/** One of a slot's Workers after a park for spend: `parked` only when the read-back found the parked code. */
export interface SpendParkOutcome {
  worker: string;
  state: 'parked' | 'running' | 'missing' | 'refused' | 'failed';
  summary: string;
}

export interface SlotEraser {
  /**
   * Why this slot's resources must not be touched (a protected name, a bad template, a name another
   * slot of `pool`, the listing's slugs, maps to as well), or null. No call is made.
   */
  refusal(slug: string, pool: readonly string[]): string | null;
  /** Erases one slot's resources in the order of docs/design.md#erasing-a-slot (compute, D1, KV, R2, Queues, Vectorize). */
  erase(request: EraseRequest): Promise<EraseOutcome>;
  /**
   * Checks the credentials once, before any slot is touched: what is wrong with them, what the run
   * did about it (`consequence`, "nothing was erased" unless given) and the fix, or null when they
   * work (or could not be checked: the erase then reports per slot). After a problem, `refusal`
   * refuses every slot.
   */
  checkCredentials(consequence?: string): Promise<string | null>;
  /**
   * gc: stops the compute of the slot's Workers keeping their data (a live lease parked for spend,
   * spend-park.ts), each read back. Absent where the run cannot (status, tests of other things).
   */
  parkForSpend?(slug: string): Promise<SpendParkOutcome[]>;
  /**
   * The slot's resources with the ids a deploy binds them by, read from the run's listings (one per
   * kind the config names, the ones the erase and the credential check share), after the credential
   * check; or what stands in the way (a resource the account does not have, a refused token) and the
   * fix.
   */
  resources(slug: string): Promise<SlotResourcesAnswer>;
}

/** doctor: which of a slot's resources the account has, from the run's listings (one per kind). */
export interface ResourceCheck {
  /** Throws a ConfigError for a slot the config refuses (check `refusal` first). */
  presence(slug: string): Promise<SlotResourcePresence>;
}

export type SlotResourcesAnswer =
  | { resources: AcquiredResources }
  | { problem: string; nextStep: string | undefined };

export type ProgressEvent =
  | { kind: 'listed'; slots: number; selected: number }
  | { kind: 'slot-started'; slug: string; index: number; total: number }
  | {
      kind: 'slot-finished';
      slug: string;
      index: number;
      total: number;
      outcome: string;
      durationMs: number;
    }
  /** acquire: no slot could be had; asking again after `retryInMs`; `place`: where it waits in the queue. */
  | { kind: 'waiting-for-slot'; pool: string; attempt: number; retryInMs: number; place?: QueuePlaceReport };

export interface CommandContext {
  pool: string;
  /** Where the pool's name came from, for a person: "the `pool:` key of .github/preview-slots.yml". */
  poolSource: string;
  /** Where the run was started, so messages name what to change there. */
  place: RunPlace;
  semaphore: SemaphoreClient;
  /** Makes no Cloudflare call until a slot is erased or its resources are read, so a quiet sweep's only one is the spend read. */
  eraser: SlotEraser;
  /** doctor: the slots' resources, looked for in the account; null without Cloudflare credentials. */
  resources?: ResourceCheck | null;
  /** Cloudflare usage so far, or null when the command has no Cloudflare client. */
  cloudflareUsage: () => ApiUsageReport | null;
  /**
   * Slots worked on at once (`parallel-slots`). Each holds its own lease; all share the pacer, so
   * more slots overlap slow calls but never exceed the run's rate, budget or deadline.
   */
  parallelSlots: number;
  /** Aborted on SIGINT/SIGTERM: stop every slot's current step, release each, report. */
  signal: AbortSignal;
  progress: (event: ProgressEvent) => void;
  now: () => number;
  /**
   * The pull requests behind `pr-<n>` holders. null: the action has no `github-token` (or no
   * repository), which its summary mentions; undefined: the CLI, which never reads pull requests.
   */
  github: GitHubPullRequests | null | undefined;
  /**
   * The run's repository (`owner/name`), when it has one: its pull requests hold leases as `pr-<n>`
   * or, signed in with OIDC, as `<owner>/<name>/pr-<n>`. Another repository's holders are not its own.
   */
  repository?: string | undefined;
  /**
   * gc and status: the spend read and what to do with it (commands/spend.ts); undefined: no spend at
   * all (acquire and cleanup, and tests of other things).
   */
  spend?: SpendContext | null;
  /** gc: where its notices go (`webhook-url`, notices.ts); undefined without one. */
  webhook?: NoticeSink | undefined;
  /**
   * acquire: the preview's address for a slot after its deploy (preview-url.ts), or why it has none;
   * undefined where the run cannot tell (tests of other things).
   */
  previewUrl?: (slug: string) => Promise<PreviewUrlAnswer>;
  /** gc and cleanup: the Workers whose Worker Previews are swept; undefined when the config names none. */
  workerPreviews?: WorkerPreviewsAccess;
}

/** What the sweep of Worker Previews (worker-previews.ts) is given. */
export interface WorkerPreviewsAccess {
  entries: readonly WorkerPreviewsEntry[];
  /** Why the production guard protects a Worker's name (`protect`, `protect-words`), or undefined. */
  protection(worker: string): string | undefined;
  /** The run's Cloudflare client (its pacer, budget and deadline), loaded on first use. */
  api(): Promise<CloudflareApi>;
  /** No preview is read or deleted after this wall-clock time (ms): the run's deadline. */
  deadlineAt: number;
}

/** The spend read of gc and status (commands/spend.ts). */
export interface SpendContext {
  /** The analytics read; null when the run has no Cloudflare credentials or no slot config (status). */
  source: SpendSource | null;
  /** `spend-alert-usd-per-hour`. */
  alertUsdPerHour: number;
  /** `spend-park-usd-per-hour`; null: parking for spend is off. */
  parkUsdPerHour?: number | null;
  /** The run's secrets out of everything written to the semaphore. */
  redact: (text: string) => string;
}

export { GC_HOLDER } from '../report/model.ts';

/**
 * The slot's lease's cost so far, while a lease holds it (the pool table's, and, for a lease a run
 * ends, the slot report's); nothing for a free slot, whose last lease's cost was said where it ended.
 */
export function liveLeaseCost(slot: Slot): { leaseCost?: LeaseCostView } {
  const cost = slot.activity?.leaseCost;
  if (cost === undefined || slot.leaseState !== 'leased') return {};
  return { leaseCost: { usd: cost.usd, coveredMs: cost.coveredMs, missingMs: cost.missingMs } };
}

export function poolRowsOf(listing: { now: number; resources: Slot[] }): PoolRow[] {
  return listing.resources.map((slot) => ({
    slug: slot.slug,
    leaseState: slot.leaseState,
    holder: slot.holder,
    expired: slot.expired,
    leaseEndsInMs: slot.leasedUntil === null ? null : slot.leasedUntil - listing.now,
    ...(slot.keptUntil === null || slot.keptUntil === undefined
      ? {}
      : { keptForMs: slot.keptUntil - listing.now }),
    dirty: slot.dirty,
    generation: slot.generation,
    lastHolder: slot.lastHolder,
    eraseFailures: slot.eraseFailures,
    lastEraseFailure: slot.lastEraseFailure,
    ...liveLeaseCost(slot),
  }));
}

/** Pools named in a message at most; a semaphore with more is not a typo away from this one. */
const POOLS_NAMED = 10;

/** "preview-slot (9 slots), other (2 slots)", or null when the semaphore has none or does not say. */
async function otherPools(ctx: Pick<CommandContext, 'semaphore'>): Promise<string | null> {
  try {
    const { pools } = await ctx.semaphore.pools();
    if (pools.length === 0) return null;
    const named = pools.slice(0, POOLS_NAMED).map((pool) => `${pool.type} (${plural(pool.slots, 'slot')})`);
    return `${named.join(', ')}${pools.length > POOLS_NAMED ? `, and ${pools.length - POOLS_NAMED} more` : ''}`;
  } catch {
    return null;
  }
}

/**
 * An empty pool is a misconfiguration, not a quiet day: every sweep of it would succeed doing nothing.
 * Says which pool, where its name came from, the pools the semaphore does have, and the two ways out.
 * (One more semaphore call, only in this case: a quiet sweep of a pool with slots stays at one.)
 */
export async function emptyPoolProblem(
  ctx: Pick<CommandContext, 'pool' | 'poolSource' | 'semaphore'>,
  consequence = 'so there is nothing to work on. Nothing was changed',
): Promise<string> {
  const others = await otherPools(ctx);
  const inAnother =
    others === null
      ? '- the slots are in another pool: set'
      : `- the slots are in another pool (the semaphore has ${others}): set`;
  return [
    `Pool '${ctx.pool}' has no slots (its name comes from ${ctx.poolSource}), ${consequence}. Either:`,
    `${inAnother} ${ctx.poolSource} to that pool's name, or`,
    `- the slots were never added: add them with 'preview-gc slots sync --count <N> --pool ${ctx.pool} --dirty', N the number of slots you want (README, "Use it in your repository").`,
  ].join('\n');
}

/** The pool as it is now, or null when the semaphore does not answer: the run's outcome stands either way. */
export async function listPoolRows(ctx: CommandContext): Promise<PoolRow[] | null> {
  try {
    return poolRowsOf(await ctx.semaphore.list(ctx.pool));
  } catch {
    return null;
  }
}

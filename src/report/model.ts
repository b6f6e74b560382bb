// One report object per run. It drives everything the run shows: the job summary, the outputs, the
// annotations and the CLI's terminal output. It is plain data so it serialises to the `report` output.
import type { PacerUsage } from '../cloudflare/pacer.ts';
import type { Command } from '../config/settings.ts';
import type { InventoryState } from '../kinds/inventory.ts';
import type { KindKey, StepKind } from '../kinds/registry.ts';
import type { PoolQueue } from '../semaphore/protocol.ts';
import type { ActivityFigures } from '../spend/activity.ts';
import type { Burning } from '../spend/estimate.ts';

export type SlotOutcome =
  /** Erased completely and released clean. */
  | 'reclaimed'
  /** Cleanup: released; compute parked, the rest left dirty for the next acquirer or sweep. */
  | 'released'
  /** Someone holds the slot now (re-leased since the listing, or forced away mid-erase). */
  | 'skipped'
  /** Request budget, deadline or rate limit ran out; released dirty, the next sweep goes on. */
  | 'deferred'
  /** Stopped by SIGINT/SIGTERM; released dirty (or never acquired). */
  | 'interrupted'
  | 'acquire-failed'
  | 'erase-failed'
  | 'release-failed'
  /** acquire: erased under the pull request's new lease, then handed over to its deploy. */
  | 'erased'
  /** Dry run: what a real run would do. */
  | 'would-reclaim'
  | 'would-release'
  /** gc: a parked slot's compute still ran after its park; parked again and released dirty, the next sweep reads again. */
  | 'still-running';

/** Outcomes that make the run fail and that need a person. */
export const FAILED_OUTCOMES: ReadonlySet<SlotOutcome> = new Set([
  'acquire-failed',
  'erase-failed',
  'release-failed',
]);

export type EraseStepStatus = 'done' | 'unchanged' | 'would-change' | 'failed' | 'not-run';

export interface EraseStepReport {
  kind: StepKind;
  resource: string;
  status: EraseStepStatus;
  /** One line a person reads: "deleted 1,204 rows in 5 tables". */
  summary: string;
  requests: number;
  /** What the kind's inventory read back after the erase (docs/design.md#what-is-left). */
  left?: LeftReport;
}

/** What is left of one resource, as its inventory read it back. */
export interface LeftReport {
  state: InventoryState;
  /** "0 rows in 7 tables", "0 keys", "3 objects written before …, expected gone by …". */
  summary: string;
  /** When 'expiring': by when Cloudflare will have removed it (ISO 8601). */
  goneBy?: string;
}

/** The slot's "left:" line: each resource's inventory, in the erase's order; undefined when none was read. */
export function leftLine(steps: readonly EraseStepReport[]): string | undefined {
  const read = steps.flatMap((step) => (step.left === undefined ? [] : [step.left.summary]));
  return read.length === 0 ? undefined : read.join(', ');
}

export interface SlotReport {
  slug: string;
  /** The tenant the slot is taken back from (holder of the expired lease, or last holder). */
  previousHolder: string | null;
  /**
   * expired / dirty: gc's selection, or what acquire found in the slot it got; held-by-pull-request:
   * cleanup; closed-pr: gc found the holder's pull request closed or merged; parked: gc's spend read
   * found a free, clean slot's compute still running.
   */
  reason: 'expired' | 'dirty' | 'held-by-pull-request' | 'closed-pr' | 'parked';
  /**
   * Server time the slot waited: since its lease expired, its dirty release, or its park; cleanup: how
   * long the pull request held it.
   */
  waitingMs: number;
  outcome: SlotOutcome;
  /** What went wrong, when something did. */
  problem?: string;
  /** The exact next step for a person, when one is needed. */
  nextStep?: string;
  erase: { status: string; steps: EraseStepReport[]; requests: number } | null;
  /** The lease generation the run held, if it acquired. */
  generation?: number;
  /** What the lease this run ended (cleanup, reclaim) cost, as gc's last read counted it. */
  leaseCost?: LeaseCostView;
  durationMs: number;
}

export interface PoolRow {
  slug: string;
  leaseState: 'available' | 'leased';
  holder: string | null;
  expired: boolean;
  /** Milliseconds until the lease ends (negative: ended that long ago), by the server's clock. */
  leaseEndsInMs: number | null;
  /** While gc keeps the lease (the keep label): milliseconds until the most the keep may last. */
  keptForMs?: number;
  dirty: boolean;
  generation: number;
  lastHolder: string | null;
  /** Erases of this slot that failed in a row (0 when the last one worked). */
  eraseFailures: number;
  lastEraseFailure: { step: string; message: string; at: number } | null;
  /** Its last hour at Cloudflare: this run's read, or the semaphore's record of an earlier one; undefined: neither. */
  spend?: SlotSpend;
  /** What the slot's live lease cost so far (gc's reads, in the semaphore); absent before its first read. */
  leaseCost?: LeaseCostView;
}

/** A lease's cost so far: dollars, the time gc's reads covered and the time none covered (missing). */
export interface LeaseCostView {
  usd: number;
  coveredMs: number;
  missingMs: number;
}

/** What a slot's compute spent in the last hour (src/spend/): the figures and Cloudflare's prices. */
export interface SlotSpend {
  /** `read`: this run read it; `stored`: gc's record of an earlier read, kept by the semaphore. */
  source: 'read' | 'stored';
  /** The hour read (ms since the epoch). */
  from: number;
  until: number;
  usdPerHour: number;
  figures: ActivityFigures;
  /** The costliest part, when something costs. */
  burning: SpendBurning | null;
  /** A free slot whose compute ran after its park and the grace after it. */
  stillRunning: boolean;
  /** A live lease spending above `spend-alert-usd-per-hour`. */
  overAlert: boolean;
}

/** What burns: one Durable Object namespace (its class when a listing named it), or the Workers' requests. */
export type SpendBurning =
  | (Extract<Burning, { part: 'objects' }> & { className: string | null })
  | Extract<Burning, { part: 'worker' }>;

/** The run's spend read: whether it happened, over which hour, at which prices and threshold. */
export interface SpendSummary {
  /** `read`: Cloudflare answered; `stored`: shown from the semaphore's records; `failed`: see `problem`. */
  source: 'read' | 'stored' | 'failed';
  from: number | null;
  until: number | null;
  alertUsdPerHour: number;
  /** The date of the price table the estimate used. */
  pricesAsOf: string;
  /** Compute the read could place in no slot: an account's own namespaces invoked by nothing in the hour. */
  unexplained: { namespaces: number; usdPerHour: number } | null;
  /** Datasets that answered as many rows as asked for: figures may be low. */
  truncated: string[];
}

/** A live lease above the threshold that this run raised the day's alert for. */
export interface SpendAlert {
  slug: string;
  holder: string;
  /** The slot's generation the read saw: `release --force` ends only that lease. */
  generation: number;
  usdPerHour: number;
  burning: SpendBurning | null;
}

/** gc: a live lease parked for spend this run (spend-park-usd-per-hour, two reads in a row above it). */
export interface SpendPark {
  slug: string;
  holder: string;
  /** What the read that parked it found the lease spending. */
  usdPerHour: number;
  /** Each of the slot's Workers, as the read-back after the park found it. */
  workers: {
    worker: string;
    state: 'parked' | 'running' | 'missing' | 'refused' | 'failed';
    summary: string;
  }[];
  /** Every Worker read back parked (or absent): nothing of the lease's compute runs. */
  stopped: boolean;
  /** The pull request's comment: written, not written (why), or no pull request behind the holder. */
  comment: 'written' | 'no-pull-request' | { problem: string };
}

/**
 * What gc did about a pull request's lease near its end: `kept` (the keep label; extended), `warned`
 * (one comment per lease end), `warned-before` (that comment is there already), the dry run's
 * `would-keep` and `would-warn`; `keep-failed` and `warn-failed` (the semaphore or GitHub failed; see
 * `problem`), `unchecked` (GitHub did not answer about the pull request, or it was not looked up:
 * neither kept nor warned).
 */
export type LeaseEndAction =
  | 'kept'
  | 'would-keep'
  | 'keep-failed'
  | 'warned'
  | 'would-warn'
  | 'warned-before'
  | 'warn-failed'
  | 'unchecked';

/** gc: a pull request's lease that ends within `warn-minutes`, or ended, and what gc did about it. */
export interface LeaseEndReport {
  slug: string;
  holder: string;
  pullRequest: number;
  /** When the lease ends (ISO, the semaphore's clock); after a keep, its new end. */
  endsAt: string;
  action: LeaseEndAction;
  /** Kept (or would be): the most the keep lasts, the lease's start plus `keep-max-hours` (ISO). */
  keptUntil?: string;
  /** Why it was not kept or warned, or what the warning's failure was, for a person. */
  problem?: string;
  /** Kept: how many waited for a slot of the pool when it was, and how long the first had waited (ms). */
  queue?: { length: number; oldestWaitMs: number };
}

/**
 * After this many failed erases in a row a slot "needs repair": acquire avoids it while another slot
 * can be had, and every summary says which step fails and how to fix it. gc keeps trying it.
 */
export const NEEDS_REPAIR_AFTER_FAILURES = 2;

export function needsRepair(slot: { eraseFailures: number }): boolean {
  return slot.eraseFailures >= NEEDS_REPAIR_AFTER_FAILURES;
}

/** The holder gc and cleanup lease a slot as while they erase it: it leaves no data of its own. */
export const GC_HOLDER = 'gc';

/** The slot acquire handed over to a pull request's deploy. */
export interface AcquiredSlot {
  slug: string;
  /** The number in the slot's name, `{n}` in the slot config; null when it has none. */
  slotNumber: string | null;
  holder: string;
  /** When the lease ends without a new push (ISO 8601, the semaphore's clock). */
  leaseExpiresAt: string;
  /** The slot held someone else's data and was erased before it was handed over. */
  wasDirty: boolean;
  /** The pull request already held this slot; its lease was extended. */
  reused: boolean;
  generation: number;
  /** The slot's resources, by kind: each name with its id where Cloudflare has one. */
  resources: AcquiredResources;
  /** The app's wrangler config written for this slot (the `wrangler-config` output), when there was one. */
  wranglerConfig?: string;
  /** Where the slot's Worker answers after the deploy (the `url` output), built from checked parts only. */
  url?: string;
  /** Why the preview has no `url`, one sentence (no Worker in the slot config, the subdomain unread, …). */
  noUrl?: string;
  /** Bindings of that config the preview shares with what they name, on purpose (`deploy.shared`). */
  shared?: SharedBindingRow[];
}

/** A binding the preview shares on purpose: its name and its place in the app's wrangler config. */
export interface SharedBindingRow {
  name: string;
  place: string;
}

/**
 * One resource of the slot as the deploy binds it: its name, and its id where Cloudflare addresses it
 * by one (a D1 database's uuid, a KV namespace's id, a queue's id, a Vectorize index's name), read
 * from the run's listing of its kind.
 */
export interface AcquiredResource {
  name: string;
  id?: string;
  /**
   * What the last tenant left that goes by itself later (an R2 bucket's objects before its rule
   * removes them), read when the slot was handed over; absent when nothing is left.
   */
  left?: LeftReport;
}

/** The slot's resources, every kind of the registry (src/kinds/registry.ts) by its key. */
export type AcquiredResources = Record<KindKey, AcquiredResource[]>;

/** Cloudflare API usage of the run, as the pacer counted it. */
export type ApiUsageReport = PacerUsage;

/** A pull request's place in its pool's queue while it waits for a slot (issue 31). */
export interface QueuePlaceReport {
  /** 1: next in line. */
  position: number;
  /** Waiters in all. */
  length: number;
  /** The pool's slots, and how many of them live leases held, as the same attempt listed them. */
  slots: number;
  leased: number;
}

/** A pool's queue as status read it: `at` is the server's time of the listing, for how long each has waited. */
export interface QueueReport extends PoolQueue {
  at: number;
}

export interface RunReport {
  command: Command;
  dryRun: boolean;
  pool: string;
  startedAt: string;
  durationMs: number;
  /** Run-level problems (config, semaphore unreachable, …): each makes the run fail. */
  problems: string[];
  /** Things a person should know that do not fail the run (an empty pool in status, GitHub did not answer, …). */
  warnings?: string[];
  /** The signal that stopped the run, if one did. */
  interruptedBy?: string;
  pullRequest?: number;
  /** Slots that qualified but were left for the next run by `max-slots`. */
  leftForNextRun: number;
  expired: number;
  slots: SlotReport[];
  /** The pool as listed at the end of the run (status: the listing itself); null when not listed. */
  poolAfter: PoolRow[] | null;
  semaphoreRequests: number;
  cloudflare: ApiUsageReport | null;
  /** `owner/repo` and server URL, for links to pull requests. */
  repository?: { serverUrl: string; nameWithOwner: string };
  /** Title and state of the pull requests behind `pr-<n>` holders, by number (needs `github-token`). */
  pullRequests?: Record<string, PullRequestLabel>;
  /** Pull requests this run asked GitHub about already, answered or not: never asked twice in a run. */
  pullRequestsAsked?: number[];
  /** acquire: the slot handed over, when one was. */
  acquired?: AcquiredSlot;
  /** acquire: its last place in the pool's queue, when it waited there and got no slot. */
  inLine?: QueuePlaceReport;
  /** status: the pool's queue (absent from a semaphore older than the queue). */
  queue?: QueueReport;
  /** doctor: the pool, slot by slot, against the config. */
  doctor?: DoctorReport;
  /** gc and status: the last hour's spend read (each slot's figures are in `poolAfter`). */
  spend?: SpendSummary;
  /** gc: the spend alerts this run raised (one per live lease a day, the semaphore decides). */
  spendAlerts?: SpendAlert[];
  /** gc: the live leases this run parked for spend (the semaphore decides, per lease and read). */
  spendParks?: SpendPark[];
  /** gc: the pull requests' leases that end within `warn-minutes` (or ended): kept, warned, or why neither. */
  leaseEnds?: LeaseEndReport[];
  /** gc and cleanup: the Worker Previews of the Workers in `worker-previews`, Worker by Worker. */
  workerPreviews?: WorkerPreviewsSweep[];
  /** status: how many Worker Previews each Worker in `worker-previews` has (null: not listed, see `problem`). */
  workerPreviewCounts?: { worker: string; previews: number | null; problem?: string }[];
}

/** What the sweep did with one Worker Preview. */
export type WorkerPreviewAction = 'deleted' | 'would-delete' | 'kept' | 'delete-failed' | 'deferred';

/** One Worker Preview of a swept Worker. */
export interface WorkerPreviewRow {
  /** The preview's name (a branch's, or `pr-<n>`), as `wrangler preview` gave it. */
  name: string;
  /** The pull request it is tied to; `unknown`: named `pr-<n>` but not among the pull requests read. */
  pullRequest: { number: number; state: 'open' | 'closed' | 'merged' | 'unknown' } | null;
  /** When its latest deployment was made (ISO), or null when it has none or it was not read. */
  lastDeployment: string | null;
  action: WorkerPreviewAction;
  /** Why, for a person: "pull request #7 is merged", "no deployment for 4d, past the ttl of 3d". */
  why: string;
  /** The stores its latest deployment binds that production's deployment binds too. */
  sharesWithProduction: string[];
}

/** One Worker of `worker-previews`: its previews, or what stopped the sweep. */
export interface WorkerPreviewsSweep {
  worker: string;
  previews: WorkerPreviewRow[];
  /** Why the previews could not be (all) read or swept, when something stood in the way. */
  problem?: string;
}

/** doctor: one thing found about a slot. A problem needs a person and fails the run; a note does not. */
export interface DoctorFinding {
  severity: 'problem' | 'note';
  /** What was found, for a person: "the R2 bucket 'app-preview-3-files' does not exist (…)". */
  text: string;
  /** What to do about it, when a person must. */
  fix?: string;
}

/** doctor: one slot of the pool against the config. */
export interface DoctorRow
  extends Pick<PoolRow, 'slug' | 'leaseState' | 'holder' | 'expired' | 'leaseEndsInMs' | 'dirty'> {
  /** How many of the slot's resources the account has, of how many the config names; null: not checked. */
  resources: { present: number; named: number } | null;
  findings: DoctorFinding[];
}

/** doctor: every slot of the pool, checked against the config, the account and the lease. */
export interface DoctorReport {
  /** The lease `lease-minutes` gives a pull request; a lease far beyond it is a finding. */
  leaseMinutes: number;
  /** Why the slots' resources were not looked for (no Cloudflare credentials), or null when they were. */
  resourcesNotChecked: string | null;
  rows: DoctorRow[];
}

/** doctor: the slots that have a problem. */
export function doctorProblemSlots(report: Pick<RunReport, 'doctor'>): DoctorRow[] {
  return (report.doctor?.rows ?? []).filter((row) =>
    row.findings.some((finding) => finding.severity === 'problem'),
  );
}

export interface PullRequestLabel {
  title: string;
  state: 'open' | 'closed' | 'merged';
}

export interface OutcomeCounts {
  expired: number;
  reclaimed: number;
  skipped: number;
  deferred: number;
  failed: number;
}

export function countOutcomes(report: RunReport): OutcomeCounts {
  const count = (...outcomes: SlotOutcome[]) =>
    report.slots.filter((slot) => outcomes.includes(slot.outcome)).length;
  return {
    expired: report.expired,
    reclaimed: count('reclaimed', 'released', 'erased'),
    skipped: count('skipped'),
    deferred: count('deferred', 'interrupted'),
    failed: report.slots.filter((slot) => FAILED_OUTCOMES.has(slot.outcome)).length,
  };
}

/**
 * The exit policy: gc fails on any failed acquire, erase or release; cleanup only on a failed
 * release; doctor on any slot with a problem; a deferred slot never fails a run; a run-level problem
 * or an interruption always does.
 */
export function runFailed(report: RunReport): boolean {
  if (report.problems.length > 0 || report.interruptedBy !== undefined) return true;
  if (doctorProblemSlots(report).length > 0) return true;
  const failing: ReadonlySet<SlotOutcome> =
    report.command === 'cleanup' ? new Set(['release-failed']) : FAILED_OUTCOMES;
  return report.slots.some((slot) => failing.has(slot.outcome));
}

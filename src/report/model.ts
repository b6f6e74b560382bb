// One report object per run. It drives everything the run shows: the job summary, the outputs, the
// annotations and the CLI's terminal output. It is plain data so it serialises to the `report` output.
import type { PacerUsage } from '../cloudflare/pacer.ts';
import type { Command } from '../config/settings.ts';
import type { StepKind } from '../kinds/registry.ts';

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
  /** Dry run: what a real run would do. */
  | 'would-reclaim'
  | 'would-release';

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
}

export interface SlotReport {
  slug: string;
  /** The tenant the slot is taken back from (holder of the expired lease, or last holder). */
  previousHolder: string | null;
  reason: 'expired' | 'dirty' | 'held-by-pull-request';
  /** Server time the slot waited: since its lease expired or since its dirty release. */
  waitingMs: number;
  outcome: SlotOutcome;
  /** What went wrong, when something did. */
  problem?: string;
  /** The exact next step for a person, when one is needed. */
  nextStep?: string;
  erase: { status: string; steps: EraseStepReport[]; requests: number } | null;
  /** The lease generation the run held, if it acquired. */
  generation?: number;
  durationMs: number;
}

export interface PoolRow {
  slug: string;
  leaseState: 'available' | 'leased';
  holder: string | null;
  expired: boolean;
  /** Milliseconds until the lease ends (negative: ended that long ago), by the server's clock. */
  leaseEndsInMs: number | null;
  dirty: boolean;
  generation: number;
  lastHolder: string | null;
}

/** Cloudflare API usage of the run, as the pacer counted it. */
export type ApiUsageReport = PacerUsage;

export interface RunReport {
  command: Command;
  dryRun: boolean;
  pool: string;
  startedAt: string;
  durationMs: number;
  /** Run-level problems (config, semaphore unreachable, …): each makes the run fail. */
  problems: string[];
  /** Run-level warnings (status of an empty pool): shown, but the run does not fail. */
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
    reclaimed: count('reclaimed', 'released'),
    skipped: count('skipped'),
    deferred: count('deferred', 'interrupted'),
    failed: report.slots.filter((slot) => FAILED_OUTCOMES.has(slot.outcome)).length,
  };
}

/**
 * The exit policy: gc fails on any failed acquire, erase or release; cleanup only on a failed
 * release; a deferred slot never fails a run; a run-level problem or an interruption always does.
 */
export function runFailed(report: RunReport): boolean {
  if (report.problems.length > 0 || report.interruptedBy !== undefined) return true;
  const failing: ReadonlySet<SlotOutcome> =
    report.command === 'cleanup' ? new Set(['release-failed']) : FAILED_OUTCOMES;
  return report.slots.some((slot) => failing.has(slot.outcome));
}

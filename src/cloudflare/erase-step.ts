// What one erase step reports, and the error a step throws when it cannot do its job for a reason
// that is not a failed Cloudflare call (a resource that does not exist, an answer it cannot use).

import type { StepKind } from '../kinds/registry.ts';
import type { CloudflareAccount } from './account.ts';
import type { CallFailureReason } from './call-error.ts';
import type { NameResolver } from './resolver.ts';

/** What every step function gets. */
export interface EraseContext {
  account: CloudflareAccount;
  resolver: NameResolver;
  /** Reads happen; every mutation is replaced by a 'would-change' record. */
  dryRun: boolean;
}

export type { StepKind } from '../kinds/registry.ts';
export type StepStatus = 'done' | 'unchanged' | 'would-change' | 'failed' | 'not-run';
export type StepFailureReason =
  | CallFailureReason
  /** The resource named by the config does not exist in the account. */
  | 'missing'
  /** The step refused to act (e.g. a class name it cannot write into code, rows a trigger re-created). */
  | 'refused'
  /** Cloudflare is still working on what the step started (e.g. a queue purge): the next run checks again. */
  | 'pending'
  /** The fence callback threw: nothing destructive may run without a renewed lease. */
  | 'fence'
  /** A bug in preview-gc; the message says what. */
  | 'internal';

export interface ComputeDetails {
  /** How the Durable Object classes were tombstoned. */
  mode: 'exports' | 'migrations' | 'none';
  tombstoned: string[];
  /** Classes kept as stub exports, with why: container-backed, or durable-objects: keep. */
  kept: { name: string; why: 'container' | 'keep' }[];
  migrationTag?: { from: string | undefined; to: string };
}
export interface D1Details {
  mode: 'rows' | 'drop';
  /** Rows per table before the wipe (rows mode). */
  rowsByTable: Record<string, number>;
  /** Objects dropped (drop mode), e.g. `table orders`. */
  dropped: string[];
}
export interface KvDetails {
  keysDeleted: number;
  /** Key listing requests made. */
  listings: number;
  /** Keys Cloudflare reported as not deleted and that were sent again. */
  retriedKeys: number;
}
export interface R2Details {
  jurisdiction: string;
  rule: 'added' | 'replaced' | 'unchanged';
  /** Ids of the other rules, kept as they were. */
  keptRules: string[];
}
export interface QueuesDetails {
  /** 'finished': the API says the purge is done; 'running': started, not done when the step stopped waiting. */
  purge: 'finished' | 'running' | 'not-started';
  /** Purge status reads, the one before the purge included. */
  statusReads: number;
  /** Messages waiting, by the API's best-effort metrics (read in a dry run only). */
  backlog?: number;
}
export interface VectorizeDetails {
  /** Vectors whose deletion was sent (Vectorize applies it asynchronously). */
  vectorsDeleted: number;
  /** Vector id listing requests made. */
  listings: number;
  /** Vectors the index still counted at the last read, when it was read. */
  vectorsLeft?: number;
}
export type StepDetails =
  | ComputeDetails
  | D1Details
  | KvDetails
  | R2Details
  | QueuesDetails
  | VectorizeDetails;

export interface StepResult {
  kind: StepKind;
  /** The resource's name (bucket, title, script or database name). */
  resource: string;
  status: StepStatus;
  /** One line a person reads: "deleted 1,204 rows in 5 tables". */
  summary: string;
  details: StepDetails | null;
  /**
   * Cloudflare requests this step made, retries included. The name listings the slots share count
   * for the run, not here.
   */
  requests: number;
  failure?: { reason: StepFailureReason; message: string };
}

/** What a step function returns; the orchestrator adds kind, resource and requests. */
export interface StepOutcome {
  status: 'done' | 'unchanged' | 'would-change';
  summary: string;
  details: StepDetails;
}

export class StepError extends Error {
  readonly reason: StepFailureReason;
  /** What was done before the failure, if anything (e.g. keys deleted so far). */
  readonly details: StepDetails | null;
  constructor(reason: StepFailureReason, message: string, details: StepDetails | null = null) {
    super(message);
    this.name = 'StepError';
    this.reason = reason;
    this.details = details;
  }
}

/** The resource a template names is not in the account: a per-slot error for a person. */
export function missingResource(
  what: string,
  name: string,
  origin: { template: string; path: string },
): StepError {
  return new StepError(
    'missing',
    `${what} '${name}' does not exist in the account (from '${origin.template}' at ${origin.path}); create it or fix the template`,
  );
}

// What one erase step reports, and the error a step throws when it cannot do its job for a reason
// that is not a failed Cloudflare call (a resource that does not exist, an answer it cannot use).
// Shared by every kind; what a kind's step did (its details) is the kind's own type, in its folder.
import type { CallFailureReason } from '../cloudflare/call-error.ts';
import type { CloudflareApi } from '../cloudflare/client.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import type { Inventory } from './inventory.ts';

/** What the deploy that is about to use the slot declares (an acquire's incoming branch). */
export interface IncomingDeploy {
  /** Container-backed Durable Object classes the incoming deploy declares, by class name. */
  containerClasses: readonly string[];
}

/** What every step function gets. */
export interface EraseContext {
  api: CloudflareApi;
  resolver: NameResolver;
  /** Reads happen; every mutation is replaced by a 'would-change' record. */
  dryRun: boolean;
  /**
   * The incoming deploy, when the erase runs for one (erase-on-acquire with the branch's wrangler
   * config at hand); undefined for gc, which keeps every container-backed class.
   */
  incoming?: IncomingDeploy | undefined;
}

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
  /** The erase said it was done, but its inventory found a tenant's data or code left. */
  | 'left'
  /** A bug in preview-gc; the message says what. */
  | 'internal';

/** What a step records of what it did (rows per table, keys deleted): each kind's own shape. */
export type StepDetails = object;

/** What a step function returns; the orchestrator adds kind, resource and requests. */
export interface StepOutcome<Details extends StepDetails = StepDetails, Handover = unknown> {
  status: 'done' | 'unchanged' | 'would-change';
  summary: string;
  details: Details;
  /** What is left, when the step's own last request carried the inventory's reads. */
  inventory?: Inventory;
  /**
   * The step's reads made after its last change to what they show, handed to its kind's inventory
   * (which judges them with code of its own, and reads the rest itself); never in the report.
   */
  handover?: Handover;
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

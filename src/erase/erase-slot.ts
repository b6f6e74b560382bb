// Erases one slot in the order of docs/design.md#erasing-a-slot, the order of src/kinds/registry.ts:
// compute (park the Worker and its DOs), D1, KV, R2, Queues, Vectorize. Before every step the fence
// is asked (the sweep renews its lease there); a false answer stops the erase. A failed step does not stop the others (they do not depend on each other,
// and each one done is one less for the next sweep), but a step stopped by the budget, the deadline,
// the rate limit or an abort stops everything: the rest would fail the same way. Dry run is the
// same path: reads happen, every mutation becomes a 'would-change' record.

import { CloudflareCallError, DEFERRING_REASONS } from '../cloudflare/call-error.ts';
import type { CloudflareApi } from '../cloudflare/client.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import type { Inventory, InventoryContext } from '../kinds/inventory.ts';
import { operationsOf } from '../kinds/operations.ts';
import {
  describeResource,
  eachResource,
  type KindResources,
  nameOf,
  type StepKind,
} from '../kinds/registry.ts';
import {
  type EraseContext,
  type IncomingDeploy,
  missingResource,
  type StepDetails,
  StepError,
  type StepFailureReason,
  type StepOutcome,
} from '../kinds/step.ts';
import type { BindingGuard, OutsideBinding } from './binding-guard.ts';

export type EraseStatus =
  /** Every step done or already clean: the slot may be released clean. */
  | 'complete'
  /** The fence answered false: someone else holds the slot now. */
  | 'fenced'
  /**
   * Budget, deadline or rate limit ran out, `only` left steps out, or Cloudflare is still working on
   * what a step started: the next run goes on.
   */
  | 'deferred'
  /** The run was stopped (SIGTERM). */
  | 'aborted'
  /** A step failed for a reason a person should look at. */
  | 'failed';

export type StepStatus = 'done' | 'unchanged' | 'would-change' | 'failed' | 'not-run';

/** What one step of a slot's erase did, as the report shows it. */
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
  /** What the kind's inventory found left after the step (real runs whose every step finished). */
  inventory?: Inventory;
}

export interface EraseResult {
  status: EraseStatus;
  steps: StepResult[];
  /** Cloudflare requests this erase made, retries included. */
  requests: number;
}

export interface EraseSlotOptions {
  api: CloudflareApi;
  resolver: NameResolver;
  resources: KindResources;
  /** Renews the lease; false means the slot was taken away and nothing more may be destroyed. */
  fence: () => Promise<boolean>;
  dryRun: boolean;
  /** Stops the erase between steps (the pacer's own signal aborts waits and calls in flight). */
  signal?: AbortSignal;
  /**
   * Run only these kinds of steps (e.g. ['compute'] to park promptly on cleanup); default all. The
   * others are reported 'not-run' and the erase as 'deferred' (not clean yet) unless a step failed.
   */
  only?: readonly StepKind[];
  /** The deploy the slot is erased for (acquire); undefined for gc: every container class is kept. */
  incoming?: IncomingDeploy | undefined;
  /** The run's binding guard: a store another Worker binds is not erased (binding-guard.ts). */
  guard?: BindingGuard | undefined;
}

interface PlannedStep {
  kind: StepKind;
  resource: string;
  run: (context: EraseContext) => Promise<StepOutcome>;
  /**
   * Reads back what is left of the resource, given what its step handed over; undefined for a kind
   * without an inventory.
   */
  inventory: ((context: InventoryContext, handover: unknown) => Promise<Inventory>) | undefined;
  /** What the step did before it failed, from its details ("deleted 1,204 keys"). */
  doneBefore: (details: StepDetails) => string | undefined;
}

/** One step per resource of the slot, kind by kind in the registry's order. */
function planSteps(resources: KindResources, guard: BindingGuard | undefined): PlannedStep[] {
  const ownWorkers = new Set(resources.workers.map((worker) => worker.name));
  return eachResource(resources).map(({ kind, resource }) => {
    const operations = operationsOf(kind);
    const name = nameOf(kind, resource);
    const found = async (resolver: NameResolver) => {
      const what = await operations.find(resolver, resource);
      if (what === undefined) throw missingResource(describeResource(kind, resource), name, resource);
      return what;
    };
    const { inventory } = operations;
    return {
      kind: kind.step,
      resource: name,
      run: async (context: EraseContext) => {
        const what = await found(context.resolver);
        const { bindsIt } = operations;
        if (guard !== undefined && bindsIt !== undefined) {
          const outside = await guard.boundOutside(ownWorkers, (binding) => bindsIt(binding, resource, what));
          if (outside !== undefined) throw boundOutsideError(describeResource(kind, resource), outside);
        }
        return operations.erase(context, resource, what);
      },
      inventory:
        inventory === undefined
          ? undefined
          : async (context, handover) =>
              inventory(context, resource, await found(context.resolver), handover),
      doneBefore: (details: StepDetails) => operations.doneBefore?.(details),
    };
  });
}

/** A store a Worker outside the slot binds: refused, so the slot stays dirty and flagged. */
function boundOutsideError(what: string, outside: OutsideBinding): StepError {
  return new StepError(
    'refused',
    `not erased: the Worker '${outside.worker}', which is not this slot's, binds ${what} (binding ${outside.binding}); it may be production's store. Fix: change the slot config's template so no slot names a store another Worker uses, or remove the binding from '${outside.worker}'`,
  );
}

function failureOf(error: unknown): {
  reason: StepFailureReason;
  message: string;
  details: StepResult['details'];
} {
  if (error instanceof StepError)
    return { reason: error.reason, message: error.message, details: error.details };
  if (error instanceof CloudflareCallError)
    return { reason: error.reason, message: error.message, details: null };
  return {
    reason: 'internal',
    message: error instanceof Error ? error.message : String(error),
    details: null,
  };
}

/** What a failure means for the steps after it. */
function stopFor(reason: StepFailureReason): EraseStatus | undefined {
  if (reason === 'aborted') return 'aborted';
  if (reason === 'fence') return 'failed';
  return DEFERRING_REASONS.has(reason) ? 'deferred' : undefined;
}

const FAILED_SUMMARY: Record<StepFailureReason, string> = {
  'rate-limited': 'stopped: Cloudflare rate-limits the token',
  budget: "stopped: the run's request budget is used up",
  deadline: "stopped: the run's deadline has passed",
  aborted: 'stopped: the run was stopped',
  api: 'failed: Cloudflare refused a call',
  network: 'failed: Cloudflare could not be reached',
  timeout: 'failed: Cloudflare did not answer in time',
  'invalid-answer': 'failed: Cloudflare gave an answer preview-gc cannot use',
  missing: 'failed: not found in the account',
  refused: 'refused',
  pending: 'still running at Cloudflare; the next run checks again',
  fence: 'not run: the lease could not be renewed',
  left: 'erased, but its inventory found data left',
  internal: 'failed: an error in preview-gc',
};

/** A short line for a failed step, with what it did before (the message has the details). */
function failedSummary(step: PlannedStep, reason: StepFailureReason, details: StepResult['details']): string {
  const done = details === null ? undefined : step.doneBefore(details);
  return done === undefined ? FAILED_SUMMARY[reason] : `${done}, then ${FAILED_SUMMARY[reason]}`;
}

const STOPPED_SUMMARY: Record<EraseStatus, string> = {
  complete: '',
  fenced: 'not run: the lease was taken over',
  deferred: 'not run: deferred to the next run',
  aborted: 'not run: the run was stopped',
  failed: 'not run: the lease could not be renewed',
};

/** Runs one planned step: its outcome, or its failure with what it did before and the status it stops the erase with. */
async function runStep(
  step: PlannedStep,
  context: EraseContext,
): Promise<{ result: StepResult; stop: EraseStatus | undefined; handover?: unknown }> {
  const { pacer } = context.api;
  const base = { kind: step.kind, resource: step.resource, details: null };
  const before = pacer.requestsSoFar();
  try {
    const { inventory, handover, ...outcome } = await step.run(context);
    const requests = pacer.requestsSoFar() - before;
    return {
      result: { ...base, ...outcome, ...(inventory === undefined ? {} : { inventory }), requests },
      stop: undefined,
      handover,
    };
  } catch (error) {
    const { reason, message, details } = failureOf(error);
    const result: StepResult = {
      ...base,
      status: 'failed',
      summary: failedSummary(step, reason, details),
      details,
      requests: pacer.requestsSoFar() - before,
      failure: { reason, message },
    };
    return { result, stop: stopFor(reason) };
  }
}

export async function eraseSlot(options: EraseSlotOptions): Promise<EraseResult> {
  const { api, resolver, resources, fence, dryRun, signal, only, incoming, guard } = options;
  const context: EraseContext = { api, resolver, dryRun, ...(incoming === undefined ? {} : { incoming }) };
  const startRequests = api.pacer.requestsSoFar();
  const steps: StepResult[] = [];
  /** What each step handed its inventory, by the step's index. */
  const handovers = new Map<number, unknown>();
  let stopped: EraseStatus | undefined;
  let leftOut = false;

  const planned = planSteps(resources, guard);
  for (const step of planned) {
    const base = { kind: step.kind, resource: step.resource, details: null, requests: 0 };
    if (only !== undefined && !only.includes(step.kind)) {
      leftOut = true;
      steps.push({ ...base, status: 'not-run', summary: 'not run: left to the next erase' });
      continue;
    }
    if (stopped === undefined && signal?.aborted) stopped = 'aborted';
    if (stopped === undefined) {
      const fenced = await askFence(fence);
      if (typeof fenced === 'string') {
        stopped = 'failed';
        steps.push({
          ...base,
          status: 'failed',
          summary: fenced,
          failure: { reason: 'fence', message: fenced },
        });
        continue;
      }
      if (!fenced) stopped = 'fenced';
    }
    if (stopped !== undefined) {
      steps.push({ ...base, status: 'not-run', summary: STOPPED_SUMMARY[stopped] });
      continue;
    }
    const { result, stop, handover } = await runStep(step, context);
    handovers.set(steps.length, handover);
    steps.push(result);
    stopped = stop;
  }

  if (stopped === undefined && !dryRun && !leftOut && steps.every((step) => step.status !== 'failed'))
    stopped = await readWhatIsLeft(planned, steps, handovers, { api, resolver });

  const failed = steps.filter((step) => step.status === 'failed');
  const needsPerson = failed.some((step) => step.failure?.reason !== 'pending');
  const status: EraseStatus =
    stopped ?? (needsPerson ? 'failed' : leftOut || failed.length > 0 ? 'deferred' : 'complete');
  return { status, steps, requests: api.pacer.requestsSoFar() - startRequests };
}

/**
 * Once every step has finished, each resource's inventory reads back what is left (the ones a step's
 * own request already carried are taken as they are). Only 'empty' and 'expiring' leave the step as
 * it was; 'settling' makes it pending (the next run reads again) and 'left' a failure a person looks
 * at, however sure the erase was. A read that fails counts like a failed step. Returns the status
 * that stops the erase when a read was stopped by the budget, the deadline, the rate limit or a signal.
 */
async function readWhatIsLeft(
  planned: readonly PlannedStep[],
  steps: StepResult[],
  handovers: ReadonlyMap<number, unknown>,
  context: InventoryContext,
): Promise<EraseStatus | undefined> {
  const { pacer } = context.api;
  for (const [index, plan] of planned.entries()) {
    const step = steps[index];
    if (step === undefined) continue;
    const before = pacer.requestsSoFar();
    try {
      step.inventory ??= await plan.inventory?.(context, handovers.get(index));
    } catch (error) {
      const { reason, message } = failureOf(error);
      Object.assign(step, {
        status: 'failed',
        summary: `${step.summary}; what is left could not be read (${FAILED_SUMMARY[reason]})`,
        failure: { reason, message: `reading what is left: ${message}` },
      });
      const stop = stopFor(reason);
      if (stop !== undefined) return stop;
      continue;
    } finally {
      step.requests += pacer.requestsSoFar() - before;
    }
    const left = step.inventory;
    if (left?.state === 'settling') {
      step.status = 'failed';
      step.summary = `${step.summary}, then ${FAILED_SUMMARY.pending}`;
      step.failure = {
        reason: 'pending',
        message: `${left.summary}; the next run erases and reads it again`,
      };
    } else if (left?.state === 'left') {
      step.status = 'failed';
      step.summary = `${step.summary}, but left: ${left.summary}`;
      step.failure = { reason: 'left', message: describeLeft(left) };
    }
  }
  return undefined;
}

function describeLeft(left: Inventory): string {
  const items = left.items ?? [];
  return items.length === 0 ? `left: ${left.summary}` : `left: ${left.summary} (${items.join('; ')})`;
}

/** The fence's answer, or the message of its error: a throwing fence stops the erase like a false one. */
async function askFence(fence: () => Promise<boolean>): Promise<boolean | string> {
  try {
    return await fence();
  } catch (error) {
    return `could not renew the lease before this step: ${error instanceof Error ? error.message : String(error)}`;
  }
}

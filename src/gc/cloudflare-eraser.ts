// The SlotEraser the commands use in real runs: one pacer, one account client and one name resolver
// per run, so every Cloudflare call of the run shares the budget, the rate and the listings.

import { CloudflareAccount } from '../cloudflare/account.ts';
import { type EraseResult, eraseSlot } from '../cloudflare/erase.ts';
import { StepError, type StepFailureReason, type StepResult } from '../cloudflare/erase-step.ts';
import { Pacer } from '../cloudflare/pacer.ts';
import { NameResolver } from '../cloudflare/resolver.ts';
import { ConfigError, resourcesForSlot, type SlotConfig } from '../config/slot-config.ts';
import type { ApiUsageReport } from '../report/model.ts';
import type { EraseOutcome, SlotEraser } from './context.ts';

export interface CloudflareEraserOptions {
  apiToken: string;
  accountId: string;
  baseUrl: string;
  budget: number;
  ratePerSecond: number;
  deadlineAt: number;
  signal: AbortSignal;
  /** For tests that count or shape requests; the global fetch otherwise. */
  fetch?: typeof fetch;
}

const STEP_PERMISSION: Record<StepResult['kind'], string> = {
  compute: 'Workers Scripts',
  d1: 'D1',
  kv: 'Workers KV Storage',
  r2: 'Workers R2 Storage',
};

/** What a person does about a failed step; undefined where the next sweep heals it by itself. */
function nextStepFor(step: StepResult, configPath: string): string | undefined {
  switch (step.failure?.reason) {
    case 'missing':
      return `Create ${step.kind === 'r2' ? 'the bucket' : 'the resource'} '${step.resource}', or fix its template in ${configPath}; then run the preview-gc workflow again.`;
    case 'api':
      return `The next sweep retries this slot. If it keeps failing with a 401/403 (code 10000), give the API token edit access to ${STEP_PERMISSION[step.kind]}.`;
    case 'refused':
    case 'internal':
      return `Erase '${step.resource}' by hand or fix ${configPath}; the slot stays dirty until an erase completes.`;
    default:
      return undefined;
  }
}

const LEASE_LOST_MID_STEP = 'stopped mid-step: the lease could not be proven before the next request';

/**
 * Failures the next erase of the slot would meet again: the ones a person must fix. Rate limits, the
 * budget, the deadline, a signal, a lost lease and the network are not the slot's fault.
 */
const UNERASABLE: ReadonlySet<StepFailureReason> = new Set([
  'api',
  'invalid-answer',
  'missing',
  'refused',
  'internal',
]);

function toEraseOutcome(result: EraseResult, configPath: string): EraseOutcome {
  const failedStep = result.steps.find((step) => step.status === 'failed');
  const outcome: EraseOutcome = {
    status: result.status,
    requests: result.requests,
    steps: result.steps.map((step) => ({
      kind: step.kind,
      resource: step.resource,
      status: step.status,
      summary: step.failure === undefined ? step.summary : `${step.summary} (${step.failure.message})`,
      requests: step.requests,
    })),
  };
  if (failedStep?.failure === undefined) return outcome;
  const nextStep = nextStepFor(failedStep, configPath);
  const unerasable = result.steps.find(
    (step) => step.failure !== undefined && UNERASABLE.has(step.failure.reason),
  );
  return {
    ...outcome,
    problem: `${failedStep.kind} '${failedStep.resource}': ${failedStep.failure.message}`,
    ...(nextStep === undefined ? {} : { nextStep }),
    ...(unerasable === undefined ? {} : { failedStep: failedStepOf(unerasable, configPath) }),
  };
}

/** The step and what to do about it, as the semaphore keeps it for "needs repair". */
function failedStepOf(step: StepResult, configPath: string): { step: string; message: string } {
  const fix = nextStepFor(step, configPath);
  const message = step.failure?.message ?? step.summary;
  return {
    step: `${step.kind} '${step.resource}'`,
    message: fix === undefined ? message : `${message}. Fix: ${fix}`,
  };
}

export function createCloudflareEraser(
  config: SlotConfig,
  options: CloudflareEraserOptions,
): { eraser: SlotEraser; usage(): ApiUsageReport } {
  const pacer = new Pacer({
    budget: options.budget,
    ratePerSecond: options.ratePerSecond,
    deadlineAt: options.deadlineAt,
    signal: options.signal,
  });
  const account = new CloudflareAccount({
    apiToken: options.apiToken,
    accountId: options.accountId,
    baseUrl: options.baseUrl,
    pacer,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const resolver = new NameResolver(account);
  const eraser: SlotEraser = {
    refusal(slug) {
      try {
        resourcesForSlot(config, slug);
        return null;
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
    },
    async erase({ slug, fence, fenceWithinStep, dryRun }) {
      const stopGuarding =
        fenceWithinStep === undefined
          ? () => {}
          : pacer.guardRequests(async () => {
              if (!(await fenceWithinStep())) throw new StepError('fence', LEASE_LOST_MID_STEP);
            });
      try {
        const result = await eraseSlot({
          account,
          resolver,
          resources: resourcesForSlot(config, slug),
          fence,
          dryRun,
          signal: options.signal,
        });
        return toEraseOutcome(result, config.file);
      } finally {
        stopGuarding();
      }
    },
  };
  return { eraser, usage: () => pacer.usage() };
}

// The SlotEraser the commands use in real runs: one pacer, one account client and one name resolver
// per run, so every Cloudflare call of the run shares the budget, the rate and the listings.

import { CloudflareAccount } from '../cloudflare/account.ts';
import { type EraseResult, eraseSlot } from '../cloudflare/erase.ts';
import type { StepResult } from '../cloudflare/erase-step.ts';
import { Pacer } from '../cloudflare/pacer.ts';
import { NameResolver } from '../cloudflare/resolver.ts';
import {
  ConfigError,
  resourcesForSlot,
  type SlotConfig,
  sharedResourceNames,
} from '../config/slot-config.ts';
import { visible } from '../report/log-text.ts';
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

function toEraseOutcome(result: EraseResult, configPath: string): EraseOutcome {
  const failedStep = result.steps.find((step) => step.status === 'failed');
  const outcome: EraseOutcome = {
    status: result.status,
    requests: result.requests,
    steps: result.steps.map((step) => ({
      kind: step.kind,
      resource: step.resource,
      status: step.status,
      summary:
        step.failure === undefined ? step.summary : `${step.summary} (${visible(step.failure.message)})`,
      requests: step.requests,
    })),
  };
  if (failedStep?.failure === undefined) return outcome;
  const nextStep = nextStepFor(failedStep, configPath);
  return {
    ...outcome,
    // The API's message is the server's text: one line, its control characters spelled out.
    problem: `${failedStep.kind} '${failedStep.resource}': ${visible(failedStep.failure.message)}`,
    ...(nextStep === undefined ? {} : { nextStep }),
  };
}

/** sharedResourceNames of a listing, worked out once per listing rather than once per slot. */
function sharedNamesOfPool(config: SlotConfig): (pool: readonly string[]) => Map<string, string[]> {
  let last: { pool: readonly string[]; refusals: Map<string, string[]> } | undefined;
  return (pool) => {
    if (last?.pool !== pool) last = { pool, refusals: sharedResourceNames(config, pool) };
    return last.refusals;
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
  const sharedNames = sharedNamesOfPool(config);
  const eraser: SlotEraser = {
    refusal(slug, pool) {
      try {
        resourcesForSlot(config, slug);
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      return sharedNames(pool).get(slug)?.join('\n') ?? null;
    },
    async erase({ slug, fence, dryRun }) {
      const result = await eraseSlot({
        account,
        resolver,
        resources: resourcesForSlot(config, slug),
        fence,
        dryRun,
        signal: options.signal,
      });
      return toEraseOutcome(result, config.file);
    },
  };
  return { eraser, usage: () => pacer.usage() };
}

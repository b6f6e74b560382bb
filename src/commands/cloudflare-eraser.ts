// The SlotEraser the commands use in real runs: one pacer, one account client and one name resolver
// per run, so every Cloudflare call of the run shares the budget, the rate and the listings.

import type { CloudflareApi } from '../cloudflare/client.ts';
import type { CredentialProblem } from '../cloudflare/credentials.ts';
import { Pacer } from '../cloudflare/pacer.ts';
import type { RunPlace } from '../config/run-place.ts';
import type { Settings } from '../config/settings.ts';
import {
  ConfigError,
  resourcesForSlot,
  type SlotConfig,
  sharedResourceNames,
} from '../config/slot-config.ts';
import type { EraseResult, StepResult } from '../erase/erase-slot.ts';
import { permissionOf, type TokenPermission } from '../kinds/permissions.ts';
import { kindOfStep } from '../kinds/registry.ts';
import { StepError, type StepFailureReason } from '../kinds/step.ts';
import type { ApiUsageReport } from '../report/model.ts';
import { visible } from '../text/log-text.ts';
import type { CloudflareOptions, Connection } from './cloudflare-connection.ts';
import type {
  EraseOutcome,
  ResourceCheck,
  SlotEraser,
  SlotResourcesAnswer,
  SpendParkOutcome,
} from './context.ts';
import { describeCredentialProblem } from './credential-problem.ts';
import { resourcePresence } from './resource-presence.ts';

export interface CloudflareEraserOptions extends CloudflareOptions {
  /** Where the run was started, for the advice in messages. */
  place: RunPlace;
  /** The run's pacer, when other calls of the run (the spend read) share it; a new one otherwise. */
  pacer?: Pacer;
}

/** The Cloudflare client's options from the settings: the account, the API, the budget and rate, and when to stop. */
export function cloudflareOptionsOf(
  settings: Pick<Settings, 'cloudflare' | 'requestBudget' | 'requestsPerSecond'>,
  run: { deadlineAt: number; signal: AbortSignal; fetch?: typeof fetch | undefined },
): CloudflareOptions {
  return {
    apiToken: settings.cloudflare.apiToken,
    accountId: settings.cloudflare.accountId,
    baseUrl: settings.cloudflare.apiBaseUrl,
    budget: settings.requestBudget,
    ratePerSecond: settings.requestsPerSecond,
    deadlineAt: run.deadlineAt,
    signal: run.signal,
    ...(run.fetch === undefined ? {} : { fetch: run.fetch }),
  };
}

/** The run's one pacer: every Cloudflare call of the run shares its budget, rate and deadline. */
export function createPacer(options: CloudflareOptions): Pacer {
  return new Pacer({
    budget: options.budget,
    ratePerSecond: options.ratePerSecond,
    deadlineAt: options.deadlineAt,
    signal: options.signal,
  });
}

/** What the slots are refused with once the credential check found a problem (said once, for the run). */
const CREDENTIALS_REFUSED = "not erased: Cloudflare refused the run's credentials (see the run's problem)";

/** The token permission an erase step's calls need: its kind's. */
function permissionFor(kind: StepResult['kind']): TokenPermission {
  return permissionOf(kindOfStep(kind).key);
}

/** What a person does about a failed step; undefined where the next sweep heals it by itself. */
function nextStepFor(step: StepResult, configPath: string, place: RunPlace): string | undefined {
  switch (step.failure?.reason) {
    case 'missing':
      return `Create ${step.kind === 'r2' ? 'the bucket' : 'the resource'} '${step.resource}', or fix its template in ${configPath}; then ${place.rerun}.`;
    case 'api':
      return `The next sweep retries this slot. If it keeps failing with a 401/403 (code 10000), give the API token ${permissionFor(step.kind).dashboard}.`;
    case 'left':
      return `The erase of '${step.resource}' reported success, but reading it back found the data named above: erase it by hand (the erase missed it: please report it as a bug), or fix ${configPath}; the slot stays dirty until nothing is left.`;
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
  'left',
  'internal',
]);

/** The failed step as the semaphore keeps it for "needs repair": which step, what it said, the fix. */
function failedStepOf(
  step: StepResult,
  configPath: string,
  place: RunPlace,
): { step: string; message: string } {
  const fix = nextStepFor(step, configPath, place);
  const message = visible(step.failure?.message ?? step.summary);
  return {
    step: `${step.kind} '${step.resource}'`,
    message: fix === undefined ? message : `${message}. Fix: ${fix}`,
  };
}

function toEraseOutcome(result: EraseResult, configPath: string, place: RunPlace): EraseOutcome {
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
      ...(step.inventory === undefined
        ? {}
        : {
            left: {
              state: step.inventory.state,
              summary: visible(step.inventory.summary),
              ...(step.inventory.goneBy === undefined ? {} : { goneBy: step.inventory.goneBy }),
            },
          }),
    })),
  };
  if (failedStep?.failure === undefined) return outcome;
  const nextStep = nextStepFor(failedStep, configPath, place);
  const unerasable = result.steps.find(
    (step) => step.failure !== undefined && UNERASABLE.has(step.failure.reason),
  );
  return {
    ...outcome,
    // The API's message is the server's text: one line, its control characters spelled out.
    problem: `${failedStep.kind} '${failedStep.resource}': ${visible(failedStep.failure.message)}`,
    ...(nextStep === undefined ? {} : { nextStep }),
    ...(unerasable === undefined ? {} : { failedStep: failedStepOf(unerasable, configPath, place) }),
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
): { eraser: SlotEraser; resources: ResourceCheck; usage(): ApiUsageReport; api(): Promise<CloudflareApi> } {
  const pacer = options.pacer ?? createPacer(options);
  // Loaded when the run first needs Cloudflare (see cloudflare-connection.ts), once for the whole run.
  let loaded: Promise<Connection> | undefined;
  const connection = () => {
    loaded ??= import('./cloudflare-connection.ts').then((module) => module.connect(options, pacer));
    return loaded;
  };
  const sharedNames = sharedNamesOfPool(config);
  let credentials: Promise<CredentialProblem | null> | undefined;
  let credentialsRefused = false;
  // Once a run: the token, then one listing per kind the config names (the erase reuses them).
  const checkedCredentials = () => {
    credentials ??= connection().then(async ({ checkCredentials }) => {
      const problem = await checkCredentials(config.resources);
      credentialsRefused = problem !== null;
      return problem;
    });
    return credentials;
  };
  const describeProblem = (problem: CredentialProblem, consequence: string) =>
    describeCredentialProblem(problem, { accountId: options.accountId, place: options.place, consequence });
  const eraser: SlotEraser = {
    refusal(slug, pool) {
      if (credentialsRefused) return CREDENTIALS_REFUSED;
      try {
        resourcesForSlot(config, slug);
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      return sharedNames(pool).get(slug)?.join('\n') ?? null;
    },
    async erase({ slug, fence, fenceWithinStep, dryRun, incoming }) {
      const { api, resolver, eraseSlot, guard } = await connection();
      const erase = () =>
        eraseSlot({
          api,
          resolver,
          guard,
          resources: resourcesForSlot(config, slug),
          fence,
          dryRun,
          signal: options.signal,
          ...(incoming === undefined ? {} : { incoming }),
        });
      const result = await pacer.eraseWithin(
        erase,
        fenceWithinStep === undefined
          ? undefined
          : async () => {
              if (!(await fenceWithinStep())) throw new StepError('fence', LEASE_LOST_MID_STEP);
            },
      );
      return toEraseOutcome(result, config.file, options.place);
    },
    async checkCredentials(consequence = 'nothing was erased') {
      const problem = await checkedCredentials();
      return problem === null ? null : describeProblem(problem, consequence);
    },
    async resources(slug) {
      return slotResourcesOf(slug);
    },
    async parkForSpend(slug) {
      const { parkForSpend } = await connection();
      const outcomes: SpendParkOutcome[] = [];
      for (const worker of resourcesForSlot(config, slug).workers) {
        try {
          outcomes.push(await parkForSpend(worker));
        } catch (error) {
          const why = visible(error instanceof Error ? error.message : String(error));
          outcomes.push({ worker: worker.name, state: 'failed', summary: `not parked: ${why}` });
        }
      }
      return outcomes;
    },
  };
  async function slotResourcesOf(slug: string): Promise<SlotResourcesAnswer> {
    const unread = "the slot's resources could not be read for its deploy";
    try {
      const problem = await checkedCredentials();
      if (problem !== null) return { problem: describeProblem(problem, unread), nextStep: undefined };
      const located = await (await connection()).locate(resourcesForSlot(config, slug));
      if ('resources' in located) return located;
      return {
        problem: `${unread}: ${located.missing.length === 1 ? 'this resource does' : 'these resources do'} not exist in account ${options.accountId}: ${located.missing.join('; ')}`,
        nextStep: `Create ${located.missing.length === 1 ? 'it' : 'them'} (preview-gc slots provision creates what a slot lacks), or fix the templates in ${config.file}; then ${options.place.rerun}.`,
      };
    } catch (error) {
      return {
        problem: `${unread}: ${visible(error instanceof Error ? error.message : String(error))}`,
        nextStep: `${options.place.rerun[0]?.toUpperCase()}${options.place.rerun.slice(1)}.`,
      };
    }
  }
  // The same connection, pacer and listings as the erase: a resource is looked for in its kind's one listing.
  const resources: ResourceCheck = {
    presence: async (slug) => resourcePresence(config, slug, (await connection()).exists),
  };
  // The Worker Previews sweep calls the API itself, on the run's one client and pacer.
  const api = async () => (await connection()).api;
  return { eraser, resources, usage: () => pacer.usage(), api };
}

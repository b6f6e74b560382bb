// The composition root: from validated settings to the real clients, shared by the action and the
// CLI so both run exactly the same code.

import { createCloudflareEraser, createPacer } from './commands/cloudflare-eraser.ts';
import type { CommandContext, ProgressEvent, SpendContext } from './commands/context.ts';
import { type CommandOptions, dispatchCommand, failedRunReport } from './commands/dispatch.ts';
import { oneLineError } from './commands/lease.ts';
import { ACTION_PLACE, type RunPlace } from './config/run-place.ts';
import type { Settings } from './config/settings.ts';
import { loadSlotConfig, resourcesForSlot, type SlotConfig } from './config/slot-config.ts';
import type { GitHubPullRequests } from './github/pull-requests.ts';
import { resourceNames } from './kinds/registry.ts';
import type { RunReport, SlotResourceNames } from './report/model.ts';
import { secretRedactor } from './report/redact.ts';
import { SemaphoreClient } from './semaphore/client.ts';
import type { SpendOptions, SpendSource } from './spend/source.ts';

export interface ExecuteOptions {
  /** Aborted on SIGINT/SIGTERM. */
  signal: AbortSignal;
  progress: (event: ProgressEvent) => void;
  repository?: RunReport['repository'];
  /**
   * The pull requests behind holders (the action passes one when it has a github-token); without it,
   * gc reconciles nothing and acquire cannot tell a closed pull request. Passed in, so the CLI's
   * bundle does not carry a GitHub client it never uses.
   */
  github?: GitHubPullRequests | null;
  /** The transport of each client, where a caller (a test) watches or shapes requests; global fetch otherwise. */
  fetch?: { semaphore?: typeof fetch; cloudflare?: typeof fetch };
  /** Where the run was started, for the advice in messages; a workflow step (the action) by default. */
  place?: RunPlace;
}

export function createSemaphoreClient(
  settings: Pick<Settings, 'semaphoreUrl' | 'semaphoreToken'>,
  transport?: typeof fetch,
): SemaphoreClient {
  // No abort signal: on SIGTERM the release of the lease in hand must still go out.
  return new SemaphoreClient({
    baseUrl: settings.semaphoreUrl,
    token: settings.semaphoreToken,
    ...(transport === undefined ? {} : { fetch: transport }),
  });
}

function commandOptions(settings: Settings, deadlineAt: number, config: SlotConfig | null): CommandOptions {
  return {
    command: settings.command,
    dryRun: settings.dryRun,
    reclaimDirty: settings.reclaimDirty,
    maxSlots: settings.maxSlots,
    leaseMs: settings.gcLeaseMinutes * 60_000,
    deadlineAt,
    pullRequest: settings.pullRequest,
    pullRequestLeaseMs: settings.leaseMinutes * 60_000,
    waitMs: settings.waitMinutes * 60_000,
    comment: settings.comment,
    resourcesOf: (slug) => resourceNamesOf(config, slug),
  };
}

/** The slot's resource names by kind, the `resources` output of acquire. */
function resourceNamesOf(config: SlotConfig | null, slug: string): SlotResourceNames {
  return resourceNames(config === null ? null : resourcesForSlot(config, slug));
}

/** status needs no config file when the pool is named; gc and cleanup always need one. */
async function loadConfigFor(settings: Settings, place: RunPlace): Promise<SlotConfig | null> {
  if (settings.command === 'status' && settings.pool !== undefined) return null;
  return loadSlotConfig(settings.configPath, place.describeInput);
}

/** Where the pool's name came from: the input (or flag) overrides the config's `pool:`. */
function poolSourceOf(settings: Settings, config: SlotConfig | null, place: RunPlace): string {
  return settings.pool !== undefined || config === null
    ? place.describeInput('pool')
    : `the 'pool:' key of ${config.file}`;
}

/** Runs the command the settings name. Never throws: whatever goes wrong is in the report. */
export async function executeSettings(settings: Settings, options: ExecuteOptions): Promise<RunReport> {
  const startedAt = Date.now();
  const repository = options.repository === undefined ? {} : { repository: options.repository };
  const place = options.place ?? ACTION_PLACE;
  let config: SlotConfig | null;
  try {
    config = await loadConfigFor(settings, place);
  } catch (error) {
    return {
      ...failedRunReport(settings, settings.pool ?? '(unknown)', oneLineError(error)),
      ...repository,
      startedAt: new Date(startedAt).toISOString(),
      durationMs: Date.now() - startedAt,
    };
  }
  const pool = settings.pool ?? config?.pool ?? '';
  // acquire may wait for a slot first; its erase gets the whole deadline after that wait.
  const waitMinutes = settings.command === 'acquire' ? settings.waitMinutes : 0;
  const deadlineAt = startedAt + (waitMinutes + settings.deadlineMinutes) * 60_000;
  const cloudflareFetch = options.fetch?.cloudflare;
  const cloudflareOptions = {
    apiToken: settings.cloudflare.apiToken,
    accountId: settings.cloudflare.accountId,
    baseUrl: settings.cloudflare.apiBaseUrl,
    budget: settings.requestBudget,
    ratePerSecond: settings.requestsPerSecond,
    deadlineAt,
    signal: options.signal,
    ...(cloudflareFetch === undefined ? {} : { fetch: cloudflareFetch }),
  };
  // One pacer for every Cloudflare call of the run: the erase's and the spend read's.
  const pacer = createPacer(cloudflareOptions);
  const cloudflare =
    config === null || settings.command === 'status'
      ? null
      : createCloudflareEraser(config, { ...cloudflareOptions, place, pacer });
  const spend = spendContextOf(settings, config, (source) =>
    loadedSpendSource(source, { ...cloudflareOptions, pacer }),
  );
  const ctx: CommandContext = {
    pool,
    poolSource: poolSourceOf(settings, config, place),
    place,
    semaphore: createSemaphoreClient(settings, options.fetch?.semaphore),
    eraser: cloudflare?.eraser ?? refusingEraser,
    cloudflareUsage: () => (cloudflare !== null || spend?.source ? pacer.usage() : null),
    parallelSlots: settings.parallelSlots,
    signal: options.signal,
    progress: options.progress,
    now: Date.now,
    github: options.github,
    spend,
  };
  return { ...(await dispatchCommand(ctx, commandOptions(settings, deadlineAt, config))), ...repository };
}

/**
 * The spend read, its module loaded on the first read: after the run's first request (the listing), not
 * before it, and never by a status that has no Cloudflare credentials.
 */
function loadedSpendSource(config: SlotConfig, options: SpendOptions): SpendSource {
  let loaded: Promise<SpendSource> | undefined;
  const source = () => {
    loaded ??= import('./spend/source.ts').then((module) => module.createSpendSource(config, options));
    return loaded;
  };
  return {
    read: async (slugs, window, readOptions) => (await source()).read(slugs, window, readOptions),
    owners: async () => (await source()).owners(),
  };
}

/**
 * gc and status show what each slot spends: read from Cloudflare when the run has its credentials and
 * the slot config (which names the slots' Workers), else (status) from gc's records in the semaphore.
 */
function spendContextOf(
  settings: Settings,
  config: SlotConfig | null,
  source: (config: SlotConfig) => SpendSource,
): SpendContext | undefined {
  if (settings.command !== 'gc' && settings.command !== 'status') return undefined;
  const { apiToken, accountId } = settings.cloudflare;
  const canRead = config !== null && apiToken !== '' && accountId !== '';
  const secrets = [settings.semaphoreToken, apiToken, settings.githubToken ?? ''];
  return {
    source: canRead ? source(config) : null,
    alertUsdPerHour: settings.spendAlertUsdPerHour,
    redact: secretRedactor(secrets.filter((secret) => secret !== '')),
  };
}

/** status touches no Cloudflare resource; should it ever try, it is refused rather than unpaced. */
const refusingEraser: CommandContext['eraser'] = {
  refusal: () => 'this command erases nothing',
  erase: async () => ({ status: 'failed', steps: [], requests: 0, problem: 'this command erases nothing' }),
  checkCredentials: async () => null,
};

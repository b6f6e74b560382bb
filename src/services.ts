// The composition root: from validated settings to the real clients, shared by the action and the
// CLI so both run exactly the same code.

import type { CloudflareApi } from './cloudflare/client.ts';
import type { Pacer } from './cloudflare/pacer.ts';
import type { SlotWranglerConfig } from './commands/acquire.ts';
import type { CloudflareOptions } from './commands/cloudflare-connection.ts';
import { cloudflareOptionsOf, createCloudflareEraser, createPacer } from './commands/cloudflare-eraser.ts';
import type { CommandContext, ProgressEvent, SpendContext } from './commands/context.ts';
import { type CommandOptions, dispatchCommand, failedRunReport } from './commands/dispatch.ts';
import { oneLineError } from './commands/lease.ts';
import { actionPlace, type RunPlace } from './config/run-place.ts';
import type { Settings } from './config/settings.ts';
import { loadSlotConfig, type SlotConfig } from './config/slot-config.ts';
import { protectionOf, resourcesForSlot } from './config/slot-resources.ts';
import type { GitHubPullRequests } from './github/pull-requests.ts';
import type { RunReport } from './report/model.ts';
import { SemaphoreClient, type TokenSource } from './semaphore/client.ts';
import type { SpendOptions, SpendSource } from './spend/source.ts';
import { secretRedactor } from './text/redact.ts';

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
  /** The semaphore's token when it is not the settings' own: a deploy job's OIDC token (`semaphore-auth: oidc`). */
  semaphoreToken?: TokenSource;
}

type SemaphoreSettings = Pick<Settings, 'semaphoreUrl' | 'semaphoreToken'> &
  Partial<Pick<Settings, 'cloudflare' | 'githubToken' | 'webhookUrl'>>;

/** The secrets a run's settings hold: none of them may reach the semaphore (the client redacts them). */
export function secretsOfSettings(settings: SemaphoreSettings): string[] {
  return [
    settings.semaphoreToken,
    settings.cloudflare?.apiToken ?? '',
    settings.githubToken ?? '',
    settings.webhookUrl ?? '',
  ].filter((secret) => secret !== '');
}

export function createSemaphoreClient(
  settings: SemaphoreSettings,
  options: { transport?: typeof fetch; token?: TokenSource; secrets?: readonly string[] } = {},
): SemaphoreClient {
  // No abort signal: on SIGTERM the release of the lease in hand must still go out.
  return new SemaphoreClient({
    baseUrl: settings.semaphoreUrl,
    token: options.token ?? settings.semaphoreToken,
    secrets: [...secretsOfSettings(settings), ...(options.secrets ?? [])],
    ...(options.transport === undefined ? {} : { fetch: options.transport }),
  });
}

function commandOptions(
  settings: Settings,
  deadlineAt: number,
  wranglerConfig: SlotWranglerConfig | undefined,
): CommandOptions {
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
    wranglerConfig,
    oidc: settings.semaphoreAuth === 'oidc',
    leaseEnds: {
      warnMs: settings.warnMinutes * 60_000,
      keepLabel: settings.keepLabel,
      keepMaxMs: settings.keepMaxHours * 3_600_000,
    },
  };
}

/**
 * acquire's wrangler config, read and placed before any slot is taken. Its parsers (JSONC, TOML) are
 * loaded only here, so the other commands never load them.
 */
async function wranglerConfigFor(
  settings: Settings,
  config: SlotConfig | null,
  place: RunPlace,
): Promise<SlotWranglerConfig | undefined> {
  if (settings.command !== 'acquire' || config === null) return undefined;
  const { deployWranglerConfig } = await import('./config/wrangler/deploy-config.ts');
  return deployWranglerConfig(settings.wranglerConfig, config, place.describeInput('wrangler-config'), {
    accountId: settings.cloudflare.accountId,
  });
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
  const place = options.place ?? actionPlace(settings.command);
  let config: SlotConfig | null;
  let wranglerConfig: SlotWranglerConfig | undefined;
  try {
    config = await loadConfigFor(settings, place);
    wranglerConfig = await wranglerConfigFor(settings, config, place);
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
  const cloudflareOptions = cloudflareOptionsOf(settings, {
    deadlineAt,
    signal: options.signal,
    fetch: options.fetch?.cloudflare,
  });
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
    semaphore: createSemaphoreClient(settings, {
      ...(options.fetch?.semaphore === undefined ? {} : { transport: options.fetch.semaphore }),
      ...(options.semaphoreToken === undefined ? {} : { token: options.semaphoreToken }),
    }),
    eraser: cloudflare?.eraser ?? refusingEraser,
    resources:
      settings.command === 'doctor' && hasCloudflareCredentials(settings) ? cloudflare?.resources : null,
    cloudflareUsage: () => (cloudflare !== null || spend?.source ? pacer.usage() : null),
    parallelSlots: settings.parallelSlots,
    signal: options.signal,
    progress: options.progress,
    now: Date.now,
    github: options.github,
    repository: options.repository?.nameWithOwner,
    spend,
    ...(settings.command === 'gc' && settings.webhookUrl !== undefined
      ? { webhook: { url: settings.webhookUrl } }
      : {}),
    ...(settings.command === 'acquire' && config !== null && cloudflare !== null
      ? { previewUrl: previewUrlFor(config, cloudflare.api) }
      : {}),
    ...workerPreviewsOf(
      settings,
      config,
      cloudflare?.api ?? previewsApi(cloudflareOptions, pacer),
      deadlineAt,
    ),
  };
  return {
    ...(await dispatchCommand(ctx, commandOptions(settings, deadlineAt, wranglerConfig))),
    ...repository,
  };
}

/** gc and cleanup sweep, doctor checks and status counts the Worker Previews of the Workers `worker-previews` names. */
function workerPreviewsOf(
  settings: Settings,
  config: SlotConfig | null,
  api: () => Promise<CloudflareApi>,
  deadlineAt: number,
): Pick<CommandContext, 'workerPreviews'> {
  const swept = ['gc', 'cleanup', 'doctor', 'status'].includes(settings.command);
  if (!swept || config === null || config.workerPreviews.length === 0) return {};
  if (!hasCloudflareCredentials(settings)) return {};
  return {
    workerPreviews: {
      entries: config.workerPreviews,
      protection: (worker) => protectionOf(worker, config),
      api,
      deadlineAt,
    },
  };
}

/**
 * acquire's `url`: the slot config's preview route (`deploy.route`), or else the slot's Worker and the
 * account's workers.dev subdomain on the run's client. Its module (and the SDK resource it reads with) is loaded only when asked.
 */
function previewUrlFor(
  config: SlotConfig,
  api: () => Promise<CloudflareApi>,
): NonNullable<CommandContext['previewUrl']> {
  return async (slug) => {
    const { previewUrl } = await import('./commands/preview-url.ts');
    return previewUrl({
      slug,
      workers: resourcesForSlot(config, slug).workers,
      api,
      routePattern: config.deploy.route,
    });
  };
}

/** status has no eraser: its count of Worker Previews gets a client of its own on the run's pacer, loaded on first use. */
function previewsApi(options: CloudflareOptions, pacer: Pacer): () => Promise<CloudflareApi> {
  let api: Promise<CloudflareApi> | undefined;
  return () => {
    api ??= import('./commands/cloudflare-connection.ts').then(
      (module) => module.connect(options, pacer).api,
    );
    return api;
  };
}

/** doctor and the spend read run only with credentials; gc, cleanup and acquire require them. */
function hasCloudflareCredentials(settings: Settings): boolean {
  return settings.cloudflare.apiToken !== '' && settings.cloudflare.accountId !== '';
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
  return {
    source: config !== null && hasCloudflareCredentials(settings) ? source(config) : null,
    alertUsdPerHour: settings.spendAlertUsdPerHour,
    parkUsdPerHour: settings.spendParkUsdPerHour,
    redact: secretRedactor(secretsOfSettings(settings)),
  };
}

/** status touches no Cloudflare resource; should it ever try, it is refused rather than unpaced. */
const refusingEraser: CommandContext['eraser'] = {
  refusal: () => 'this command erases nothing',
  erase: async () => ({ status: 'failed', steps: [], requests: 0, problem: 'this command erases nothing' }),
  checkCredentials: async () => null,
  resources: async () => ({ problem: 'this command reads no resources', nextStep: undefined }),
};

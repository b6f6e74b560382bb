// The action: inputs → settings → command → report → outputs, summary, annotations, exit code.
// Everything it touches comes in through `ActionDependencies`, so tests can run it in-process.
import * as core from '@actions/core';
import type { ProgressEvent } from './commands/context.ts';
import {
  INPUT_NAMES,
  parseSettings,
  type RawInputs,
  rawSecretsOf,
  type Settings,
  SettingsError,
} from './config/settings.ts';
import { eventPullRequestNumber, gitHubForRun } from './github/for-run.ts';
import { jobIdToken } from './github/id-token.ts';
import type { GitHubPullRequests } from './github/pull-requests.ts';
import { doctorProblemSlots, FAILED_OUTCOMES, type RunReport, runFailed } from './report/model.ts';
import { type PublishIO, publishReport } from './report/publish.ts';
import { labelPullRequests } from './report/pull-requests.ts';
import { placeInLine } from './report/queue-text.ts';
import type { TokenSource } from './semaphore/client.ts';
import { executeSettings } from './services.ts';
import { onTerminationSignals } from './signals.ts';
import { safeLogText, visible } from './text/log-text.ts';
import { redactData, secretForms, secretRedactor } from './text/redact.ts';

export interface ActionDependencies extends PublishIO {
  readInputs(): RawInputs;
  setSecret(secret: string): void;
  info(message: string): void;
  setFailed(message: string): void;
  /** `owner/repo` and the server URL of the run, for pull request links; undefined outside Actions. */
  repository(): RunReport['repository'];
  /** GitHub's pull requests for the run (a github-token and a repository), or null. */
  gitHub(githubToken: string | undefined, repository: RunReport['repository']): GitHubPullRequests | null;
  /** Adds pull request titles to the report where a token allows; never fails. */
  labelPullRequests(report: RunReport, githubToken: string | undefined): Promise<RunReport>;
  /** The job's OIDC token for `audience` (as core.getIDToken gets it); needs `permissions: id-token: write`. */
  getIDToken(audience: string): Promise<string>;
  execute(
    settings: Settings,
    options: {
      signal: AbortSignal;
      progress: (event: ProgressEvent) => void;
      repository: RunReport['repository'];
      github: GitHubPullRequests | null;
      /** With `semaphore-auth: oidc`: the job's OIDC token, fetched when the run needs one. */
      semaphoreToken?: TokenSource;
    },
  ): Promise<RunReport>;
}

/**
 * A value that is still a workflow expression: only a runner evaluates `${{ … }}`, so an action run
 * by something else (@github/local-action takes action.yml's defaults as they are written) gets
 * `github-token` as the literal `${{ github.token }}`. That is no value at all, not a token.
 */
const UNEVALUATED_EXPRESSION = /^\$\{\{[^}]*\}\}$/;

/** Reads every input of action.yml by name; `core.getInput` returns '' for an absent one. */
function readActionInputs(): RawInputs {
  const inputs: Record<string, string> = Object.fromEntries(
    INPUT_NAMES.map((name) => {
      const value = core.getInput(name);
      return [name, UNEVALUATED_EXPRESSION.test(value.trim()) ? '' : value];
    }),
  );
  // acquire's and cleanup's pull request defaults to the one that triggered the run.
  const eventPullRequest = eventPullRequestNumber();
  if (inputs['pull-request'] === '' && eventPullRequest !== undefined) {
    inputs['pull-request'] = String(eventPullRequest);
  }
  return inputs;
}

export function githubActionDependencies(): ActionDependencies {
  return {
    readInputs: readActionInputs,
    setSecret: core.setSecret,
    info: core.info,
    setFailed: core.setFailed,
    setOutput: core.setOutput,
    error: core.error,
    warning: core.warning,
    notice: core.notice,
    writeSummary: async (markdown) => {
      await core.summary.addRaw(markdown, true).write();
    },
    repository: () => {
      const nameWithOwner = process.env.GITHUB_REPOSITORY;
      return nameWithOwner === undefined || nameWithOwner === ''
        ? undefined
        : { serverUrl: process.env.GITHUB_SERVER_URL ?? 'https://github.com', nameWithOwner };
    },
    execute: executeSettings,
    getIDToken: (audience) => jobIdToken(audience),
    gitHub: gitHubForRun,
    labelPullRequests: (report, token) =>
      labelPullRequests(report, { token, apiUrl: process.env.GITHUB_API_URL ?? 'https://api.github.com' }),
  };
}

function logProgress(info: (message: string) => void): (event: ProgressEvent) => void {
  return (event) => {
    if (event.kind === 'listed') info(`Pool has ${event.slots} slots; ${event.selected} to work on.`);
    if (event.kind === 'slot-started') info(`[${event.index + 1}/${event.total}] ${visible(event.slug)}…`);
    if (event.kind === 'slot-finished')
      info(
        `[${event.index + 1}/${event.total}] ${visible(event.slug)}: ${visible(event.outcome)} (${Math.round(event.durationMs)} ms)`,
      );
    if (event.kind === 'waiting-for-slot') {
      const place = event.place === undefined ? '' : `: ${placeInLine(event.place, event.pool, visible)}`;
      info(`No slot can be had yet${place}; asking again in ${Math.round(event.retryInMs / 1000)} s.`);
    }
  };
}

/**
 * Every exit of the action behind one net: each secret (in every form a server might repeat it) is
 * redacted from log lines, annotations, outputs and the summary, and no log line can start a
 * workflow command. The runner also masks the secrets, but only in its own log and only as typed.
 */
function guardedExits(deps: ActionDependencies, redact: (text: string) => string): ActionDependencies {
  const logText = (message: string) => safeLogText(redact(message));
  const titled = (properties?: { title?: string }) =>
    properties?.title === undefined
      ? properties
      : { ...properties, title: visible(redact(properties.title)) };
  return {
    ...deps,
    info: (message) => deps.info(logText(message)),
    setFailed: (message) => deps.setFailed(logText(message)),
    error: (message, properties) => deps.error(logText(message), titled(properties)),
    warning: (message, properties) => deps.warning(logText(message), titled(properties)),
    notice: (message, properties) => deps.notice(logText(message), titled(properties)),
    setOutput: (name, value) => deps.setOutput(name, typeof value === 'string' ? redact(value) : value),
    writeSummary: (markdown) => deps.writeSummary(redact(markdown)),
    gitHub: (token, repository) => redactedComments(deps.gitHub(token, repository), redact),
  };
}

/** A pull request comment is public: the net covers it like every other exit. */
function redactedComments(
  github: GitHubPullRequests | null,
  redact: (text: string) => string,
): GitHubPullRequests | null {
  if (github === null) return null;
  return {
    ...github,
    upsertComment: (number, marker, body) => github.upsertComment(number, marker, redact(body)),
    commentOnce: (number, marker, body, options) => github.commentOnce(number, marker, redact(body), options),
  };
}

/**
 * The job's OIDC token as the semaphore client's token source: each token it hands out is a secret
 * like the inputs' tokens, masked and redacted from then on (`keep`).
 */
function oidcTokenSource(
  deps: ActionDependencies,
  audience: string,
  keep: (secret: string) => void,
): TokenSource {
  return async () => {
    let token: string;
    try {
      token = await deps.getIDToken(audience);
    } catch (error) {
      throw new Error(
        `the job's OIDC token could not be had (${error instanceof Error ? error.message : String(error)}); with semaphore-auth: oidc the job needs permissions: id-token: write (the README's deploy workflow)`,
      );
    }
    keep(token);
    return token;
  };
}

export async function run(unguarded: ActionDependencies = githubActionDependencies()): Promise<void> {
  const raw = unguarded.readInputs();
  const secrets = rawSecretsOf(raw);
  let redactNow = secretRedactor(secrets);
  const keep = (secret: string) => {
    // The Authorization header is derived from the token; mask it too in case anything echoes it.
    for (const form of [...secretForms(secret), `Bearer ${secret}`]) unguarded.setSecret(form);
    if (!secrets.includes(secret)) secrets.push(secret);
    redactNow = secretRedactor(secrets);
  };
  for (const secret of [...secrets]) keep(secret);
  const redact = (text: string) => redactNow(text);
  const deps = guardedExits(unguarded, redact);
  let settings: Settings;
  try {
    settings = parseSettings(raw);
  } catch (error) {
    deps.setFailed(error instanceof SettingsError ? error.message : String(error));
    return;
  }

  const controller = new AbortController();
  const stopListening = onTerminationSignals((signal) => {
    deps.info(`${signal} received: stopping the current step, releasing the lease, writing the summary.`);
    controller.abort(signal);
  });
  try {
    deps.info(`preview-gc ${settings.command}${settings.dryRun ? ' (dry run)' : ''}`);
    const repository = deps.repository();
    const executed = await deps.execute(settings, {
      signal: controller.signal,
      progress: logProgress(deps.info),
      repository,
      github: deps.gitHub(settings.githubToken, repository),
      ...(settings.semaphoreAuth === 'oidc'
        ? { semaphoreToken: oidcTokenSource(unguarded, settings.semaphoreAudience, keep) }
        : {}),
    });
    // Redacted as data, before the summary escapes it into a spelling the text net would not know.
    const report = redactData(await deps.labelPullRequests(executed, settings.githubToken), redact);
    await publishReport(report, deps);
    if (runFailed(report)) deps.setFailed(failureMessage(report));
  } finally {
    stopListening();
  }
}

function failureMessage(report: RunReport): string {
  if (report.interruptedBy !== undefined) return `preview-gc was stopped by ${report.interruptedBy}.`;
  if (report.problems.length > 0) return report.problems.join('\n');
  const unwell = doctorProblemSlots(report);
  if (unwell.length > 0)
    return `preview-gc doctor: ${unwell.map((row) => visible(row.slug)).join(', ')} ${unwell.length === 1 ? 'has a problem' : 'have problems'}. The job summary says what was found and what to do.`;
  const failed = report.slots.filter((slot) => FAILED_OUTCOMES.has(slot.outcome));
  return `preview-gc ${report.command}: ${failed.map((slot) => `${visible(slot.slug)} ${visible(slot.outcome)}`).join(', ')}. The job summary says what to do next.`;
}

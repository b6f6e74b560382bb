// The CLI's flags and environment variables are the action's inputs under other names. They are
// mapped into the same raw inputs and validated by the same parseSettings, so the CLI and the action
// accept exactly the same values and report problems the same way, naming the flag and variable.

import { type RunPlace, SECRET_OF_INPUT } from '../config/run-place.ts';
import {
  type Command,
  type DescribeInput,
  parseSettings,
  type RawInputs,
  type Settings,
} from '../config/settings.ts';
import type { Env } from './io.ts';
import type { OptionSpec, OptionValues } from './spec.ts';

/** The environment variable of an input: the same names the workflows use for their secrets. */
const ENV_OF_INPUT = SECRET_OF_INPUT;

/**
 * Inputs the CLI has no flag for: `command` is the subcommand, the tokens come only from the
 * environment (a flag would land in shell history and process lists), and `github-token` (and the
 * pull request `comment` that needs it, gc's warning before reclaim and its keep label) and the job's
 * OIDC sign-in belong to a workflow run, not a terminal.
 */
export const INPUTS_WITHOUT_FLAG = [
  'command',
  'semaphore-token',
  'semaphore-auth',
  'semaphore-audience',
  'cloudflare-api-token',
  'github-token',
  'comment',
  // The warning before reclaim and the keep label act on pull requests, through the github-token.
  'keep-label',
  'keep-max-hours',
  'warn-minutes',
];

export const SEMAPHORE_ENV = ['SEMAPHORE_URL', 'SEMAPHORE_TOKEN'] as const;
const CLOUDFLARE_ENV = ['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_ACCOUNT_ID', 'CLOUDFLARE_API_BASE_URL'] as const;
export const ALL_ENV = [...SEMAPHORE_ENV, ...CLOUDFLARE_ENV];

const HELP_OPTION: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', description: 'Show this help.' },
};

/** Every command that talks to the semaphore has these. */
export const SEMAPHORE_OPTIONS: Record<string, OptionSpec> = {
  config: {
    type: 'string',
    value: '<path>',
    input: 'config',
    description: 'Slot config file; the pool comes from it.',
  },
  pool: {
    type: 'string',
    value: '<name>',
    input: 'pool',
    description: "Semaphore pool to work on; overrides the config's pool.",
  },
  'semaphore-url': {
    type: 'string',
    value: '<url>',
    input: 'semaphore-url',
    description: 'Base URL of the semaphore Worker (or SEMAPHORE_URL).',
  },
  json: { type: 'boolean', description: 'Print machine-readable JSON on stdout instead of tables.' },
  ...HELP_OPTION,
};

export const CLOUDFLARE_OPTIONS: Record<string, OptionSpec> = {
  'cloudflare-account-id': {
    type: 'string',
    value: '<id>',
    input: 'cloudflare-account-id',
    description: 'Cloudflare account id, 32 hex characters (or CLOUDFLARE_ACCOUNT_ID).',
  },
  'cloudflare-api-base-url': {
    type: 'string',
    value: '<url>',
    input: 'cloudflare-api-base-url',
    description: 'Cloudflare API base URL, only to point at a test double (or CLOUDFLARE_API_BASE_URL).',
  },
};

/** slots add and sync: how the slots join, and the credentials that check their resources exist. */
export const ADOPTION_OPTIONS: Record<string, OptionSpec> = {
  dirty: {
    type: 'boolean',
    description: 'Add the slots dirty: they hold data from before, and the next gc erases it.',
  },
  ...CLOUDFLARE_OPTIONS,
};

export const DRY_RUN_OPTION: Record<string, OptionSpec> = {
  'dry-run': {
    type: 'boolean',
    input: 'dry-run',
    description: 'Report what would happen; acquire, erase and release nothing.',
  },
};

/** The knobs that bound a run that erases. */
export const RUN_LIMIT_OPTIONS: Record<string, OptionSpec> = {
  'gc-lease-minutes': {
    type: 'string',
    value: '<n>',
    input: 'gc-lease-minutes',
    description: 'Lease taken on each slot while erasing; frees itself after this if killed.',
  },
  'request-budget': {
    type: 'string',
    value: '<n>',
    input: 'request-budget',
    description: 'At most this many Cloudflare requests; the rest is deferred.',
  },
  'requests-per-second': {
    type: 'string',
    value: '<n>',
    input: 'requests-per-second',
    description: 'Steady Cloudflare request rate; the account limit (4/s) is shared.',
  },
  'deadline-minutes': {
    type: 'string',
    value: '<n>',
    input: 'deadline-minutes',
    description: 'Start no new slot after this many minutes.',
  },
  'parallel-slots': {
    type: 'string',
    value: '<n>',
    input: 'parallel-slots',
    description: 'Slots erased at once, each under its own lease, sharing the rate and budget.',
  },
};

function flagOf(options: Readonly<Record<string, OptionSpec>>, input: string): string | undefined {
  return Object.entries(options).find(([, option]) => option.input === input)?.[0];
}

/** Names an input the way the user sets it here: `--semaphore-url / SEMAPHORE_URL`. */
function describeCliInput(options: Readonly<Record<string, OptionSpec>>): DescribeInput {
  return (name) => {
    const flag = flagOf(options, name);
    const env = ENV_OF_INPUT[name];
    if (flag !== undefined && env !== undefined) return `--${flag} / ${env}`;
    if (flag !== undefined) return `--${flag}`;
    if (env !== undefined) return `${env} (environment variable)`;
    return `'${name}'`;
  };
}

/** A terminal as the place of a run: flags and environment variables, and the command to run again. */
export function cliPlace(command: string, options: Readonly<Record<string, OptionSpec>>): RunPlace {
  const describe = describeCliInput(options);
  return { describeInput: describe, credential: describe, rerun: `run 'preview-gc ${command}' again` };
}

/** The raw inputs of a command: its flags first, then the environment variables it reads. */
function rawInputsOf(
  command: Command,
  options: Readonly<Record<string, OptionSpec>>,
  values: OptionValues,
  env: Env,
  envNames: readonly string[],
): RawInputs {
  const raw: Record<string, string | undefined> = { command };
  for (const [flag, option] of Object.entries(options)) {
    if (option.input === undefined) continue;
    const value = values[flag];
    raw[option.input] = typeof value === 'boolean' ? String(value) : value;
  }
  for (const [input, name] of Object.entries(ENV_OF_INPUT)) {
    if (envNames.includes(name) && (raw[input] ?? '') === '') raw[input] = env[name];
  }
  return raw;
}

/** Settings for a command, validated like the action's; a SettingsError names every problem. */
export function settingsOf(
  command: Command,
  options: Readonly<Record<string, OptionSpec>>,
  values: OptionValues,
  env: Env,
  envNames: readonly string[],
): Settings {
  return parseSettings(rawInputsOf(command, options, values, env, envNames), describeCliInput(options));
}

// release and slots talk to the semaphore directly: they need the pool's name (from --pool or the
// slot config) and a client, and, to add slots safely, the config's templates.
import { stat } from 'node:fs/promises';
import type { DescribeInput, Settings } from '../config/settings.ts';
import {
  ConfigError,
  loadSlotConfig,
  resourcesForSlot,
  type SlotConfig,
  sharedResourceNames,
} from '../config/slot-config.ts';
import type { SemaphoreClient } from '../semaphore/client.ts';
import { cliPlace, settingsOf } from './inputs.ts';
import { type CliIO, envSecrets } from './io.ts';
import { CommandFailure, type CommandSpec, type ParsedCommand, stringValue } from './spec.ts';

export interface PoolConnection {
  pool: string;
  semaphore: SemaphoreClient;
  /** The command's settings, validated like the action's inputs. */
  settings: Settings;
  /** The slot config, when one was found; null when --pool was given and no config exists. */
  config: SlotConfig | null;
}

async function configOrNull(
  path: string,
  required: boolean,
  describeInput: DescribeInput,
): Promise<SlotConfig | null> {
  try {
    return await loadSlotConfig(path, describeInput);
  } catch (error) {
    const missing = error instanceof ConfigError && !(await fileExists(path));
    if (missing && !required) return null;
    throw error instanceof ConfigError ? new CommandFailure(error.message) : error;
  }
}

async function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The pool named by --pool, else by the config. An explicit --config must load; the default one may
 * be missing when --pool names the pool.
 */
export async function connectPool(
  spec: Pick<CommandSpec, 'name' | 'options' | 'env'>,
  parsed: ParsedCommand,
  io: Pick<CliIO, 'env'>,
): Promise<PoolConnection> {
  const settings = settingsOf('status', spec.options, parsed.values, io.env, spec.env);
  const explicitConfig = stringValue(parsed.values, 'config') !== undefined;
  const config = await configOrNull(
    settings.configPath,
    explicitConfig || settings.pool === undefined,
    cliPlace(spec.name, spec.options).describeInput,
  );
  const pool = settings.pool ?? config?.pool;
  if (pool === undefined)
    throw new CommandFailure('no pool: give --pool <name> or a slot config with --config');
  // Loaded here, not at the top: help and usage errors answer without loading the Cloudflare SDK.
  const { createSemaphoreClient } = await import('../services.ts');
  // Whatever the command writes (a note) is redacted of every secret in the environment, not only its own token.
  const semaphore = createSemaphoreClient(settings, { secrets: envSecrets(io.env) });
  return { pool, semaphore, settings, config };
}

/**
 * Refuses, before any change, slots that must not join the pool under this config: a resource name
 * they expand to is protected or invalid, or is a name another slot of the pool (one `staying`, or
 * another one `adding`) maps to as well. The action refuses the same slots before erasing them.
 */
export function refuseUnderConfig(
  config: SlotConfig | null,
  adding: readonly string[],
  staying: readonly string[],
): void {
  if (config === null) return;
  const refusals = new Set<string>();
  for (const slug of adding) {
    try {
      resourcesForSlot(config, slug);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      refusals.add(error.message);
    }
  }
  const shared = sharedResourceNames(config, [...staying, ...adding]);
  for (const slug of adding) for (const message of shared.get(slug) ?? []) refusals.add(message);
  if (refusals.size > 0) throw new CommandFailure(`nothing was changed:\n${[...refusals].join('\n')}`);
}

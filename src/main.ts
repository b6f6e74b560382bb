import * as core from '@actions/core';
import { INPUT_NAMES, parseSettings, type RawInputs, SettingsError, secretsOf } from './config/settings.ts';

/** Reads every input of action.yml by name; `core.getInput` returns '' for an absent one. */
function readActionInputs(): RawInputs {
  return Object.fromEntries(INPUT_NAMES.map((name) => [name, core.getInput(name)]));
}

export async function run(): Promise<void> {
  try {
    const settings = parseSettings(readActionInputs());
    for (const secret of secretsOf(settings)) core.setSecret(secret);
    core.info(`preview-gc ${settings.command}${settings.dryRun ? ' (dry run)' : ''}`);
  } catch (error) {
    core.setFailed(error instanceof SettingsError ? error.message : String(error));
  }
}

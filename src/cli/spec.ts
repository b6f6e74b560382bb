// What a CLI command is: its flags, its help and what it runs. Every command declares itself with
// one of these, so parsing, help and the README reference all come from the same place.
import { parseArgs } from 'node:util';
import type { CliIO } from './io.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** How the value is shown in help, e.g. `<n>`. */
  value?: string;
  description: string;
  /** The action input this flag sets (the same name, or `pull-request` for `--pr`). */
  input?: string;
}

export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

export interface ParsedCommand {
  values: OptionValues;
  positionals: string[];
}

export interface CommandSpec {
  /** As typed after `preview-gc`: `gc`, `slots sync`. */
  name: string;
  /** One line, for the command list. */
  summary: string;
  /** Usage lines without the program name, e.g. `gc [--dry-run] [options]`. */
  usage: readonly string[];
  /** What it does, a few lines for a person deciding whether to run it. */
  description: string;
  options: Readonly<Record<string, OptionSpec>>;
  /** Placeholder of the positional arguments (`<slug>...`); absent: none are accepted. */
  positionals?: string;
  /** Environment variables the command reads. */
  env: readonly string[];
  examples: readonly string[];
  run(command: ParsedCommand, io: CliIO): Promise<number>;
}

/** Wrong usage: the CLI prints the message and the command's help, and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A command that ran and failed: the CLI prints the message and exits 1. */
export class CommandFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}

export function parseCommand(spec: CommandSpec, args: readonly string[]): ParsedCommand {
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, option]) => [
      name,
      option.short === undefined ? { type: option.type } : { type: option.type, short: option.short },
    ]),
  );
  try {
    const parsed = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowPositionals: spec.positionals !== undefined,
    });
    return { values: parsed.values as OptionValues, positionals: parsed.positionals };
  } catch (error) {
    // Node's messages carry a second sentence about '--' that only confuses here; keep the first.
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message.split(/(?<=\.) /)[0] ?? message);
  }
}

export function stringValue(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

// What a CLI command is: its flags, its help and what it runs. Every command declares itself with
// one of these, so parsing, help and the README reference all come from the same place.
import { parseArgs } from 'node:util';
import { closestWord } from '../text/did-you-mean.ts';
import type { CliIO } from './io.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** How the value is shown in help, e.g. `<n>`. */
  value?: string;
  description: string;
  /** The action input this flag sets (the same name as the flag). */
  input?: string;
  /** Other names the flag answers to (`--pr` for `--pull-request`). */
  aliases?: readonly string[];
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

type ParseArgsOption = { type: 'string' | 'boolean'; short?: string };

/** Every name a command's flags answer to, aliases included, for the parser. */
function parserOptions(spec: CommandSpec): Record<string, ParseArgsOption> {
  const options: Record<string, ParseArgsOption> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] =
      option.short === undefined ? { type: option.type } : { type: option.type, short: option.short };
    for (const alias of option.aliases ?? []) options[alias] = { type: option.type };
  }
  return options;
}

/** The values under each flag's own name, whichever of its names was typed. */
function canonicalValues(spec: CommandSpec, values: Record<string, unknown>): OptionValues {
  const canonical: Record<string, string | boolean | undefined> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    const typed = [name, ...(option.aliases ?? [])].filter((flag) => values[flag] !== undefined);
    if (typed.length > 1)
      throw new UsageError(`give ${typed.map((flag) => `--${flag}`).join(' or ')}, not both`);
    const [flag] = typed;
    if (flag !== undefined) canonical[name] = values[flag] as string | boolean;
  }
  return canonical;
}

/**
 * The flag an unknown one was meant to be: the closest in spelling, else the longest flag it starts
 * with as a word (`--pr-number` for `--pr`).
 */
function intendedFlag(unknown: string, flags: readonly string[]): string | undefined {
  const starts = flags.filter((flag) => unknown.startsWith(`${flag}-`));
  return closestWord(unknown, flags) ?? starts.sort((a, b) => b.length - a.length)[0];
}

/** Node's message for a parse error, its first sentence, with the closest flag for an unknown one. */
function usageMessage(spec: CommandSpec, error: unknown): string {
  // Node's messages carry a second sentence about '--' that only confuses here; keep the first.
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split(/(?<=\.) /)[0] ?? message;
  const unknown = /^Unknown option '--([^'=]+)'/.exec(first)?.[1];
  const guess = unknown === undefined ? undefined : intendedFlag(unknown, Object.keys(parserOptions(spec)));
  return guess === undefined ? first : `${first.replace(/\.$/, '')}: did you mean --${guess}?`;
}

export function parseCommand(spec: CommandSpec, args: readonly string[]): ParsedCommand {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...args],
      options: parserOptions(spec),
      strict: true,
      allowPositionals: spec.positionals !== undefined,
    });
  } catch (error) {
    throw new UsageError(usageMessage(spec, error));
  }
  return { values: canonicalValues(spec, parsed.values), positionals: parsed.positionals };
}

export function stringValue(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

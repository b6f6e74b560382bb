// Help texts, rendered from the command specs so they cannot disagree with what is parsed.
import { inputDefault } from '../config/settings.ts';
import type { CommandSpec, OptionSpec } from './spec.ts';

export const PROGRAM = 'preview-gc';

function optionLabel(name: string, option: OptionSpec): string {
  const long = `--${name}${option.value === undefined ? '' : ` ${option.value}`}`;
  return option.short === undefined ? `    ${long}` : `-${option.short}, ${long}`;
}

function twoColumns(rows: readonly [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/**
 * A flag's description, then its aliases and the default of the input it sets, taken from the settings
 * schema so help cannot disagree with what an absent flag becomes. On/off flags show none: absent is off.
 */
function optionText(option: OptionSpec): string {
  const aliases = option.aliases?.map((alias) => `--${alias}`).join(', ');
  const fallback =
    option.type === 'string' && option.input !== undefined ? inputDefault(option.input) : undefined;
  return [
    option.description,
    ...(aliases === undefined ? [] : [`Also ${aliases}.`]),
    ...(fallback === undefined ? [] : [`Default: ${fallback}.`]),
  ].join(' ');
}

export function commandHelp(spec: CommandSpec): string {
  const usage = spec.usage.map((line, index) => `${index === 0 ? 'Usage: ' : '       '}${PROGRAM} ${line}`);
  const options = twoColumns(
    Object.entries(spec.options).map(([name, option]) => [optionLabel(name, option), optionText(option)]),
  );
  return [
    `${PROGRAM} ${spec.name}: ${spec.summary}`,
    '',
    ...usage,
    '',
    spec.description,
    '',
    'Options:',
    ...options,
    ...(spec.env.length > 0 ? ['', 'Environment:', `  ${spec.env.join(', ')}`] : []),
    '',
    'Examples:',
    ...spec.examples.map((example) => `  ${PROGRAM} ${example}`),
  ].join('\n');
}

/** Help of a command group (`preview-gc`, `preview-gc slots`): its commands, one line each. */
export function groupHelp(options: {
  title: string;
  usage: string;
  commands: readonly CommandSpec[];
  footer: readonly string[];
}): string {
  return [
    options.title,
    '',
    `Usage: ${PROGRAM} ${options.usage}`,
    '',
    'Commands:',
    ...twoColumns(options.commands.map((spec) => [spec.name, spec.summary])),
    '',
    ...options.footer,
  ].join('\n');
}

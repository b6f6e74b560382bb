// preview-gc, the CLI: finds the command, parses its flags, runs it, and turns every way it can end
// into an exit code: 0 done, 1 the run failed, 2 wrong usage (with that command's help).
import packageJson from '../../package.json' with { type: 'json' };
import { semaphoreRefusedToken } from '../config/run-place.ts';
import { SettingsError } from '../config/settings.ts';
import { SemaphoreError } from '../semaphore/client.ts';
import { closestWord } from '../text/did-you-mean.ts';
import { visible } from '../text/log-text.ts';
import { acquireCommand } from './acquire.ts';
import { cleanupCommand } from './cleanup.ts';
import { doctorCommand } from './doctor.ts';
import { gcCommand } from './gc.ts';
import { commandHelp, groupHelp, PROGRAM } from './help.ts';
import { cliPlace } from './inputs.ts';
import type { CliIO } from './io.ts';
import { releaseCommand } from './release.ts';
import { slotsAddCommand } from './slots-add.ts';
import { slotsListCommand } from './slots-list.ts';
import { slotsMarkDirtyCommand } from './slots-mark-dirty.ts';
import { slotsProvisionCommand } from './slots-provision.ts';
import { slotsRemoveCommand } from './slots-remove.ts';
import { slotsSyncCommand } from './slots-sync.ts';
import { CommandFailure, type CommandSpec, parseCommand, UsageError } from './spec.ts';
import { statusCommand } from './status.ts';

const SLOTS_COMMANDS: readonly CommandSpec[] = [
  slotsListCommand,
  slotsAddCommand,
  slotsRemoveCommand,
  slotsSyncCommand,
  slotsMarkDirtyCommand,
  slotsProvisionCommand,
];
export const COMMANDS: readonly CommandSpec[] = [
  statusCommand,
  gcCommand,
  cleanupCommand,
  acquireCommand,
  doctorCommand,
  releaseCommand,
  ...SLOTS_COMMANDS,
];

const ENVIRONMENT_FOOTER = [
  'Environment (the same secrets the workflows use):',
  '  SEMAPHORE_URL, SEMAPHORE_TOKEN               every command',
  '  CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID  gc, cleanup and acquire; doctor, slots add and sync check resources with them',
  '  CLOUDFLARE_API_BASE_URL                      only to point at a test double',
  '  NO_COLOR                                     plain output on a terminal too',
  '',
  'Exit codes: 0 done, 1 the run failed (the output says what to do), 2 wrong usage.',
  `Run '${PROGRAM} <command> --help' for a command's flags, '${PROGRAM} --version' for the version.`,
];

export const PROGRAM_HELP = groupHelp({
  title: `${PROGRAM}: keeps a pool of Cloudflare preview slots healthy (see README.md)`,
  usage: '<command> [options]',
  commands: COMMANDS,
  footer: ENVIRONMENT_FOOTER,
});

const SLOTS_HELP = groupHelp({
  title: `${PROGRAM} slots: the pool's inventory`,
  usage: 'slots list|add|remove|sync|mark-dirty|provision [options]',
  commands: SLOTS_COMMANDS,
  footer: [`Run '${PROGRAM} slots <command> --help' for a command's flags.`],
});

const HELP_FLAGS = new Set(['--help', '-h', 'help']);
const VERSION_FLAGS = new Set(['--version', '-V', 'version']);

/** The command named by the first words of argv, the help to show when it goes wrong, and the rest. */
function findCommand(argv: readonly string[]): { spec: CommandSpec | null; help: string; rest: string[] } {
  const [first = '', second = '', ...more] = argv;
  if (first === 'slots') {
    const spec = SLOTS_COMMANDS.find((candidate) => candidate.name === `slots ${second}`) ?? null;
    return spec === null
      ? { spec: null, help: SLOTS_HELP, rest: [second, ...more] }
      : { spec, help: commandHelp(spec), rest: more };
  }
  const spec = COMMANDS.find((candidate) => candidate.name === first) ?? null;
  return spec === null
    ? { spec: null, help: PROGRAM_HELP, rest: argv.slice(0) }
    : { spec, help: commandHelp(spec), rest: argv.slice(1) };
}

/** "unknown command 'stauts'", with the closest command when there is one. */
function unknownCommand(group: string, word: string): string {
  const names = (group === '' ? COMMANDS : SLOTS_COMMANDS).map((spec) => spec.name.slice(group.length));
  const guess = closestWord(word, [...new Set(names.map((name) => name.split(' ')[0] ?? name))]);
  return `unknown command '${group}${word}'${guess === undefined ? '' : `: did you mean '${group}${guess}'?`}`;
}

function usageFailure(io: CliIO, message: string, help: string): number {
  io.err(`${PROGRAM}: ${message}\n\n${help}`);
  return 2;
}

function describeFailure(error: unknown, spec: CommandSpec): string {
  const refused = semaphoreRefusedToken(error, cliPlace(spec.name, spec.options));
  if (refused !== undefined) return refused;
  if (error instanceof SemaphoreError) {
    const status = error.status === undefined ? '' : ` (HTTP ${error.status})`;
    // The message is the server's words: on one line, its control characters spelled out.
    return `the semaphore refused or failed ${error.operation}${status}: ${visible(error.message)}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const { spec, help, rest } = findCommand(argv);
  if (spec === null) {
    const word = rest[0] ?? '';
    if (HELP_FLAGS.has(word)) {
      io.out(help);
      return 0;
    }
    if (VERSION_FLAGS.has(word) && argv.length === 1) {
      io.out(`${PROGRAM} ${packageJson.version}`);
      return 0;
    }
    const group = argv[0] === 'slots' ? 'slots ' : '';
    const missing =
      group === ''
        ? 'which command?'
        : 'slots needs a command: list, add, remove, sync, mark-dirty or provision';
    return usageFailure(io, word === '' ? missing : unknownCommand(group, word), help);
  }
  try {
    const parsed = parseCommand(spec, rest);
    if (parsed.values.help === true) {
      io.out(help);
      return 0;
    }
    return await spec.run(parsed, io);
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(io, error.message, help);
    // Its message already names the program and every problem, each on a line of its own.
    if (error instanceof SettingsError) {
      io.err(`${error.message}\n\n${help}`);
      return 2;
    }
    io.err(
      `${PROGRAM} ${spec.name}: ${error instanceof CommandFailure ? error.message : describeFailure(error, spec)}`,
    );
    return 1;
  }
}

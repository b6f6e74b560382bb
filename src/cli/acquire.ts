// preview-gc acquire --pr <n>: the deploy job's step from a terminal: give the pull request its slot,
// erased first when it held someone else's data.
import { ALL_ENV, CLOUDFLARE_OPTIONS, RUN_LIMIT_OPTIONS, SEMAPHORE_OPTIONS } from './inputs.ts';
import { runReportCommand } from './run-report.ts';
import { type CommandSpec, stringValue, UsageError } from './spec.ts';

const { 'gc-lease-minutes': _gcLease, ...ERASE_LIMIT_OPTIONS } = RUN_LIMIT_OPTIONS;

export const acquireCommand: CommandSpec = {
  name: 'acquire',
  summary: "give a pull request its slot, erased first when it held someone else's data",
  usage: ['acquire --pr <n> [--lease-minutes <n>] [--wait-minutes <n>] [options]'],
  description: [
    'What the deploy job runs: pr-<n> keeps the slot it holds (its lease extended) or gets a free',
    'one, never by force. A slot released dirty or taken over from an expired lease is erased under',
    'the new lease before it is handed over; if that fails it is released dirty and the run fails.',
    'Slots that need repair are not handed out. Prints the slot and its resources with their ids,',
    "writes the app's wrangler config for the slot next to it (wrangler deploy --config <it>), and",
    "prints the preview's URL: the slot's Worker on the account's workers.dev subdomain.",
  ].join('\n'),
  options: {
    pr: {
      type: 'string',
      value: '<n>',
      input: 'pull-request',
      aliases: ['pull-request'],
      description: 'The pull request number.',
    },
    'lease-minutes': {
      type: 'string',
      value: '<n>',
      input: 'lease-minutes',
      description: 'How long the pull request keeps the slot without a new deploy or e2e run (three hours).',
    },
    'wait-minutes': {
      type: 'string',
      value: '<n>',
      input: 'wait-minutes',
      description:
        "When no slot is free, wait this long in the pool's queue (first come, first served; its place is printed as it moves), then fail.",
    },
    'wrangler-config': {
      type: 'string',
      value: '<path>',
      input: 'wrangler-config',
      description:
        "The app's wrangler config to write for the slot (default: wrangler.jsonc, .json or .toml here).",
    },
    ...ERASE_LIMIT_OPTIONS,
    ...CLOUDFLARE_OPTIONS,
    ...SEMAPHORE_OPTIONS,
  },
  env: ALL_ENV,
  examples: ['acquire --pr 1592', 'acquire --pr 1592 --wait-minutes 10 --json'],
  run: (parsed, io) => {
    const pr = stringValue(parsed.values, 'pr');
    if (pr === undefined) throw new UsageError('acquire needs the pull request: --pr <n>');
    return runReportCommand('acquire', acquireCommand, parsed, io, `for pull request #${pr}`);
  },
};

// preview-gc doctor: every slot of the pool against the config, the account and the lease; read-only.
import { ALL_ENV, CLOUDFLARE_OPTIONS, SEMAPHORE_OPTIONS } from './inputs.ts';
import { runReportCommand } from './run-report.ts';
import type { CommandSpec } from './spec.ts';

export const doctorCommand: CommandSpec = {
  name: 'doctor',
  summary: 'check every slot of the pool against the config, the account and its lease',
  usage: ['doctor [--lease-minutes <n>] [options]'],
  description: [
    'Lists the pool once and changes nothing. For every slot: names the config refuses (protected,',
    'or shared with another slot), resources the account does not have (with CLOUDFLARE_API_TOKEN',
    'and CLOUDFLARE_ACCOUNT_ID set: one listing per kind), a slot that needs repair, dirty, a lease',
    'that ended long ago and no gc took back, or that runs far beyond --lease-minutes. Prints a',
    'table; exits 1 when a slot has a problem. (The action, with a github-token, also finds holders',
    'whose pull request closed.)',
  ].join('\n'),
  options: {
    'lease-minutes': {
      type: 'string',
      value: '<n>',
      input: 'lease-minutes',
      description: "The deploys' lease-minutes: a lease far beyond it is a problem.",
    },
    ...CLOUDFLARE_OPTIONS,
    ...SEMAPHORE_OPTIONS,
  },
  env: ALL_ENV,
  examples: ['doctor', 'doctor --lease-minutes 240 --json'],
  run: (parsed, io) => runReportCommand('doctor', doctorCommand, parsed, io, 'to check'),
};

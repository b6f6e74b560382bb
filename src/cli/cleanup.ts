// preview-gc cleanup --pull-request <n>: a pull request closed; give back every slot it holds, now.
import {
  ALL_ENV,
  CLOUDFLARE_OPTIONS,
  DRY_RUN_OPTION,
  RUN_LIMIT_OPTIONS,
  SEMAPHORE_OPTIONS,
} from './inputs.ts';
import { runReportCommand } from './run-report.ts';
import { type CommandSpec, stringValue, UsageError } from './spec.ts';

export const cleanupCommand: CommandSpec = {
  name: 'cleanup',
  summary: 'release every slot a pull request holds, and park its compute',
  usage: ['cleanup --pull-request <n> [--dry-run] [options]'],
  description: [
    'What the action does when a pull request closes: every slot held by pr-<n> is released now,',
    'its Durable Objects parked, its data erased when the budget allows (dirty otherwise: the next',
    'gc or acquirer erases it). Exits 1 only when a release failed.',
  ].join('\n'),
  options: {
    'pull-request': {
      type: 'string',
      value: '<n>',
      input: 'pull-request',
      aliases: ['pr'],
      description: 'The pull request number.',
    },
    ...DRY_RUN_OPTION,
    ...RUN_LIMIT_OPTIONS,
    ...CLOUDFLARE_OPTIONS,
    ...SEMAPHORE_OPTIONS,
  },
  env: ALL_ENV,
  examples: ['cleanup --pull-request 1592', 'cleanup --pr 1592 --dry-run'],
  run: (parsed, io) => {
    const pr = stringValue(parsed.values, 'pull-request');
    if (pr === undefined) throw new UsageError('cleanup needs the pull request: --pull-request <n>');
    return runReportCommand('cleanup', cleanupCommand, parsed, io, `held by pull request #${pr}`);
  },
};

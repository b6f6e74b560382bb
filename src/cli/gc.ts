// preview-gc gc: take back every slot whose lease expired, and erase the dirty available ones.
import {
  ALL_ENV,
  CLOUDFLARE_OPTIONS,
  DRY_RUN_OPTION,
  RUN_LIMIT_OPTIONS,
  SEMAPHORE_OPTIONS,
} from './inputs.ts';
import { runReportCommand } from './run-report.ts';
import type { CommandSpec } from './spec.ts';

export const gcCommand: CommandSpec = {
  name: 'gc',
  summary: 'reclaim slots whose lease expired, and erase dirty available ones',
  usage: ['gc [--dry-run] [options]'],
  description: [
    'The hourly sweep of the action, from a terminal. For each expired or dirty slot, oldest first:',
    'acquire it (never a live lease), erase its data, release it: clean when every step worked,',
    'dirty otherwise, so the next sweep goes on. The release always happens. Exits 1 when an',
    'acquire, erase or release failed; a deferred slot alone does not fail the run.',
  ].join('\n'),
  options: {
    ...DRY_RUN_OPTION,
    'max-slots': {
      type: 'string',
      value: '<n>',
      input: 'max-slots',
      description: 'At most this many slots this run, oldest first.',
    },
    'reclaim-dirty': {
      type: 'string',
      value: '<bool>',
      input: 'reclaim-dirty',
      description: 'false: take back expired leases only, leave dirty available slots.',
    },
    'spend-alert-usd-per-hour': {
      type: 'string',
      value: '<usd>',
      input: 'spend-alert-usd-per-hour',
      description: 'Alert about a live lease whose compute costs more than this an hour (default 1).',
    },
    'webhook-url': {
      type: 'string',
      value: '<url>',
      input: 'webhook-url',
      description:
        'Tell this webhook (Slack-compatible JSON) about spend alerts, parks and slots that need repair.',
    },
    'spend-park-usd-per-hour': {
      type: 'string',
      value: '<usd>',
      input: 'spend-park-usd-per-hour',
      description:
        'Park a live lease whose compute costs more than this an hour in two runs in a row (off unless set).',
    },
    ...RUN_LIMIT_OPTIONS,
    ...CLOUDFLARE_OPTIONS,
    ...SEMAPHORE_OPTIONS,
  },
  env: ALL_ENV,
  examples: ['gc --dry-run', 'gc --max-slots 3 --request-budget 200', 'gc --json > report.json'],
  run: (parsed, io) => runReportCommand('gc', gcCommand, parsed, io, 'to reclaim'),
};

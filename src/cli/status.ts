// preview-gc status: the pool as a table, read-only.

import { ALL_ENV, CLOUDFLARE_OPTIONS, SEMAPHORE_OPTIONS } from './inputs.ts';
import { runReportCommand } from './run-report.ts';
import type { CommandSpec } from './spec.ts';

export const statusCommand: CommandSpec = {
  name: 'status',
  summary: 'show the pool: who holds each slot, until when, and which are dirty',
  usage: ['status [options]'],
  description: [
    'Lists the pool once and changes nothing. Expired leases are the slots the next gc takes back;',
    'dirty available slots are erased by the next gc (or by their next acquirer). What each slot spent',
    "in the last hour is read from Cloudflare's analytics with CLOUDFLARE_API_TOKEN and",
    "CLOUDFLARE_ACCOUNT_ID and the slot config; without them it is gc's last record.",
  ].join('\n'),
  options: {
    'spend-alert-usd-per-hour': {
      type: 'string',
      value: '<usd>',
      input: 'spend-alert-usd-per-hour',
      description: 'Flag live leases whose compute costs more than this an hour (default 1).',
    },
    ...CLOUDFLARE_OPTIONS,
    ...SEMAPHORE_OPTIONS,
  },
  env: ALL_ENV,
  examples: ['status', 'status --pool preview-slot --json'],
  run: (parsed, io) => runReportCommand('status', statusCommand, parsed, io, 'selected'),
};

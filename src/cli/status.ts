// preview-gc status: the pool as a table, read-only.

import { SEMAPHORE_ENV, SEMAPHORE_OPTIONS } from './inputs.ts';
import { runReportCommand } from './run-report.ts';
import type { CommandSpec } from './spec.ts';

export const statusCommand: CommandSpec = {
  name: 'status',
  summary: 'show the pool: who holds each slot, until when, and which are dirty',
  usage: ['status [options]'],
  description:
    'Lists the pool once and changes nothing. Expired leases are the slots the next gc takes back;\ndirty available slots are erased by the next gc (or by their next acquirer).',
  options: SEMAPHORE_OPTIONS,
  env: SEMAPHORE_ENV,
  examples: ['status', 'status --pool preview-slot --json'],
  run: (parsed, io) => runReportCommand('status', statusCommand, parsed, io, 'selected'),
};

// preview-gc status: the pool as a table, read-only, and the role the token signs in with.

import type { WhoamiAnswer } from '../semaphore/protocol.ts';
import { visible } from '../text/log-text.ts';
import { ALL_ENV, CLOUDFLARE_OPTIONS, SEMAPHORE_OPTIONS, settingsOf } from './inputs.ts';
import { envSecrets } from './io.ts';
import { runReportCommand } from './run-report.ts';
import type { CommandSpec } from './spec.ts';
import { paint } from './style.ts';

/** The role line: who the token is to the semaphore, and what it may do. */
export function roleLine(role: WhoamiAnswer): string {
  const holder = role.holder === null ? '' : ` as ${visible(role.holder)}`;
  return `Signed in to the semaphore as ${visible(role.role)}${holder}: it may ${visible(role.may)}.`;
}

export const statusCommand: CommandSpec = {
  name: 'status',
  summary: 'show the pool: who holds each slot, until when, and which are dirty',
  usage: ['status [options]'],
  description: [
    'Lists the pool once and changes nothing. Expired leases are the slots the next gc takes back;',
    'dirty available slots are erased by the next gc (or by their next acquirer). What each slot spent',
    "in the last hour is read from Cloudflare's analytics with CLOUDFLARE_API_TOKEN and",
    "CLOUDFLARE_ACCOUNT_ID and the slot config; without them it is gc's last record. It also says which",
    'role the token signs in with (admin, gc, read) and what that role may do.',
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
  async run(parsed, io) {
    const settings = settingsOf('status', statusCommand.options, parsed.values, io.env, statusCommand.env);
    const { createSemaphoreClient } = await import('../services.ts');
    // Asked once, alongside the listing; a semaphore too old to answer it just goes unnamed.
    const role = await createSemaphoreClient(settings, { secrets: envSecrets(io.env) })
      .whoami()
      .catch(() => null);
    return runReportCommand('status', statusCommand, parsed, io, 'selected', {
      after: () => {
        if (role !== null && parsed.values.json !== true) io.out(paint(io.outStyle, 'dim', roleLine(role)));
      },
      json: (report) => (role === null ? report : { ...report, semaphoreRole: role }),
    });
  },
};

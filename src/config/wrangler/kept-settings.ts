// Settings the slot's copy keeps or edits that could still reach outside the slot, checked before any
// slot is taken: `triggers` must be a table (the copy writes its crons; anything else would fail only
// after the slot was taken and erased), and no Durable Object storage may move between scripts
// (`migrations[].transferred_classes`, an `exports` entry `transferred` or `expecting-transfer`):
// a transfer would bring another Worker's objects, production's often, into the slot's Worker, whose
// erase then deletes them.
import { pathText } from '../../kinds/wrangler-binding.ts';
import type { AppWranglerConfig } from './app-config.ts';
import { isTable } from './config-edits.ts';

const TRANSFER_STATES = new Set(['transferred', 'expecting-transfer']);

function triggersProblems(top: Readonly<Record<string, unknown>>): string[] {
  const triggers = top.triggers;
  if (triggers === undefined) return [];
  if (!isTable(triggers)) return ['triggers: must be a table, e.g. { "crons": ["0 3 * * *"] }'];
  const crons = triggers.crons;
  if (crons !== undefined && !(Array.isArray(crons) && crons.every((cron) => typeof cron === 'string')))
    return ['triggers.crons: must be a list of cron expressions, e.g. ["0 3 * * *"]'];
  return [];
}

function transferProblems(top: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const migrations = top.migrations;
  if (Array.isArray(migrations))
    migrations.forEach((migration: unknown, index) => {
      if (isTable(migration) && migration.transferred_classes !== undefined)
        problems.push(
          `${pathText(['migrations', index])}.transferred_classes: moves another Worker's Durable Objects into the preview, whose erase would delete them; leave the transfer out of the preview's config (an env block without it)`,
        );
    });
  const exports = top.exports;
  if (isTable(exports))
    for (const [name, entry] of Object.entries(exports))
      if (isTable(entry) && typeof entry.state === 'string' && TRANSFER_STATES.has(entry.state))
        problems.push(
          `exports.${JSON.stringify(name)}: state ${JSON.stringify(entry.state)} moves Durable Object storage between scripts; a preview must keep its own, so leave the transfer out of the preview's config`,
        );
  return problems;
}

/** What the kept settings of `app` would let reach outside the slot, one problem each, by place. */
export function keptSettingsProblems(app: AppWranglerConfig): string[] {
  return [...triggersProblems(app.top), ...transferProblems(app.top)].map(
    (problem) => `${app.file} ${problem}`,
  );
}

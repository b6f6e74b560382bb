// `erase: recreate` of a D1 database: delete it and create it again under the same name (see
// src/kinds/recreate.ts); the run's D1 listing gets the new uuid. The new database keeps what the old
// one was: its jurisdiction and read replication mode are read before the delete and sent with the
// create, and the slot config's location hint is sent too (Cloudflare does not report a hint back).
// A setting this code cannot send again refuses the recreate, naming it, before anything is deleted.
import { type RecreateDetails, recreateStore } from '../recreate.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import {
  createD1Database,
  type D1CreateSettings,
  type D1Settings,
  deleteD1Database,
  getD1Settings,
} from './api.ts';
import type { SlotD1 } from './config.ts';

const JURISDICTIONS = ['eu', 'fedramp', 'us'] as const;
const REPLICATION_MODES = ['auto', 'disabled'] as const;

const isOneOf = <T extends string>(values: readonly T[], value: string): value is T =>
  (values as readonly string[]).includes(value);

/** The create's settings that make the new database what the old one was, or why there are none. */
export function carriedOver(database: SlotD1, read: D1Settings): D1CreateSettings | string {
  const settings: D1CreateSettings = {};
  if (read.jurisdiction !== null) {
    if (!isOneOf(JURISDICTIONS, read.jurisdiction))
      return `its jurisdiction ${JSON.stringify(read.jurisdiction)} is not one preview-gc can create a database in (${JURISDICTIONS.join(', ')})`;
    settings.jurisdiction = read.jurisdiction;
  }
  if (read.readReplication !== undefined) {
    if (!isOneOf(REPLICATION_MODES, read.readReplication))
      return `its read replication mode ${JSON.stringify(read.readReplication)} is not one preview-gc can create a database with (${REPLICATION_MODES.join(', ')})`;
    settings.read_replication = { mode: read.readReplication };
  }
  if (database.locationHint !== undefined) settings.primary_location_hint = database.locationHint;
  return settings;
}

export async function recreateD1(
  context: EraseContext,
  database: SlotD1,
  uuid: string,
  listingKey: string,
): Promise<StepOutcome<RecreateDetails>> {
  const settings = carriedOver(database, await getD1Settings(context.api, uuid));
  if (typeof settings === 'string')
    throw new StepError(
      'refused',
      `the D1 database '${database.name}' was not recreated, nothing was deleted: ${settings}; use erase: drop for it`,
    );
  return recreateStore(
    context,
    { noun: 'D1 database', name: database.name, oldId: uuid },
    {
      remove: () => deleteD1Database(context.api, uuid),
      create: () => createD1Database(context.api, database.name, settings),
      amend: (newId) =>
        context.resolver.amend<{ uuid: string; name: string }[]>(listingKey, (databases) =>
          databases.map((entry) => (entry.uuid === uuid ? { ...entry, uuid: newId } : entry)),
        ),
    },
  );
}

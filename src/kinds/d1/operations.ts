// What the D1 kind does at Cloudflare: find the database by name in the run's one listing, erase it,
// and read back what is left. The inventory's reads ride in the erase's own requests (send.ts); when
// they could not (the erase's last request full, or not known to be the last), the inventory reads
// once more on its own, in one request: it has the schema from the erase's first.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { defineOperations } from '../kind.ts';
import type { RecreateDetails } from '../recreate.ts';
import type { StepOutcome } from '../step.ts';
import { createD1Database, listD1Databases } from './api.ts';
import type { D1Template } from './config.ts';
import { type D1Details, d1DoneBefore } from './details.ts';
import { eraseD1 } from './erase.ts';
import { D1Inventory, readD1Inventory } from './inventory.ts';
import { recreateD1 } from './recreate.ts';

const LISTING = 'd1';
const databases = (resolver: NameResolver) => resolver.listing(LISTING, listD1Databases);

export const d1Operations = defineOperations<D1Template>()({
  probe: databases,
  /** The database's uuid. */
  find: async (resolver, database) =>
    (await databases(resolver)).find((candidate) => candidate.name === database.name)?.uuid,
  idOf: (_database, uuid) => uuid,
  // The settings answer a D1 binding's database as `database_id` (the SDK's type) or `id` (what a deploy sends).
  bindsIt: (binding, _database, uuid) =>
    binding.type === 'd1' && (binding.database_id === uuid || binding.id === uuid),
  create: async (context, database) => {
    await createD1Database(context.api, database.name);
  },
  erase: async (context, database, uuid): Promise<StepOutcome<D1Details | RecreateDetails>> => {
    if (database.erase === 'recreate') return recreateD1(context, database, uuid, LISTING);
    const inventory = new D1Inventory(database.erase);
    const outcome = await eraseD1(context, database, uuid, inventory);
    if (context.dryRun) return outcome;
    return { ...outcome, inventory: inventory.result() ?? (await inventory.read(context.api, uuid)) };
  },
  inventory: (context, database, uuid) => readD1Inventory(context.api, uuid, inventoryMode(database.erase)),
  doneBefore: (details) => ('mode' in details ? d1DoneBefore(details) : undefined),
});

/** A recreated database is new: like a dropped schema, anything in it is left. */
function inventoryMode(erase: D1Template['erase']): 'rows' | 'drop' {
  return erase === 'recreate' ? 'drop' : erase;
}

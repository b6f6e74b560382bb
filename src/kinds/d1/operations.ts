// What the D1 kind does at Cloudflare: find the database by name in the run's one listing, erase it,
// and read back what is left. The inventory's reads ride in the erase's own requests (send.ts); when
// they could not (the erase's last request full, or not known to be the last), the inventory reads
// once more on its own, in one request: it has the schema from the erase's first.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { defineOperations } from '../kind.ts';
import { listD1Databases } from './api.ts';
import type { D1Template } from './config.ts';
import { d1DoneBefore } from './details.ts';
import { eraseD1 } from './erase.ts';
import { D1Inventory, readD1Inventory } from './inventory.ts';

const databases = (resolver: NameResolver) => resolver.listing('d1', listD1Databases);

export const d1Operations = defineOperations<D1Template>()({
  probe: databases,
  /** The database's uuid. */
  find: async (resolver, database) =>
    (await databases(resolver)).find((candidate) => candidate.name === database.name)?.uuid,
  erase: async (context, database, databaseId) => {
    const inventory = new D1Inventory(database.erase);
    const outcome = await eraseD1(context, database, databaseId, inventory);
    if (context.dryRun) return outcome;
    return { ...outcome, inventory: inventory.result() ?? (await inventory.read(context.api, databaseId)) };
  },
  inventory: (context, database, databaseId) => readD1Inventory(context.api, databaseId, database.erase),
  doneBefore: d1DoneBefore,
});

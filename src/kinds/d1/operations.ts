// What the D1 kind does at Cloudflare: find the database by name in the run's one listing, erase it.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { defineOperations } from '../kind.ts';
import type { RecreateDetails } from '../recreate.ts';
import type { StepOutcome } from '../step.ts';
import { createD1Database, listD1Databases } from './api.ts';
import type { D1Template } from './config.ts';
import { type D1Details, eraseD1 } from './erase.ts';
import { recreateD1 } from './recreate.ts';

const LISTING = 'd1';
const databases = (resolver: NameResolver) => resolver.listing(LISTING, listD1Databases);

export const d1Operations = defineOperations<D1Template>()({
  probe: databases,
  /** The database's uuid. */
  find: async (resolver, database) =>
    (await databases(resolver)).find((candidate) => candidate.name === database.name)?.uuid,
  idOf: (_database, uuid) => uuid,
  create: async (context, database) => {
    await createD1Database(context.api, database.name);
  },
  erase: (context, database, uuid): Promise<StepOutcome<D1Details | RecreateDetails>> =>
    database.erase === 'recreate'
      ? recreateD1(context, database, uuid, LISTING)
      : eraseD1(context, database, uuid),
});

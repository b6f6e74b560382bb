// What the D1 kind does at Cloudflare: find the database by name in the run's one listing, erase it.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { defineOperations } from '../kind.ts';
import { listD1Databases } from './api.ts';
import type { D1Template } from './config.ts';
import { eraseD1 } from './erase.ts';

const databases = (resolver: NameResolver) => resolver.listing('d1', listD1Databases);

export const d1Operations = defineOperations<D1Template>()({
  probe: databases,
  /** The database's uuid. */
  find: async (resolver, database) =>
    (await databases(resolver)).find((candidate) => candidate.name === database.name)?.uuid,
  idOf: (_database, uuid) => uuid,
  erase: eraseD1,
});

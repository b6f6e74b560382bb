// Your own app's slots in the twin: every resource a slot config names, for the given slots, with a
// little data in each (rows, keys, a Durable Object class, messages, vectors), as slots in use for a
// while would hold. Each kind of the twin says what its resource holds (its `seedFor`); given your
// app's wrangler config and D1 migrations (demo/app-seed.ts), a slot's Worker has your Durable Object
// classes instead, and its D1 database your schema, d1_migrations and a few rows in every table.
// `npm run stack -- --seed <your slot config>` runs the stack with them, so the README's adoption
// steps can be tried against a copy of your app's shape before they touch your account.
import { resourcesForSlot, type SlotConfig } from '../src/config/slot-config.ts';
import { TWIN_KIND_LIST } from '../test/twin/kinds.ts';
import { type TwinSeed, twinSeedSchema } from '../test/twin/schema.ts';
import type { AppDatabase, AppWorker } from './app-seed.ts';

/** What the rehearsal knows of the app beyond its slot config: its Worker's classes, its schema. */
export interface AppShape {
  worker?: AppWorker | undefined;
  database?: AppDatabase | undefined;
}

/** The seed entries of one resource: the app's own shape where it is known, the kind's otherwise. */
function entriesFor(key: string, resource: object, slug: string, app: AppShape): unknown[] {
  const { name } = resource as { name?: string };
  if (key === 'workers' && app.worker !== undefined)
    return [
      {
        name,
        exportsMode: app.worker.exportsMode,
        ...(app.worker.migrationTag === undefined ? {} : { migrationTag: app.worker.migrationTag }),
        classes: app.worker.classes,
      },
    ];
  if (key === 'd1' && app.database !== undefined) return [{ name, sql: app.database.sql }];
  const kind = TWIN_KIND_LIST.find((candidate) => candidate.key === key);
  if (kind === undefined) throw new Error(`the twin has no kind '${key}': add it to test/twin/kinds.ts`);
  return kind.seedFor(resource, slug);
}

/** The twin seed of `slugs` under `config`: each template expanded, each resource holding data. */
export function seedFromConfig(config: SlotConfig, slugs: readonly string[], app: AppShape = {}): TwinSeed {
  const lists: Record<string, unknown[]> = {};
  for (const slug of slugs) {
    const { slot: _slot, ...byKind } = resourcesForSlot(config, slug);
    const resources: Record<string, readonly object[]> = byKind;
    for (const [key, listed] of Object.entries(resources)) {
      const list = lists[key] ?? [];
      list.push(...listed.flatMap((resource) => entriesFor(key, resource, slug, app)));
      lists[key] = list;
    }
  }
  return twinSeedSchema.parse(lists);
}

// Your own app's slots in the twin: every resource a slot config names, for the given slots, with a
// little data in each (rows, keys, a Durable Object class, messages, vectors), as slots in use for a
// while would hold. Each kind of the twin says what its resource holds (its `seedFor`).
// `npm run stack -- --seed <your slot config>` runs the stack with them, so the README's adoption
// steps can be tried against a copy of your app's shape before they touch your account.
import { resourcesForSlot, type SlotConfig } from '../src/config/slot-config.ts';
import { TWIN_KIND_LIST } from '../test/twin/kinds.ts';
import { type TwinSeed, twinSeedSchema } from '../test/twin/schema.ts';

/** The twin seed of `slugs` under `config`: each template expanded, each resource holding data. */
export function seedFromConfig(config: SlotConfig, slugs: readonly string[]): TwinSeed {
  const lists: Record<string, unknown[]> = {};
  for (const slug of slugs) {
    const { slot: _slot, ...byKind } = resourcesForSlot(config, slug);
    const resources: Record<string, readonly unknown[]> = byKind;
    for (const [key, listed] of Object.entries(resources)) {
      const kind = TWIN_KIND_LIST.find((candidate) => candidate.key === key);
      if (kind === undefined) throw new Error(`the twin has no kind '${key}': add it to test/twin/kinds.ts`);
      const list = lists[key] ?? [];
      list.push(...listed.flatMap((resource) => kind.seedFor(resource, slug)));
      lists[key] = list;
    }
  }
  return twinSeedSchema.parse(lists);
}

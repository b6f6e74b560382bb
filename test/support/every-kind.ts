// A value for every kind of the registry: the ones a test names, and an empty list for the rest, in the
// registry's order (as a slot's resources and the `resources` output have them). Tests that spell out
// a slot's resources use it, so a kind added to the registry needs no change here.
import { KIND_LIST, type KindKey } from '../../src/kinds/registry.ts';

export function everyKind<T>(given: Partial<Record<KindKey, T[]>>): Record<KindKey, T[]> {
  return Object.fromEntries(KIND_LIST.map((kind) => [kind.key, given[kind.key] ?? []])) as Record<
    KindKey,
    T[]
  >;
}

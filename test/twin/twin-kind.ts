// One kind of Cloudflare resource in the twin, in one place: its store, its part of the seed and of the
// state dump, its routes, and the seed that makes one resource of a preview slot exist with a little
// data in it. test/twin/kinds.ts lists the kinds; the account, the handlers, the seed schema and the
// state dump read that list.
import type { HttpHandler } from 'msw';
import type { z } from 'zod';
import type { AccountCore } from './account-core.ts';

/** What a kind's store is made from. */
export interface StoreContext<Options> {
  /** The account's clock. */
  now: () => number;
  /** The options the account was made with (TwinOptions), the kind's own among them. */
  options: Options;
}

/**
 * `Key` is the kind's key in the seed and the state dump, the same as in preview-gc's slot config;
 * `Store` what `twin.account[key]` holds; `Resource` one resource of a slot as preview-gc's config
 * expands it (typed by the fields the kind reads); `State` the kind's fields of the state dump;
 * `Options` the kind's own fields of TwinOptions.
 *
 * Methods rather than function-typed fields: each kind is checked against its own types where it is
 * defined, and the registry can then hold kinds of different types in one list.
 */
export interface TwinKind<
  Key extends string,
  Store,
  Seed extends z.ZodType,
  Resource,
  State extends object,
  Options extends object,
> {
  readonly key: Key;
  /** One entry of the seed's list under `key` (strict: an unknown field is an error). */
  readonly seedSchema: Seed;
  createStore(context: StoreContext<Options>): Store;
  /** Adds one parsed seed entry to the store; a resource of the same name is reused. */
  seed(store: Store, entry: z.output<Seed>): void;
  routes(store: Store, account: AccountCore): HttpHandler[];
  state(store: Store): State;
  /** The seed entries that make `resource` of slot `slug` exist, with a little data in it. */
  seedFor(resource: Resource, slug: string): z.output<Seed>[];
}

/** A kind, its types kept, checked against TwinKind. */
export function defineTwinKind<
  const Key extends string,
  Store,
  Seed extends z.ZodType,
  Resource,
  State extends object,
  Options extends object = Record<never, never>,
>(
  kind: TwinKind<Key, Store, Seed, Resource, State, Options>,
): TwinKind<Key, Store, Seed, Resource, State, Options> {
  return kind;
}

/**
 * Any kind, its types set aside, for code that treats every kind alike: each kind only ever gets the
 * store it made and entries its own schema parsed.
 */
export type SomeTwinKind = TwinKind<string, unknown, z.ZodType, unknown, object, object>;

/** `A | B` → `A & B`: the kinds' parts of one object, together. */
export type AllOf<Union> = (Union extends unknown ? (part: Union) => void : never) extends (
  part: infer Every,
) => void
  ? Every
  : never;

// The twin's kinds of resource, one folder each (docs/kinds.md, "Adding a resource kind"). The account's
// stores, the seed schema, the state dump and the handlers are all read from this list; its order is
// the order of the seed's lists and of the state dump's fields.
import { d1Kind } from './d1/twin-kind.ts';
import { kvKind } from './kv/twin-kind.ts';
import { queuesKind } from './queues/twin-kind.ts';
import { r2Kind } from './r2/twin-kind.ts';
import type { AllOf, SomeTwinKind } from './twin-kind.ts';
import { vectorizeKind } from './vectorize/twin-kind.ts';
import { workersKind } from './workers/twin-kind.ts';

export const TWIN_KINDS = [d1Kind, kvKind, r2Kind, workersKind, queuesKind, vectorizeKind] as const;

type AnyTwinKind = (typeof TWIN_KINDS)[number];
/** A kind's key: `d1`, `kv`, … (the same as in preview-gc's slot config). */
export type TwinKindKey = AnyTwinKind['key'];
type KindOf<Key extends TwinKindKey> = Extract<AnyTwinKind, { key: Key }>;

/** Every kind's store by its key: `twin.account.d1`, `twin.account.kv`, … */
export type KindStores = { readonly [Key in TwinKindKey]: ReturnType<KindOf<Key>['createStore']> };
/** The seed's lists by key, each of its kind's entries. */
export type KindSeedShape = { [Key in TwinKindKey]: KindOf<Key>['seedSchema'] };
/** The kinds' fields of the state dump. */
export type KindStates = AllOf<ReturnType<AnyTwinKind['state']>>;
/** The kinds' own fields of the account's options (`kvListingLagMs`). */
export type KindOptions = AllOf<Parameters<AnyTwinKind['createStore']>[0]['options']>;

export const TWIN_KIND_LIST: readonly SomeTwinKind[] = TWIN_KINDS;

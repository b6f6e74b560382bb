// Every kind of resource a slot can hold, in the order a slot is erased (docs/design.md#erasing-a-slot):
// compute first, so nothing writes while the data stores are emptied. The config's schema, its
// examples, a slot's resources, the erase's steps, the report's kinds and the token permissions are
// all read from this list; what each kind does at Cloudflare is in src/kinds/operations.ts, by the
// same keys. docs/kinds.md says how to add a kind.

import { d1 } from './d1/kind.ts';
import type { Origin, ResourceKind } from './kind.ts';
import { kv } from './kv/kind.ts';
import { queues } from './queues/kind.ts';
import { r2 } from './r2/kind.ts';
import { vectorize } from './vectorize/kind.ts';
import { workers } from './workers/kind.ts';

export const KINDS = [workers, d1, kv, r2, queues, vectorize] as const;

type AnyKind = (typeof KINDS)[number];
/** A kind's key in the slot config: `workers`, `d1`, … */
export type KindKey = AnyKind['key'];
/** A kind of erase step: the kind's key, but `compute` for Workers. */
export type StepKind = AnyKind['step'];
type KindOf<Key extends KindKey> = Extract<AnyKind, { key: Key }>;
type TemplateOf<Kind extends AnyKind> = ReturnType<Kind['template']>;

/** The templates of the config, by kind. */
export type KindTemplates = { [Key in KindKey]: TemplateOf<KindOf<Key>>[] };
/** The resources of one slot, by kind: each template with its name expanded. */
export type KindResources = { [Key in KindKey]: (TemplateOf<KindOf<Key>> & Origin)[] };

/** Any kind, its types erased, for code that handles every kind alike. */
// biome-ignore lint/suspicious/noExplicitAny: the one place where the kinds' own types are set aside
export type SomeKind = ResourceKind<KindKey, StepKind, string, any, any>;

export const KIND_LIST: readonly SomeKind[] = KINDS;

/** The name (or name template) an entry of `kind` holds: its `nameKey`. */
export function nameOf(kind: SomeKind, entry: object): string {
  return String((entry as Record<string, unknown>)[kind.nameKey]);
}

/** Every resource of a slot, kind by kind, with the kind it is of. */
export function eachResource(resources: KindResources): { kind: SomeKind; resource: object & Origin }[] {
  return KIND_LIST.flatMap((kind) => {
    const listed: readonly (object & Origin)[] = resources[kind.key];
    return listed.map((resource) => ({ kind, resource }));
  });
}

/** What a resource is called in a message: "D1 database", "R2 bucket (jurisdiction eu)". */
export function describeResource(kind: SomeKind, resource: object & Origin): string {
  return kind.describe?.(resource) ?? kind.noun;
}

export function kindOfStep(step: StepKind): SomeKind {
  const kind = KIND_LIST.find((candidate) => candidate.step === step);
  if (kind === undefined) throw new Error(`no resource kind for step ${step}`);
  return kind;
}

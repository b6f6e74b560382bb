// What every kind does at Cloudflare, by the kind's key: each kind's `operations.ts`. This list is
// loaded with the Cloudflare connection on a run's first erase (src/commands/cloudflare-connection.ts),
// never at start-up, because the operations bring the SDK; the kinds' definitions
// (src/kinds/registry.ts) are what start-up reads. The type makes the two lists agree: a kind in the
// registry without operations here, or the other way round, does not compile.
import type { CredentialProbe } from '../cloudflare/credentials.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import { d1Operations } from './d1/operations.ts';
import type { KindOperations } from './kind.ts';
import { kvOperations } from './kv/operations.ts';
import { queuesOperations } from './queues/operations.ts';
import { r2Operations } from './r2/operations.ts';
import { KIND_LIST, type KindKey, type KindTemplates, type SomeKind } from './registry.ts';
import { vectorizeOperations } from './vectorize/operations.ts';
import { workersOperations } from './workers/operations.ts';

const OPERATIONS: { [Key in KindKey]: KindOperations<KindTemplates[Key][number]> } = {
  workers: workersOperations,
  d1: d1Operations,
  kv: kvOperations,
  r2: r2Operations,
  queues: queuesOperations,
  vectorize: vectorizeOperations,
};

/** The operations of `kind`, its types set aside like SomeKind's. */
export function operationsOf(kind: SomeKind): KindOperations<object> {
  return OPERATIONS[kind.key] as KindOperations<object>;
}

/**
 * The listings the credential check makes: one per kind the config names, the ones the erase then
 * reuses (NameResolver keeps them for the run).
 */
export function credentialProbes(
  resolver: NameResolver,
  resources: KindTemplates,
): CredentialProbe<KindKey>[] {
  return KIND_LIST.flatMap((kind) => {
    const templates: readonly object[] = resources[kind.key];
    if (templates.length === 0) return [];
    return [{ kind: kind.key, list: () => operationsOf(kind).probe(resolver, templates) }];
  });
}

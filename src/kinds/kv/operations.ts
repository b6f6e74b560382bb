// What the KV kind does at Cloudflare: find the namespace by title in the run's one listing, erase its keys.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { plural } from '../../text/words.ts';
import { defineOperations } from '../kind.ts';
import type { RecreateDetails } from '../recreate.ts';
import type { StepOutcome } from '../step.ts';
import { createKvNamespace, listKvNamespaces } from './api.ts';
import type { KvTemplate } from './config.ts';
import { eraseKv, type KvDetails } from './erase.ts';
import { kvInventory } from './inventory.ts';
import { recreateKv } from './recreate.ts';

const LISTING = 'kv';
const namespaces = (resolver: NameResolver) => resolver.listing(LISTING, listKvNamespaces);

export const kvOperations = defineOperations<KvTemplate>()({
  probe: namespaces,
  /** The namespace's id. */
  find: async (resolver, namespace) =>
    (await namespaces(resolver)).find((candidate) => candidate.title === namespace.title)?.id,
  idOf: (_namespace, namespaceId) => namespaceId,
  bindsIt: (binding, _namespace, namespaceId) =>
    binding.type === 'kv_namespace' && binding.namespace_id === namespaceId,
  create: async (context, namespace) => {
    await createKvNamespace(context.api, namespace.title);
  },
  erase: (context, namespace, namespaceId): Promise<StepOutcome<KvDetails | RecreateDetails>> =>
    namespace.erase === 'recreate'
      ? recreateKv(context, namespace, namespaceId, LISTING)
      : eraseKv(context, namespaceId),
  inventory: (context, _namespace, namespaceId) => kvInventory(context, namespaceId),
  doneBefore: (details) =>
    'keysDeleted' in details && details.keysDeleted > 0
      ? `deleted ${plural(details.keysDeleted, 'key')}`
      : undefined,
});

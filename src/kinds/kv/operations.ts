// What the KV kind does at Cloudflare: find the namespace by title in the run's one listing, erase its keys.
import type { NameResolver } from '../../cloudflare/resolver.ts';
import { plural } from '../../text/words.ts';
import { defineOperations } from '../kind.ts';
import { listKvNamespaces } from './api.ts';
import type { KvTemplate } from './config.ts';
import { eraseKv } from './erase.ts';
import { kvInventory } from './inventory.ts';

const namespaces = (resolver: NameResolver) => resolver.listing('kv', listKvNamespaces);

export const kvOperations = defineOperations<KvTemplate>()({
  probe: namespaces,
  /** The namespace's id. */
  find: async (resolver, namespace) =>
    (await namespaces(resolver)).find((candidate) => candidate.title === namespace.title)?.id,
  idOf: (_namespace, namespaceId) => namespaceId,
  erase: (context, _namespace, namespaceId) => eraseKv(context, namespaceId),
  inventory: (context, _namespace, namespaceId) => kvInventory(context, namespaceId),
  doneBefore: (details) =>
    details.keysDeleted > 0 ? `deleted ${plural(details.keysDeleted, 'key')}` : undefined,
});

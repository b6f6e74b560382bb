// KV namespaces: the erase lists the slot's namespace and bulk-deletes every key, keeping the namespace.
import { eraseKv } from '../cloudflare/erase-kv.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import { nameTemplate } from '../config/name-template.ts';
import { plural } from '../report/format.ts';
import * as z from '../zod.ts';
import { defineKind, type Origin } from './kind.ts';

export interface KvTemplate {
  title: string;
}
export type SlotKv = KvTemplate & Origin;

const namespaces = (resolver: NameResolver) =>
  resolver.listing('kv', (account) => account.listKvNamespaces());

export const kv = defineKind({
  key: 'kv',
  step: 'kv',
  nameKey: 'title',
  noun: 'KV namespace',
  // A namespace's title may hold any character: no charset beyond the placeholders.
  entry: z.strictObject({ title: nameTemplate('title: app-{slot}-cache') }),
  examples: {
    '': 'kv: [{ title: "app-{slot}-cache" }]',
    '[]': '- title: app-{slot}-cache',
    '[].title': 'title: app-{slot}-cache',
  },
  template: (entry): KvTemplate => entry,
  permission: {
    resources: 'KV namespaces',
    dashboard: 'Workers KV Storage: Edit',
    apiName: 'Workers KV Storage Write',
    use: 'lists namespaces and keys; bulk-deletes keys',
  },
  probe: namespaces,
  /** The namespace's id. */
  find: async (resolver, namespace) =>
    (await namespaces(resolver)).find((candidate) => candidate.title === namespace.title)?.id,
  erase: (context, _namespace, namespaceId) => eraseKv(context, namespaceId),
  doneBefore: (details) =>
    'keysDeleted' in details && details.keysDeleted > 0
      ? `deleted ${plural(details.keysDeleted, 'key')}`
      : undefined,
});

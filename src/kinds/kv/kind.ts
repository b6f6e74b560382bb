// KV namespaces: the erase lists the slot's namespace and bulk-deletes every key, keeping the namespace.
import { defineKind } from '../kind.ts';
import { type KvTemplate, kvEntry } from './config.ts';
import { kvWrangler } from './wrangler.ts';

export const kv = defineKind({
  key: 'kv',
  step: 'kv',
  nameKey: 'title',
  noun: 'KV namespace',
  entry: kvEntry,
  examples: {
    '': 'kv: [{ title: "app-{slot}-cache" }]',
    '[]': '- title: app-{slot}-cache',
    '[].title': 'title: app-{slot}-cache',
    '[].erase': 'erase: keys',
    '[].bound-by': 'bound-by: wrangler-config',
  },
  template: (entry): KvTemplate => entry,
  provisionUse: "creates a slot's missing namespace",
  permission: {
    resources: 'KV namespaces',
    dashboard: 'Workers KV Storage: Edit',
    apiName: 'Workers KV Storage Write',
    use: 'lists namespaces and keys; bulk-deletes keys (with erase: recreate, deletes the namespace and creates it again)',
  },
  wrangler: kvWrangler,
});

// R2 buckets: objects are never deleted one by one; the erase makes sure the bucket's managed
// lifecycle rule is in place, and the rule expires the slot's objects.
import { defineKind } from '../kind.ts';
import { bucketNoun, type R2Template, r2Entry } from './config.ts';
import { r2Wrangler } from './wrangler.ts';

export const r2 = defineKind({
  key: 'r2',
  step: 'r2',
  nameKey: 'bucket',
  noun: 'R2 bucket',
  entry: r2Entry,
  examples: {
    '': 'r2: [{ bucket: "app-{slot}-files", expire: { id: expire-preview-files, after: 3h } }]',
    '[]': '- bucket: app-{slot}-files',
    '[].bucket': 'bucket: app-{slot}-files',
    '[].jurisdiction': 'jurisdiction: eu',
    '[].expire': 'expire: { id: expire-preview-files, prefix: "", after: 3h }',
    '[].expire.id': 'id: expire-preview-files',
    '[].expire.prefix': 'prefix: "backups/"',
    '[].expire.after': 'after: 3h',
  },
  template: (entry): R2Template => ({
    bucket: entry.bucket,
    jurisdiction: entry.jurisdiction,
    expire: { id: entry.expire.id, prefix: entry.expire.prefix, afterSeconds: entry.expire.after },
    binding: entry.binding,
  }),
  provisionUse: "creates a slot's missing bucket and its lifecycle rule",
  permission: {
    resources: 'R2 buckets',
    dashboard: 'Workers R2 Storage: Edit',
    apiName: 'Workers R2 Storage Write',
    use: 'lists buckets; reads and writes their lifecycle rules',
  },
  describe: (bucket) => bucketNoun(bucket.jurisdiction),
  readAtHandOver: true,
  wrangler: r2Wrangler,
});

// R2 buckets: objects are never deleted one by one; the erase makes sure the bucket's managed
// lifecycle rule is in place, and the rule expires the slot's objects.
import { bucketNoun, eraseR2 } from '../cloudflare/erase-r2.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import { parseDurationSeconds } from '../config/duration.ts';
import { nameTemplate } from '../config/name-template.ts';
import * as z from '../zod.ts';
import { defineKind, type Origin } from './kind.ts';

export const R2_JURISDICTIONS = ['default', 'eu', 'us', 'fedramp', 'fedramp-high'] as const;
export type R2Jurisdiction = (typeof R2_JURISDICTIONS)[number];

export interface R2Expiry {
  /** The id of the lifecycle rule preview-gc manages in the bucket. */
  id: string;
  prefix: string;
  afterSeconds: number;
}
export interface R2Template {
  bucket: string;
  jurisdiction: R2Jurisdiction;
  expire: R2Expiry;
}
export type SlotR2 = R2Template & Origin;

const durationSeconds = z.unknown().transform((value, ctx) => {
  const seconds = typeof value === 'string' ? parseDurationSeconds(value) : undefined;
  if (seconds !== undefined) return seconds;
  ctx.addIssue({
    code: 'custom',
    message: `must be a positive duration like 3h, 90m or 2d, got ${JSON.stringify(value)}; write e.g. after: 3h`,
  });
  return z.NEVER;
});

/** Buckets are listed per jurisdiction (and addressed by name): one listing per jurisdiction and run. */
const bucketNames = (resolver: NameResolver, jurisdiction: R2Jurisdiction) =>
  resolver.listing(`r2:${jurisdiction}`, (account) => account.listR2Buckets(jurisdiction));

export const r2 = defineKind({
  key: 'r2',
  step: 'r2',
  nameKey: 'bucket',
  noun: 'R2 bucket',
  entry: z.strictObject({
    bucket: nameTemplate('bucket: app-{slot}-files', { pattern: /^[a-z0-9-]*$/, text: 'a-z, 0-9 and -' }),
    jurisdiction: z.enum(R2_JURISDICTIONS).default('default'),
    expire: z.strictObject({
      id: z.string().min(1, 'must not be empty; write e.g. id: expire-preview-files'),
      prefix: z.string().default(''),
      after: durationSeconds,
    }),
  }),
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
  }),
  permission: {
    resources: 'R2 buckets',
    dashboard: 'Workers R2 Storage: Edit',
    apiName: 'Workers R2 Storage Write',
    use: 'lists buckets; reads and writes their lifecycle rules',
  },
  probe: (resolver, buckets) => {
    const jurisdictions = new Set(buckets.map((bucket) => bucket.jurisdiction));
    return Promise.all([...jurisdictions].map((jurisdiction) => bucketNames(resolver, jurisdiction)));
  },
  find: async (resolver, bucket) =>
    (await bucketNames(resolver, bucket.jurisdiction)).includes(bucket.bucket) ? true : undefined,
  describe: (bucket) => bucketNoun(bucket.jurisdiction),
  erase: (context, bucket) => eraseR2(context, bucket),
});

// What the slot config says of an R2 bucket: its name template, its jurisdiction and the lifecycle
// rule that expires its objects.
import { parseDurationSeconds } from '../../text/duration.ts';
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { nameTemplate } from '../name-template.ts';
import { bindingKey } from '../wrangler-binding.ts';

export const R2_JURISDICTIONS = ['default', 'eu', 'us', 'fedramp', 'fedramp-high'] as const;
export type R2Jurisdiction = (typeof R2_JURISDICTIONS)[number];

export interface R2Expiry {
  /** The id of the lifecycle rule preview-gc manages in the bucket. */
  id: string;
  prefix: string;
  afterSeconds: number;
}
export interface R2Template {
  /** What the app's wrangler config calls it (docs/config.md#the-slots-wrangler-config). */
  binding?: string | undefined;
  bucket: string;
  jurisdiction: R2Jurisdiction;
  expire: R2Expiry;
}
export type SlotR2 = R2Template & Origin;

/** What a bucket is called in a message: "R2 bucket (jurisdiction eu)". */
export function bucketNoun(jurisdiction: SlotR2['jurisdiction']): string {
  return jurisdiction === 'default' ? 'R2 bucket' : `R2 bucket (jurisdiction ${jurisdiction})`;
}

const durationSeconds = z.unknown().transform((value, ctx) => {
  const seconds = typeof value === 'string' ? parseDurationSeconds(value) : undefined;
  if (seconds !== undefined) return seconds;
  ctx.addIssue({
    code: 'custom',
    message: `must be a positive duration like 3h, 90m or 2d, got ${JSON.stringify(value)}; write e.g. after: 3h`,
  });
  return z.NEVER;
});

export const r2Entry = z.strictObject({
  bucket: nameTemplate('bucket: app-{slot}-files', { pattern: /^[a-z0-9-]*$/, text: 'a-z, 0-9 and -' }),
  jurisdiction: z.enum(R2_JURISDICTIONS).default('default'),
  expire: z.strictObject({
    id: z.string().min(1, 'must not be empty; write e.g. id: expire-preview-files'),
    prefix: z.string().default(''),
    after: durationSeconds,
  }),
  binding: bindingKey,
});

// The `worker-previews` section of the slot config: Workers whose Cloudflare Worker Previews
// (`wrangler preview`) gc sweeps, one entry a Worker. These are not slots: a preview belongs to a
// branch or a pull request of the app's own Worker, and Cloudflare deletes none of them by itself.
import { parseDurationSeconds } from '../text/duration.ts';
import * as z from '../zod.ts';

/** One Worker whose previews gc sweeps. */
export interface WorkerPreviewsEntry {
  /** The Worker's name. */
  worker: string;
  /** How long a preview may go without a new deployment before it is deleted. */
  ttlSeconds: number;
  /** Names or globs of previews never deleted (`staging`, `release-*`). */
  keep: string[];
  /** How many previews to keep at most; undefined: no cap of our own. */
  max: number | undefined;
}

const ttl = z.unknown().transform((value, ctx) => {
  const seconds = typeof value === 'string' ? parseDurationSeconds(value) : undefined;
  if (seconds !== undefined) return seconds;
  ctx.addIssue({
    code: 'custom',
    message:
      value === undefined
        ? 'is missing: how long a preview may go without a new deployment; write e.g. ttl: 3d'
        : `must be a positive duration like 12h or 3d, got ${JSON.stringify(value)}; write e.g. ttl: 3d`,
  });
  return z.NEVER;
});

/** Cloudflare's rule for a Worker's name (wrangler's: lower-case letters, digits, `-` and `_`, at most 63). */
const WORKER_NAME = /^[a-z0-9](?:[a-z0-9_-]{0,61}[a-z0-9])?$/;

export const workerPreviewsEntrySchema = z
  .strictObject({
    worker: z
      .string()
      .regex(WORKER_NAME, 'must be a Worker name (a-z, 0-9, - and _, at most 63); write e.g. worker: shop'),
    ttl,
    keep: z.array(z.string().min(1, 'must not be empty; write e.g. "release-*"')).default([]),
    max: z
      .int('must be a whole number; write e.g. max: 20')
      .min(1, 'must be at least 1; write e.g. max: 20')
      .max(10_000, 'must be at most 10000; write e.g. max: 20')
      .optional(),
  })
  .transform(
    (entry): WorkerPreviewsEntry => ({
      worker: entry.worker,
      ttlSeconds: entry.ttl,
      keep: entry.keep,
      max: entry.max,
    }),
  );

export const workerPreviewsSchema = z
  .array(workerPreviewsEntrySchema)
  .default([])
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, index) => {
      if (seen.has(entry.worker))
        ctx.addIssue({
          code: 'custom',
          path: [index, 'worker'],
          message: `'${entry.worker}' is listed twice; merge the two entries into one`,
        });
      seen.add(entry.worker);
    });
  });

export const WORKER_PREVIEWS_EXAMPLES: Record<string, string> = {
  'worker-previews': 'worker-previews: [{ worker: shop, ttl: 3d, keep: [staging] }]',
  'worker-previews[]': '{ worker: shop, ttl: 3d, keep: [staging], max: 20 }',
  'worker-previews[].worker': 'worker: shop',
  'worker-previews[].ttl': 'ttl: 3d',
  'worker-previews[].keep': 'keep: [staging, "release-*"]',
  'worker-previews[].keep[]': '"release-*"',
  'worker-previews[].max': 'max: 20',
};

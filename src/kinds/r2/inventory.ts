// What is left of an R2 bucket: the objects still under the rule's prefix (the first page of the
// object listing) and, when there are some, whether the lifecycle rule that expires them is in place
// (the rules read again and the rule's fields compared one by one). R2 removes an expired object "typically within
// 24 hours" of its expiry, and a new rule reaches existing objects with a delay of the same order
// (docs/cloudflare.md#r2-lifecycle-rules), so objects still there are 'expiring': the report, and the
// next tenant's acquire summary, say which objects and by when they are expected gone.

import { plural } from '../../text/words.ts';
import * as z from '../../zod.ts';
import type { Inventory, InventoryContext } from '../inventory.ts';
import { getR2Lifecycle, listR2Objects } from './api.ts';
import type { SlotR2 } from './config.ts';

/** How long after its expiry R2 typically takes to remove an object (its docs' words). */
export const R2_REMOVAL_DELAY_MS = 24 * 3_600_000;

const expiryRuleSchema = z.looseObject({
  id: z.string(),
  enabled: z.literal(true),
  conditions: z.looseObject({ prefix: z.string().optional() }).optional(),
  deleteObjectsTransition: z.looseObject({
    condition: z.looseObject({ type: z.literal('Age'), maxAge: z.number() }),
  }),
});

/** Whether the bucket's rules hold the slot's expiry as configured: enabled, same prefix, same age. */
async function ruleInPlace(context: InventoryContext, bucket: SlotR2): Promise<boolean> {
  const rules = await getR2Lifecycle(context.api, bucket.bucket, bucket.jurisdiction);
  return rules.some((rule) => {
    const parsed = expiryRuleSchema.safeParse(rule);
    return (
      parsed.success &&
      parsed.data.id === bucket.expire.id &&
      (parsed.data.conditions?.prefix ?? '') === bucket.expire.prefix &&
      parsed.data.deleteObjectsTransition.condition.maxAge === bucket.expire.afterSeconds
    );
  });
}

function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export async function r2Inventory(
  context: InventoryContext,
  bucket: SlotR2,
  now = Date.now,
): Promise<Inventory> {
  const where = bucket.expire.prefix === '' ? '' : ` under '${bucket.expire.prefix}'`;
  if (!(await ruleInPlace(context, bucket))) {
    return {
      state: 'left',
      summary: `the lifecycle rule ${bucket.expire.id} is not in place, so nothing expires the objects${where}`,
    };
  }
  const { objects, more } = await listR2Objects(
    context.api,
    bucket.bucket,
    bucket.jurisdiction,
    bucket.expire.prefix,
  );
  if (objects.length === 0) return { state: 'empty', summary: `0 objects${where}` };

  const written = objects.flatMap((object) => {
    const at = Date.parse(object.lastModified ?? '');
    return Number.isFinite(at) ? [at] : [];
  });
  // Past the first page the newest object is not known: anything written up to now may be there.
  const newest = more || written.length < objects.length ? now() : Math.max(...written);
  const oldest = written.length > 0 ? Math.min(...written) : now();
  const goneBy = Math.max(newest + bucket.expire.afterSeconds * 1000, now()) + R2_REMOVAL_DELAY_MS;
  const count = more ? `${plural(objects.length, 'object')} or more` : plural(objects.length, 'object');
  return {
    state: 'expiring',
    summary: `${count}${where} written before ${utcMinute(newest)}, expected gone by ${utcMinute(goneBy)} (the rule ${bucket.expire.id}, then up to 24 h)`,
    items: [`oldest written ${utcMinute(oldest)}`],
    goneBy: new Date(goneBy).toISOString(),
  };
}

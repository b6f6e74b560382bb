// What the slot config says of a D1 database: its name template and how it is erased.
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { NAME_CHARSET, nameTemplate } from '../name-template.ts';
import { boundByKey, recreateNeedsBoundBy } from '../recreate.ts';
import { bindingKey } from '../wrangler-binding.ts';

export interface D1Template {
  /** What the app's wrangler config calls it (docs/config.md#the-slots-wrangler-config). */
  binding?: string | undefined;
  name: string;
  erase: 'rows' | 'drop' | 'recreate';
  /** True when the slot config does not say `erase` (the default changed from rows to drop). */
  eraseDefaulted?: true;
  /** Where `erase: recreate` asks Cloudflare to create the database (Cloudflare does not report it). */
  locationHint?: LocationHint | undefined;
}
export type SlotD1 = D1Template & Origin;

const LOCATION_HINTS = ['wnam', 'enam', 'weur', 'eeur', 'apac', 'oc'] as const;
export type LocationHint = (typeof LOCATION_HINTS)[number];

export const d1Entry = z
  .strictObject({
    name: nameTemplate('name: app-{slot}-db', NAME_CHARSET),
    // No default here: the template tells a defaulted drop from a written one (d1Template).
    erase: z.enum(['rows', 'drop', 'recreate']).optional(),
    'bound-by': boundByKey,
    binding: bindingKey,
    'location-hint': z.enum(LOCATION_HINTS).optional(),
  })
  .superRefine(recreateNeedsBoundBy('database', 'erase: recreate with bound-by: wrangler-config'))
  .superRefine((entry, ctx) => {
    // Only a create places a database; the other modes keep it where it is.
    if (entry['location-hint'] === undefined || entry.erase === 'recreate') return;
    ctx.addIssue({
      code: 'custom',
      path: ['location-hint'],
      message: `is used only by erase: recreate (a create places the database; erase: ${entry.erase ?? 'drop'} keeps it where it is); remove it, or write erase: recreate`,
    });
  });

/**
 * The template of an entry. The default is `drop`: the next branch's `wrangler d1 migrations apply`
 * then builds its own schema and inserts its migrations' rows, on the same database id.
 */
export function d1Template(entry: z.infer<typeof d1Entry>): D1Template {
  const { 'location-hint': locationHint, erase, ...rest } = entry;
  return {
    ...rest,
    erase: erase ?? 'drop',
    ...(erase === undefined ? { eraseDefaulted: true as const } : {}),
    ...(locationHint === undefined ? {} : { locationHint }),
  };
}

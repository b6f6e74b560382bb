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
}
export type SlotD1 = D1Template & Origin;

export const d1Entry = z
  .strictObject({
    name: nameTemplate('name: app-{slot}-db', NAME_CHARSET),
    erase: z.enum(['rows', 'drop', 'recreate']).default('rows'),
    'bound-by': boundByKey,
    binding: bindingKey,
  })
  .superRefine(recreateNeedsBoundBy('database', 'erase: recreate with bound-by: wrangler-config'));

// What the slot config says of a KV namespace: its title template.
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { nameTemplate } from '../name-template.ts';
import { boundByKey, recreateNeedsBoundBy } from '../recreate.ts';
import { bindingKey } from '../wrangler-binding.ts';

export interface KvTemplate {
  /** What the app's wrangler config calls it (docs/config.md#the-slots-wrangler-config). */
  binding?: string | undefined;
  title: string;
  /** keys: delete every key; recreate: delete the namespace and create it again. */
  erase: 'keys' | 'recreate';
}
export type SlotKv = KvTemplate & Origin;

// A namespace's title may hold any character: no charset beyond the placeholders.
export const kvEntry = z
  .strictObject({
    title: nameTemplate('title: app-{slot}-cache'),
    erase: z.enum(['keys', 'recreate']).default('keys'),
    'bound-by': boundByKey,
    binding: bindingKey,
  })
  .superRefine(recreateNeedsBoundBy('namespace', 'erase: recreate with bound-by: wrangler-config'));

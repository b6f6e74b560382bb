// What the slot config says of a KV namespace: its title template.
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { nameTemplate } from '../name-template.ts';
import { bindingKey } from '../wrangler-binding.ts';

export interface KvTemplate {
  /** What the app's wrangler config calls it (docs/config.md#the-slots-wrangler-config). */
  binding?: string | undefined;
  title: string;
}
export type SlotKv = KvTemplate & Origin;

// A namespace's title may hold any character: no charset beyond the placeholders.
export const kvEntry = z.strictObject({
  title: nameTemplate('title: app-{slot}-cache'),
  binding: bindingKey,
});

// What the slot config says of a queue: its name template.
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { NAME_CHARSET, nameTemplate } from '../name-template.ts';
import { bindingKey } from '../wrangler-binding.ts';

export interface QueueTemplate {
  /** What the app's wrangler config calls it (docs/config.md#the-slots-wrangler-config). */
  binding?: string | undefined;
  name: string;
}
export type SlotQueue = QueueTemplate & Origin;

export const queueEntry = z.strictObject({
  name: nameTemplate('name: app-{slot}-jobs', NAME_CHARSET),
  binding: bindingKey,
});

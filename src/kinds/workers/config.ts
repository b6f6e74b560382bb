// What the slot config says of a Worker: its name template and what parking does with its Durable
// Object classes, and whether the preview runs the app's cron triggers.
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { NAME_CHARSET, nameTemplate } from '../name-template.ts';
import { bindingKey } from '../wrangler-binding.ts';

export interface WorkerTemplate {
  /** What the app's wrangler config calls it (docs/config.md#the-slots-wrangler-config). */
  binding?: string | undefined;
  name: string;
  durableObjects: 'park' | 'keep';
  /**
   * The app's cron triggers in the slot's copy of its wrangler config: dropped (every slot would run
   * production's schedules), or kept on purpose. The erase removes the schedules either way.
   */
  crons: 'drop' | 'keep';
}
export type SlotWorker = WorkerTemplate & Origin;

export const workerEntry = z.strictObject({
  name: nameTemplate('name: app-{slot}', NAME_CHARSET),
  'durable-objects': z.enum(['park', 'keep']).default('park'),
  crons: z.enum(['drop', 'keep']).default('drop'),
  binding: bindingKey,
});

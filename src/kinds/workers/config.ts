// What the slot config says of a Worker: its name template and what parking does with its Durable
// Object classes.
import * as z from '../../zod.ts';
import type { Origin } from '../kind.ts';
import { NAME_CHARSET, nameTemplate } from '../name-template.ts';

export interface WorkerTemplate {
  name: string;
  durableObjects: 'park' | 'keep';
}
export type SlotWorker = WorkerTemplate & Origin;

export const workerEntry = z.strictObject({
  name: nameTemplate('name: app-{slot}', NAME_CHARSET),
  'durable-objects': z.enum(['park', 'keep']).default('park'),
});

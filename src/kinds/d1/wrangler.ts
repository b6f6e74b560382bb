// A D1 database in an app's wrangler config: an entry of `d1_databases`, pointed at the slot's
// database by its name and its uuid (wrangler binds D1 by `database_id`).
import * as z from '../../zod.ts';
import { bindingList, bindingSchema, type KindWrangler } from '../wrangler-binding.ts';
import type { SlotD1 } from './config.ts';

const entry = bindingSchema({ database_name: z.string().optional(), database_id: z.string().optional() });

export const d1Wrangler: KindWrangler<SlotD1> = {
  read: (top) =>
    bindingList(top, 'd1_databases', entry, (binding) => binding.database_id ?? binding.database_name),
  point: (_reference, database, uuid) => ({ database_name: database.name, database_id: uuid }),
};

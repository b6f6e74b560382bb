// What is left of a queue: its backlog, read from the queue's metrics. The metrics are the API's
// best-effort count (docs/cloudflare.md#queues), so a backlog above zero right after a purge may be
// the count catching up: it is 'settling' (the next run purges again and reads again), never 'empty'.
import { plural } from '../../text/words.ts';
import type { Inventory, InventoryContext } from '../inventory.ts';
import { queueBacklog } from './api.ts';

export async function queueInventory(context: InventoryContext, queueId: string): Promise<Inventory> {
  const backlog = await queueBacklog(context.api, queueId);
  if (backlog === 0) return { state: 'empty', summary: '0 messages' };
  return { state: 'settling', summary: `the metrics still count ${plural(backlog, 'message')} waiting` };
}

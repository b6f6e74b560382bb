// What is left of a Vectorize index: the vectors it counts, read from the index's info. Vectorize
// applies deletes after the request that sent them (docs/cloudflare.md#vectorize), so the count is
// read at once and again after growing waits (about half a minute); an index that still counts
// vectors then is 'settling' (the next run lists and deletes again), never 'empty'.
import { POLL_SECONDS, pollUntil } from '../../cloudflare/poll.ts';
import { plural } from '../../text/words.ts';
import type { Inventory, InventoryContext } from '../inventory.ts';
import { vectorCount } from './api.ts';

export async function vectorizeInventory(context: InventoryContext, indexName: string): Promise<Inventory> {
  let vectors = 0;
  const emptied = await pollUntil(context.api.pacer, 'vectorize.info', async () => {
    vectors = await vectorCount(context.api, indexName);
    return vectors === 0;
  });
  if (emptied) return { state: 'empty', summary: '0 vectors' };
  return {
    state: 'settling',
    summary: `the index still counted ${plural(vectors, 'vector')} after ${POLL_SECONDS} s (Vectorize applies deletes later)`,
  };
}

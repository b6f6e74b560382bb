// What is left of a KV namespace: its key listing from the start, read again. KV listings lag behind
// deletes (docs/cloudflare.md#kv-eventual-consistency), so a listing that still names keys is not
// taken as data left on its own: a few of the listed keys are read, and a key that still has a value
// is data left (written again after its delete, say). Names whose values are gone are a listing
// catching up; the listing is read again after a wait, and a namespace whose listing has not caught
// up within the wait is 'settling' (the next run reads it again), never 'empty'.
import { pollUntil } from '../../cloudflare/poll.ts';
import { plural } from '../../text/words.ts';
import { type Inventory, type InventoryContext, someItems } from '../inventory.ts';
import { kvValueExists, listKvKeys } from './api.ts';

/** Listed keys whose values are read, at most, before the listing is trusted to be only lagging. */
const VALUE_READS = 3;
/**
 * The waits before each new listing: 65 s in all, past the 60 s KV's docs give a change to be seen
 * everywhere. Waits cost no request; five listings at most.
 */
const LISTING_WAITS_MS: readonly number[] = [5_000, 10_000, 15_000, 15_000, 20_000];

export async function kvInventory(context: InventoryContext, namespaceId: string): Promise<Inventory> {
  const { api } = context;
  let listed = (await listKvKeys(api, namespaceId, undefined)).names;
  if (listed.length === 0) return { state: 'empty', summary: '0 keys' };

  const sample = listed.slice(0, VALUE_READS);
  const withValue: string[] = [];
  for (const key of sample) if (await kvValueExists(api, namespaceId, key)) withValue.push(key);
  if (withValue.length > 0) {
    return {
      state: 'left',
      summary: `${withValue.length} of the ${plural(sample.length, 'listed key')} read still ${withValue.length === 1 ? 'has a value' : 'have values'}`,
      items: someItems(withValue.map((key) => `key ${JSON.stringify(key)} has a value`)),
    };
  }
  const caughtUp = await pollUntil(
    api.pacer,
    'kv.keys.list',
    async () => {
      listed = (await listKvKeys(api, namespaceId, undefined)).names;
      return listed.length === 0;
    },
    LISTING_WAITS_MS,
  );
  if (caughtUp) return { state: 'empty', summary: '0 keys' };
  return {
    state: 'settling',
    summary: `the key listing still names ${plural(listed.length, 'key')}${listed.length === 1000 ? ' or more' : ''} whose values read so far are gone (KV listings lag behind deletes)`,
  };
}

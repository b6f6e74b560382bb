// Step 3: empty the slot's KV namespace. List keys (1,000 a page) and bulk-delete them (10,000 a
// request), then list again from the start until a full listing shows no key that was not already
// sent for deletion. KV listings may show deleted keys for up to a minute (eventual consistency):
// those are recognised and ignored, so they cannot cause an endless loop. Keys Cloudflare reports
// as not deleted are sent again, a few times. The pacer's budget bounds it all; what was deleted
// before the budget ran out stays deleted, and the next run goes on from there.

import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import { plural } from '../../text/words.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import { bulkDeleteKvKeys, listKvKeys } from './api.ts';

export interface KvDetails {
  keysDeleted: number;
  /** Key listing requests made. */
  listings: number;
  /** Keys Cloudflare reported as not deleted and that were sent again. */
  retriedKeys: number;
}

const BULK_DELETE_LIMIT = 10_000;
/** Full listings per erase: one that deletes, one that verifies, and a few for keys written meanwhile. */
const MAX_PASSES = 5;
const MAX_SENDS_PER_KEY = 3;

/** The keys of one namespace being erased: what was listed, what waits for deletion, what failed. */
class KeyEraser {
  readonly details: KvDetails = { keysDeleted: 0, listings: 0, retriedKeys: 0 };
  readonly undeletable: string[] = [];
  private readonly seen = new Set<string>();
  private readonly sends = new Map<string, number>();
  private readonly pending: string[] = [];
  private readonly context: EraseContext;
  private readonly namespaceId: string;

  constructor(context: EraseContext, namespaceId: string) {
    this.context = context;
    this.namespaceId = namespaceId;
  }

  /** Lists every key once from the start; returns how many were not seen before. */
  async listingPass(): Promise<number> {
    let found = 0;
    let cursor: string | undefined;
    do {
      const page = await listKvKeys(this.context.api, this.namespaceId, cursor);
      this.details.listings++;
      for (const name of page.names) {
        if (this.seen.has(name)) continue;
        this.seen.add(name);
        this.pending.push(name);
        found++;
      }
      if (!this.context.dryRun) while (this.pending.length >= BULK_DELETE_LIMIT) await this.deleteBatch();
      cursor = page.cursor || undefined;
    } while (cursor !== undefined);
    return found;
  }

  async deleteAll(): Promise<void> {
    while (this.pending.length > 0) await this.deleteBatch();
  }

  private async deleteBatch(): Promise<void> {
    const batch = this.pending.splice(0, BULK_DELETE_LIMIT);
    const { unsuccessful } = await bulkDeleteKvKeys(this.context.api, this.namespaceId, batch);
    const failed = new Set(unsuccessful);
    this.details.keysDeleted += batch.filter((name) => !failed.has(name)).length;
    for (const name of failed) {
      const times = (this.sends.get(name) ?? 1) + 1;
      this.sends.set(name, times);
      if (times > MAX_SENDS_PER_KEY) this.undeletable.push(name);
      else {
        this.pending.push(name);
        this.details.retriedKeys++;
      }
    }
  }
}

/** Erases every key of the namespace whose id is `namespaceId` (src/kinds/kv.ts found it by title). */
export async function eraseKv(context: EraseContext, namespaceId: string): Promise<StepOutcome<KvDetails>> {
  const keys = new KeyEraser(context, namespaceId);
  try {
    for (let pass = 1; pass <= MAX_PASSES; pass++) {
      const found = await keys.listingPass();
      if (found === 0) return finish(keys.details, keys.undeletable);
      if (context.dryRun) {
        return {
          status: 'would-change',
          summary: `would delete ${plural(found, 'key')}`,
          details: keys.details,
        };
      }
      await keys.deleteAll();
    }
  } catch (error) {
    // Keep what was done: the report says how far the erase got before the budget or an error.
    if (error instanceof CloudflareCallError) throw new StepError(error.reason, error.message, keys.details);
    throw error;
  }
  throw new StepError(
    'refused',
    `keys kept appearing through ${MAX_PASSES} listings after ${plural(keys.details.keysDeleted, 'key')} were deleted; is something still writing?`,
    keys.details,
  );
}

function finish(details: KvDetails, undeletable: string[]): StepOutcome<KvDetails> {
  if (undeletable.length > 0) {
    throw new StepError(
      'api',
      `Cloudflare did not delete ${plural(undeletable.length, 'key')} after ${MAX_SENDS_PER_KEY} tries (e.g. '${undeletable[0]}')`,
      details,
    );
  }
  if (details.keysDeleted === 0) return { status: 'unchanged', summary: 'no keys', details };
  return { status: 'done', summary: `deleted ${plural(details.keysDeleted, 'key')}`, details };
}

// Step 6: delete every vector of the slot's Vectorize index, keeping the index (its dimensions, metric
// and metadata indexes) for the next deploy. Vectorize has no "delete all": the ids are listed, 1,000
// a page, and each page's ids are sent to delete_by_ids. Vectorize applies deletes asynchronously:
// whether the index is empty is its inventory's to say (inventory.ts), which reads the count with
// growing waits. The pacer's budget bounds a big index; what was deleted stays deleted and the next
// run goes on from there.

import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import { plural } from '../../text/words.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import { deleteVectorsByIds, listVectorIds } from './api.ts';
import type { SlotVectorIndex } from './config.ts';

export interface VectorizeDetails {
  /** Vectors whose deletion was sent (Vectorize applies it asynchronously). */
  vectorsDeleted: number;
  /** Vector id listing requests made. */
  listings: number;
}

async function deleteListed(
  context: EraseContext,
  index: string,
  first: { ids: string[]; cursor: string },
  details: VectorizeDetails,
): Promise<void> {
  const { api } = context;
  let page = first;
  for (;;) {
    await deleteVectorsByIds(api, index, page.ids);
    details.vectorsDeleted += page.ids.length;
    if (page.cursor === '') return;
    page = await listVectorIds(api, index, page.cursor);
    details.listings++;
    if (page.ids.length === 0) return;
  }
}

export async function eraseVectorize(
  context: EraseContext,
  index: SlotVectorIndex,
): Promise<StepOutcome<VectorizeDetails>> {
  const details: VectorizeDetails = { vectorsDeleted: 0, listings: 0 };
  try {
    const first = await listVectorIds(context.api, index.name, undefined);
    details.listings++;
    if (first.ids.length === 0) return { status: 'unchanged', summary: 'no vectors', details };
    if (context.dryRun) {
      return {
        status: 'would-change',
        summary: `would delete ${plural(first.totalCount, 'vector')}`,
        details,
      };
    }
    await deleteListed(context, index.name, first, details);
    return { status: 'done', summary: `deleted ${plural(details.vectorsDeleted, 'vector')}`, details };
  } catch (error) {
    // Keep what was done: the report says how far the erase got.
    if (error instanceof CloudflareCallError) throw new StepError(error.reason, error.message, details);
    throw error;
  }
}

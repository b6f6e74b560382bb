// Step 6: delete every vector of the slot's Vectorize index, keeping the index (its dimensions, metric
// and metadata indexes) for the next deploy. Vectorize has no "delete all": the ids are listed, 1,000
// a page, and each page's ids are sent to delete_by_ids. Vectorize applies deletes asynchronously, so
// the index's vector count is then read, with growing waits, until it is 0. An index that still counts
// vectors after the wait is reported as such ('pending': the slot stays dirty, the next run lists and
// deletes again), never as empty. The pacer's budget bounds a big index; what was deleted stays
// deleted and the next run goes on from there.
import type { SlotVectorIndex } from '../config/slot-config.ts';
import { plural } from '../report/format.ts';
import { CloudflareCallError } from './call-error.ts';
import { type EraseContext, StepError, type StepOutcome, type VectorizeDetails } from './erase-step.ts';
import { POLL_SECONDS, pollUntil } from './poll.ts';

async function deleteListed(
  context: EraseContext,
  index: string,
  first: { ids: string[]; cursor: string },
  details: VectorizeDetails,
): Promise<void> {
  const { account } = context;
  let page = first;
  for (;;) {
    await account.deleteVectorsByIds(index, page.ids);
    details.vectorsDeleted += page.ids.length;
    if (page.cursor === '') return;
    page = await account.listVectorIds(index, page.cursor);
    details.listings++;
    if (page.ids.length === 0) return;
  }
}

async function emptied(context: EraseContext, index: string, details: VectorizeDetails): Promise<boolean> {
  return pollUntil(context.account.pacer, 'vectorize.info', async () => {
    details.vectorsLeft = await context.account.vectorCount(index);
    return details.vectorsLeft === 0;
  });
}

export async function eraseVectorize(context: EraseContext, index: SlotVectorIndex): Promise<StepOutcome> {
  const details: VectorizeDetails = { vectorsDeleted: 0, listings: 0 };
  try {
    const first = await context.account.listVectorIds(index.name, undefined);
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
    if (await emptied(context, index.name, details)) {
      return { status: 'done', summary: `deleted ${plural(details.vectorsDeleted, 'vector')}`, details };
    }
  } catch (error) {
    // Keep what was done: the report says how far the erase got.
    if (error instanceof CloudflareCallError) throw new StepError(error.reason, error.message, details);
    throw error;
  }
  throw new StepError(
    'pending',
    `sent ${plural(details.vectorsDeleted, 'vector')} for deletion, but the index still counted ${plural(details.vectorsLeft ?? 0, 'vector')} after ${POLL_SECONDS} s (Vectorize applies deletes later); the next run lists and deletes again`,
    details,
  );
}

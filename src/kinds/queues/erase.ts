// Step 5: delete every message of the slot's queue. The queue is resolved by name (one listing a run),
// a purge is started (`delete_messages_permanently: true`), then its status is read, with growing
// waits between reads, until the API says the purge finished or the step's wait is over. A purge
// still running then is reported as such ('pending': the slot stays dirty, the next run purges again
// and checks), never as done. Every real erase purges, an empty queue's too: purging an empty queue
// changes nothing, and whether it is empty is the inventory's to say (inventory.ts). A dry run reads
// the backlog instead, to say roughly how many messages a purge would delete.

import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import { POLL_SECONDS, pollUntil } from '../../cloudflare/poll.ts';
import { plural } from '../../text/words.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import { type QueuePurgeStatus, queueBacklog, queuePurgeStatus, startQueuePurge } from './api.ts';

export interface QueuesDetails {
  /** 'finished': the API says the purge is done; 'running': started, not done when the step stopped waiting. */
  purge: 'finished' | 'running' | 'not-started';
  /** Purge status reads after the purge was started. */
  statusReads: number;
  /** Messages waiting, by the API's best-effort metrics (read in a dry run only). */
  backlog?: number;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T/;

/**
 * Whether `status`, read after this erase started its purge, says the purge finished. The SDK types
 * the flag as `completed` (a string), wrangler as `complete` (a boolean); `true`, `"true"` or a
 * completion time count as finished, anything else as still running (docs/cloudflare.md#queues).
 */
export function purgeFinished(status: QueuePurgeStatus): boolean {
  const { completed, complete } = status;
  if (complete === true || completed === true) return true;
  return typeof completed === 'string' && (completed.toLowerCase() === 'true' || ISO_DATE.test(completed));
}

function backlogText(backlog: number): string {
  return backlog === 0 ? 'none waiting, by the metrics' : `about ${plural(backlog, 'message')} waiting`;
}

/**
 * Purges first, then reads the status: no source says what the status route answers for a queue
 * never purged, so nothing depends on a read before the purge. Whatever the status says, the
 * queue's inventory reads its backlog afterwards.
 */
async function purgeAndWait(context: EraseContext, queueId: string, details: QueuesDetails) {
  const { api } = context;
  await startQueuePurge(api, queueId);
  details.purge = 'running';
  const finished = await pollUntil(api.pacer, 'queues.purge.status', async () => {
    const status = await queuePurgeStatus(api, queueId);
    details.statusReads++;
    return purgeFinished(status);
  });
  if (finished) details.purge = 'finished';
}

/** Purges the queue whose id is `queueId` (kind.ts found it by name). */
export async function eraseQueue(
  context: EraseContext,
  queueId: string,
): Promise<StepOutcome<QueuesDetails>> {
  const details: QueuesDetails = { purge: 'not-started', statusReads: 0 };
  if (context.dryRun) {
    details.backlog = await queueBacklog(context.api, queueId);
    const summary = `would purge every message (${backlogText(details.backlog)})`;
    return { status: 'would-change', summary, details };
  }
  try {
    await purgeAndWait(context, queueId, details);
  } catch (error) {
    // Say whether the purge had started: it goes on at Cloudflare even when this run stops.
    if (error instanceof CloudflareCallError) {
      const started = details.purge === 'running' ? '; the purge had started, not seen finished' : '';
      throw new StepError(error.reason, `${error.message}${started}`, details);
    }
    throw error;
  }
  if (details.purge === 'finished') return { status: 'done', summary: 'purged every message', details };
  throw new StepError(
    'pending',
    `the purge started, but Cloudflare did not report it finished within ${POLL_SECONDS} s (${plural(details.statusReads, 'status read')}); the next run purges again and checks`,
    details,
  );
}

// The Queues calls preview-gc makes: list queues, start a purge and read its status, read the backlog.
import { BasePurge } from 'cloudflare/resources/queues/purge';
import { BaseQueues } from 'cloudflare/resources/queues/queues';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';

const RESOURCES = [BaseQueues, BasePurge] as const;

// Sources disagree on the field that says a purge finished (docs/cloudflare.md#queues): both are read.
const queuePurgeStatusSchema = z
  .looseObject({
    started_at: z.string().nullish(),
    completed: z.union([z.string(), z.boolean()]).nullish(),
    complete: z.boolean().nullish(),
  })
  .nullish();
export type QueuePurgeStatus = NonNullable<z.infer<typeof queuePurgeStatusSchema>>;

/** Every queue of the account (page numbers; the API picks the page size). */
export function listQueues(api: CloudflareApi): Promise<{ queue_id: string; queue_name: string }[]> {
  return api.allPages(
    'queues.list',
    (page, options) =>
      api
        .sdk(RESOURCES)
        .queues.list({ account_id: api.accountId }, { ...options, query: { page } })
        .asResponse(),
    z.looseObject({ queue_id: z.string(), queue_name: z.string() }),
  );
}

/** Starts a purge of every message of the queue; the answer is not relied on (docs/cloudflare.md#queues). */
export async function startQueuePurge(api: CloudflareApi, queueId: string): Promise<void> {
  await api.send(
    'queues.purge',
    (options) =>
      api
        .sdk(RESOURCES)
        .queues.purge.start(
          queueId,
          { account_id: api.accountId, delete_messages_permanently: true },
          options,
        )
        .asResponse(),
    z.unknown(),
  );
}

/** The queue's last purge as the API describes it; erase.ts reads whether it finished. */
export async function queuePurgeStatus(api: CloudflareApi, queueId: string): Promise<QueuePurgeStatus> {
  const { result } = await api.send(
    'queues.purge.status',
    (options) =>
      api.sdk(RESOURCES).queues.purge.status(queueId, { account_id: api.accountId }, options).asResponse(),
    queuePurgeStatusSchema,
  );
  return result ?? {};
}

/** How many messages wait in the queue, by the API's best-effort metrics (for a dry run's estimate). */
export async function queueBacklog(api: CloudflareApi, queueId: string): Promise<number> {
  const { result } = await api.send(
    'queues.metrics',
    (options) =>
      api.sdk(RESOURCES).queues.getMetrics(queueId, { account_id: api.accountId }, options).asResponse(),
    z.looseObject({ backlog_count: z.number() }),
  );
  return result.backlog_count;
}

/** Creates a queue with the API's default settings. */
export async function createQueue(api: CloudflareApi, name: string): Promise<void> {
  await api.send(
    'queues.create',
    (options) =>
      api.sdk(RESOURCES).queues.create({ account_id: api.accountId, queue_name: name }, options).asResponse(),
    z.unknown(),
  );
}

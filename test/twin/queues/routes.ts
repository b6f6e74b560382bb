// Queues routes (docs/twin.md#queues): create, list by page (with wrangler's `name` filter), get, metrics,
// send one message or a batch, start a purge and read its status. Every answer has the SDK's type.
import type {
  MessageBulkPushResponse,
  MessagePushResponse,
  PurgeStatusResponse,
} from 'cloudflare/resources/queues';
import type { Consumer } from 'cloudflare/resources/queues/consumers';
import type { Queue, QueueGetMetricsResponse } from 'cloudflare/resources/queues/queues';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { ApiFailure, badRequest, jsonBody, notFound, ok, pageOf } from '../envelope.ts';
import { type RouteContext, route } from '../gate.ts';
import { QUEUE_NAME, type QueueStore, type TwinConsumer, type TwinQueue } from './store.ts';

const BASE = '/accounts/:account/queues';

/** wrangler's bounds for these settings; outside them the API answers code 100128. */
const settingsSchema = z.looseObject({
  delivery_delay: z.number().int().min(0).max(86_400).optional(),
  delivery_paused: z.boolean().optional(),
  message_retention_period: z.number().int().min(60).max(1_209_600).optional(),
});
const createSchema = z.looseObject({
  queue_name: z.string().regex(QUEUE_NAME),
  settings: z.unknown().optional(),
});
const messageSchema = z.union([
  z.looseObject({ body: z.string(), content_type: z.literal('text') }),
  z.looseObject({ body: z.unknown(), content_type: z.literal('json').optional() }),
]);
const batchSchema = z.looseObject({ messages: z.array(messageSchema).min(1) });
const purgeSchema = z.looseObject({ delete_messages_permanently: z.literal(true) });
/** What `wrangler deploy` sends for a `queues.consumers` entry (deploy-helpers triggers/queue-consumers.ts). */
const consumerSchema = z.looseObject({
  type: z.literal('worker'),
  script_name: z.string().min(1),
  dead_letter_queue: z.string().optional(),
  settings: z.record(z.string(), z.number().optional()).optional(),
});

/**
 * A consumer as the SDK types it, plus `script`, the field wrangler reads to find a Worker's own
 * consumer on a second deploy (resolveWorkerConsumerByName).
 */
function consumerView(queue: TwinQueue, consumer: TwinConsumer): Consumer & { script: string } {
  return {
    consumer_id: consumer.id,
    created_on: consumer.createdOn,
    dead_letter_queue: consumer.deadLetterQueue,
    queue_name: queue.name,
    script_name: consumer.script,
    script: consumer.script,
    settings: consumer.settings,
    type: 'worker',
  };
}

function view(queue: TwinQueue): Queue {
  return {
    queue_id: queue.id,
    queue_name: queue.name,
    created_on: queue.createdOn,
    modified_on: queue.modifiedOn,
    producers: [],
    producers_total_count: 0,
    consumers: queue.consumers.map((consumer) => consumerView(queue, consumer)),
    consumers_total_count: queue.consumers.length,
    settings: queue.settings,
  };
}

function queueOf(queues: QueueStore, { params }: RouteContext): TwinQueue {
  const queue = queues.get(params.queue ?? '');
  if (!queue) throw notFound(11000, 'Queue does not exist');
  return queue;
}

function metricsOf(queue: TwinQueue): QueueGetMetricsResponse {
  return {
    backlog_count: queue.messages.length,
    backlog_bytes: queue.messages.reduce((sum, message) => sum + JSON.stringify(message.body).length, 0),
    oldest_message_timestamp_ms: queue.messages[0]?.sentAt ?? 0,
  };
}

function messagesOf(parsed: z.infer<typeof messageSchema>[]) {
  return parsed.map((message) => ({
    body: message.body,
    contentType: message.content_type === 'text' ? ('text' as const) : ('json' as const),
  }));
}

async function parsed<T>(request: Request, schema: z.ZodType<T>, failure: ApiFailure): Promise<T> {
  const result = schema.safeParse(await jsonBody(request));
  if (!result.success) throw failure;
  return result.data;
}

export function queuesRoutes(queues: QueueStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', BASE, ({ url }) => {
      const names = url.searchParams.getAll('name');
      const listed = queues.all().filter((queue) => names.length === 0 || names.includes(queue.name));
      const { result, resultInfo } = pageOf(listed.map(view), url, {
        defaultPerPage: 20,
        maxPerPage: 100,
        totals: true,
      });
      return ok<Queue[]>(result, resultInfo);
    }),
    route(account, 'POST', BASE, async ({ request }) => {
      const body = await parsed(
        request,
        createSchema,
        badRequest(10001, 'queue_name must be 1-63 letters, digits, - or _'),
      );
      const settings = settingsSchema.safeParse(body.settings ?? {});
      if (!settings.success) throw badRequest(100128, 'The specified queue settings are invalid');
      if (queues.findByName(body.queue_name)) {
        throw new ApiFailure(409, 11009, `A queue named ${body.queue_name} already exists`);
      }
      return ok<Queue>(view(queues.create(body.queue_name, settings.data)));
    }),
    route(account, 'GET', `${BASE}/:queue`, (ctx) => ok<Queue>(view(queueOf(queues, ctx)))),
    route(account, 'GET', `${BASE}/:queue/metrics`, (ctx) =>
      ok<QueueGetMetricsResponse>(metricsOf(queueOf(queues, ctx))),
    ),
    route(account, 'POST', `${BASE}/:queue/messages`, async (ctx) => {
      const queue = queueOf(queues, ctx);
      const message = await parsed(
        ctx.request,
        messageSchema,
        badRequest(10001, 'a message needs a body (a string when content_type is text)'),
      );
      queues.send(queue, messagesOf([message]));
      return ok<MessagePushResponse>({ metadata: { metrics: metricsOf(queue) } });
    }),
    route(account, 'POST', `${BASE}/:queue/messages/batch`, async (ctx) => {
      const queue = queueOf(queues, ctx);
      const batch = await parsed(
        ctx.request,
        batchSchema,
        badRequest(10001, 'a batch needs messages, each with a body'),
      );
      queues.send(queue, messagesOf(batch.messages));
      return ok<MessageBulkPushResponse>({ metadata: { metrics: metricsOf(queue) } });
    }),
    ...(['POST', 'PUT'] as const).map((method) =>
      route(
        account,
        method,
        method === 'POST' ? `${BASE}/:queue/consumers` : `${BASE}/:queue/consumers/:consumer`,
        async (ctx) => {
          const queue = queueOf(queues, ctx);
          const body = await parsed(
            ctx.request,
            consumerSchema,
            badRequest(10001, 'a Worker consumer needs type: worker and script_name'),
          );
          const id = ctx.params.consumer;
          if (method === 'PUT' && !queue.consumers.some((consumer) => consumer.id === id))
            throw notFound(11000, 'Consumer does not exist');
          const consumer = queues.putConsumer(
            queue,
            {
              script: body.script_name,
              deadLetterQueue: body.dead_letter_queue ?? '',
              settings: body.settings ?? {},
            },
            id,
          );
          return ok<Consumer>(consumerView(queue, consumer));
        },
      ),
    ),
    route(account, 'POST', `${BASE}/:queue/purge`, async (ctx) => {
      const queue = queueOf(queues, ctx);
      await parsed(
        ctx.request,
        purgeSchema,
        badRequest(10001, 'a purge must confirm delete_messages_permanently: true'),
      );
      queues.startPurge(queue);
      return ok<Queue>(view(queue));
    }),
    route(account, 'GET', `${BASE}/:queue/purge`, (ctx) => {
      const purge = queues.purgeOf(queueOf(queues, ctx));
      const status: PurgeStatusResponse = purge
        ? { started_at: purge.startedAt, completed: String(purge.finished) }
        : {};
      return ok<PurgeStatusResponse>(status);
    }),
  ];
}

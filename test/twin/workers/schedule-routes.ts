// A Worker's cron triggers: `GET` and `PUT /accounts/{account}/workers/scripts/{name}/schedules`.
// Sources: the SDK's scripts/schedules types (the body is a list of `{ cron }`, the answer
// `{ schedules: [{ cron, created_on, modified_on }] }`); wrangler's triggers/deploy.ts, which PUTs the
// config's `triggers.crons` with the comment "PUT will override previous schedules on this script",
// and sends nothing about schedules when the config has no crons (so they stay). An upload of the
// script leaves them as they are.
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { badRequest, jsonBody, ok } from '../envelope.ts';
import { route } from '../gate.ts';
import { SCRIPTS, scriptOf } from './requests.ts';
import type { WorkersStore } from './store.ts';

const schedulesSchema = z.array(z.looseObject({ cron: z.string().min(1) }));

export function scheduleRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', `${SCRIPTS}/:name/schedules`, (ctx) =>
      ok<Cloudflare.Workers.Scripts.ScheduleGetResponse>({ schedules: scriptOf(workers, ctx).schedules }),
    ),
    route(account, 'PUT', `${SCRIPTS}/:name/schedules`, async (ctx) => {
      const script = scriptOf(workers, ctx);
      const parsed = schedulesSchema.safeParse(await jsonBody(ctx.request));
      if (!parsed.success) throw badRequest(10021, 'the body must be a list of {"cron": string}');
      const now = new Date().toISOString();
      script.schedules = parsed.data.map(({ cron }) => ({ cron, created_on: now, modified_on: now }));
      return ok<Cloudflare.Workers.Scripts.ScheduleUpdateResponse>({ schedules: script.schedules });
    }),
  ];
}

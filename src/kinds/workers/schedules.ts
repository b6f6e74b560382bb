// A slot Worker's cron triggers. Production's crons must not run in a preview, and a deploy whose
// config has no crons leaves the Worker's schedules as they were (wrangler then sends nothing about
// them), so the erase removes them with a PUT of none, which replaces them all (the SDK's
// scripts/schedules; wrangler's triggers/deploy.ts: "PUT will override previous schedules on this
// script"), and the inventory reads them back.
import { BaseSchedules } from 'cloudflare/resources/workers/scripts/schedules';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';

const RESOURCES = [BaseSchedules] as const;

const schedulesSchema = z.looseObject({
  schedules: z.array(z.looseObject({ cron: z.string() })).nullish(),
});

/** The Worker's cron expressions, as the API lists them. */
export async function readSchedules(api: CloudflareApi, name: string): Promise<string[]> {
  const { result } = await api.send(
    'workers.schedules.get',
    (options) =>
      api
        .sdk(RESOURCES)
        .workers.scripts.schedules.get(name, { account_id: api.accountId }, options)
        .asResponse(),
    schedulesSchema,
  );
  return (result.schedules ?? []).map((schedule) => schedule.cron);
}

/** Replaces the Worker's cron triggers with none. */
export async function removeSchedules(api: CloudflareApi, name: string): Promise<void> {
  await api.send(
    'workers.schedules.update',
    (options) =>
      api
        .sdk(RESOURCES)
        .workers.scripts.schedules.update(name, { account_id: api.accountId, body: [] }, options)
        .asResponse(),
    schedulesSchema,
  );
}

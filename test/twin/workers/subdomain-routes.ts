// A Worker's workers.dev switches, `enabled` (its own URL) and `previews_enabled` (its version and
// alias preview URLs), as three routes read and write them: the script's subdomain (GET, POST, and
// DELETE, "Disable all workers.dev subdomains"), and the beta Worker (GET, and PATCH, "a partial
// update on a Worker, where omitted properties are left unchanged"). Sources: the SDK's
// scripts/subdomain and beta/workers types; wrangler's triggers/subdomain.ts and triggers/deploy.ts
// (the Worker's `subdomain` read before a deploy; the POST `{ enabled, previews_enabled }`, with
// `previews_enabled` left out when the config has no `preview_urls`, which the API then takes from
// `enabled`: the preview URLs docs, "If not given, `preview_urls = workers_dev` is the default");
// wrangler's preview/api.ts (PATCH of the Worker with `application/merge-patch+json` and only the
// fields it changes).
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { badRequest, jsonBody, ok } from '../envelope.ts';
import { route } from '../gate.ts';
import { SCRIPTS, scriptOf } from './requests.ts';
import type { WorkersStore } from './store.ts';
import { workerOf } from './version-routes.ts';
import { workerView } from './views.ts';

const subdomainSchema = z.looseObject({ enabled: z.boolean(), previews_enabled: z.boolean().optional() });
/** The fields of a Worker the twin lets a PATCH change; others are taken and ignored. */
const workerPatchSchema = z.looseObject({
  subdomain: z
    .looseObject({ enabled: z.boolean().optional(), previews_enabled: z.boolean().optional() })
    .optional(),
  tags: z.array(z.string()).optional(),
});

export function subdomainRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', `${SCRIPTS}/:name/subdomain`, (ctx) =>
      ok<Cloudflare.Workers.Scripts.SubdomainGetResponse>(scriptOf(workers, ctx).subdomain),
    ),
    route(account, 'POST', `${SCRIPTS}/:name/subdomain`, async (ctx) => {
      const script = scriptOf(workers, ctx);
      const parsed = subdomainSchema.safeParse(await jsonBody(ctx.request));
      if (!parsed.success)
        throw badRequest(10021, 'the body must be {"enabled": boolean, "previews_enabled"?: boolean}');
      script.subdomain = {
        enabled: parsed.data.enabled,
        previews_enabled: parsed.data.previews_enabled ?? parsed.data.enabled,
      };
      return ok<Cloudflare.Workers.Scripts.SubdomainCreateResponse>(script.subdomain);
    }),
    route(account, 'DELETE', `${SCRIPTS}/:name/subdomain`, (ctx) => {
      const script = scriptOf(workers, ctx);
      script.subdomain = { enabled: false, previews_enabled: false };
      return ok<Cloudflare.Workers.Scripts.SubdomainDeleteResponse>(script.subdomain);
    }),
    route(account, 'GET', '/accounts/:account/workers/workers/:name', (ctx) =>
      ok<Cloudflare.Workers.Beta.Worker>(workerView(workers, workerOf(workers, ctx))),
    ),
    route(account, 'PATCH', '/accounts/:account/workers/workers/:name', async (ctx) => {
      const script = workerOf(workers, ctx);
      const parsed = workerPatchSchema.safeParse(await jsonBody(ctx.request));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw badRequest(10021, `${issue?.path.join('.')}: ${issue?.message}`);
      }
      const { subdomain, tags } = parsed.data;
      // A merge patch: what the body leaves out stays as it is.
      script.subdomain = {
        enabled: subdomain?.enabled ?? script.subdomain.enabled,
        previews_enabled: subdomain?.previews_enabled ?? script.subdomain.previews_enabled,
      };
      if (tags) script.tags = tags;
      return ok<Cloudflare.Workers.Beta.Worker>(workerView(workers, script));
    }),
  ];
}

// What `wrangler deploy` calls besides the upload of a script and its versions: the services lookup
// (migration tag, tags), secrets, script settings and the account's workers.dev subdomain. Sources:
// wrangler's deploy-helpers (validate-worker-props.ts, helpers/durable.ts,
// check-remote-secrets-override.ts, versions-api.ts) and triggers/subdomain.ts for the routes and the
// fields read; the SDK for the types.
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { badRequest, jsonBody, ok } from '../envelope.ts';
import { route } from '../gate.ts';
import { SCRIPTS, scriptOf } from './requests.ts';
import type { WorkersStore } from './store.ts';
import { type ServiceAnswer, scriptView, secretsOf } from './views.ts';

const scriptSettingsSchema = z.looseObject({ tags: z.array(z.string()).nullish() });

export function deployRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', '/accounts/:account/workers/services/:name', (ctx) => {
      const script = scriptOf(workers, ctx);
      return ok<ServiceAnswer>({
        id: script.name,
        created_on: script.createdOn,
        modified_on: script.modifiedOn,
        default_environment: {
          environment: 'production',
          created_on: script.createdOn,
          modified_on: script.modifiedOn,
          script: scriptView(script),
        },
      });
    }),
    route(account, 'GET', `${SCRIPTS}/:name/secrets`, (ctx) =>
      ok<Cloudflare.Workers.Scripts.SecretListResponse[]>(secretsOf(scriptOf(workers, ctx))),
    ),
    // After a deploy through the versions API: the tags from the services answer, kept.
    route(account, 'PATCH', `${SCRIPTS}/:name/script-settings`, async (ctx) => {
      const script = scriptOf(workers, ctx);
      const parsed = scriptSettingsSchema.safeParse(await jsonBody(ctx.request));
      if (!parsed.success) throw badRequest(10021, 'script settings must be a JSON object');
      if (parsed.data.tags) script.tags = parsed.data.tags;
      return ok<Cloudflare.Workers.Scripts.ScriptSetting>({
        logpush: false,
        observability: { enabled: false },
        tags: script.tags,
        tail_consumers: [],
      });
    }),
    route(account, 'GET', '/accounts/:account/workers/subdomain', () =>
      ok<Cloudflare.Workers.SubdomainGetResponse>({ subdomain: workers.subdomain }),
    ),
  ];
}

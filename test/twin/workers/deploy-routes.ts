// What `wrangler deploy` calls besides the upload of a script: the services lookup (migration tag,
// tags), secrets, deployments, the versions API, script settings, the Worker and its workers.dev
// subdomain. Sources: wrangler's deploy-helpers (validate-worker-props.ts, helpers/durable.ts,
// check-remote-secrets-override.ts, confirm-latest-deployment-overwrite.ts, versions-api.ts,
// deploy.ts) and triggers/subdomain.ts for the routes and the fields read; the SDK for the types.
import type Cloudflare from 'cloudflare';
import type { HttpHandler } from 'msw';
import { z } from 'zod';
import type { AccountCore } from '../account-core.ts';
import { badRequest, jsonBody, notFound, ok } from '../envelope.ts';
import { route } from '../gate.ts';
import { uploadMetadataSchema } from './metadata.ts';
import { clientOf, formOf, jsonPart, modulesOf, SCRIPTS, scriptOf } from './requests.ts';
import { newId, type WorkersStore } from './store.ts';
import { applyUpload } from './upload.ts';
import { deploymentOf, type ServiceAnswer, scriptView, secretsOf, workerView } from './views.ts';

const subdomainSchema = z.looseObject({ enabled: z.boolean(), previews_enabled: z.boolean().optional() });
const deploymentSchema = z.looseObject({
  strategy: z.literal('percentage'),
  versions: z.array(z.looseObject({ version_id: z.string(), percentage: z.number() })).min(1),
});
const scriptSettingsSchema = z.looseObject({ tags: z.array(z.string()).nullish() });

/**
 * The versions API, which wrangler deploy uses for an existing module Worker when the upload carries
 * no migrations and no Durable Object exports: upload a version (checked, not live), deploy it at
 * 100 %, then PATCH the script settings (tags: the script's own, kept). Gradual deployments (two
 * versions) are not modelled.
 */
function versionRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [
    route(account, 'POST', `${SCRIPTS}/:name/versions`, async (ctx) => {
      const script = scriptOf(workers, ctx);
      const form = await formOf(ctx.request, 'metadata');
      const metadata = await jsonPart(form, 'metadata');
      const modules = await modulesOf(form, metadata);
      const client = clientOf(ctx.request);
      applyUpload(workers, script.name, metadata, modules, { client, dryRun: true });
      const id = crypto.randomUUID();
      workers.versions.set(id, { script: script.name, metadata, modules, client });
      return ok<Cloudflare.Workers.Scripts.VersionCreateResponse>({
        id,
        startup_time_ms: 1,
        resources: { script: { etag: newId(), handlers: ['fetch'], last_deployed_from: client } },
      });
    }),
    route(account, 'POST', `${SCRIPTS}/:name/deployments`, async (ctx) => {
      const script = scriptOf(workers, ctx);
      const parsed = deploymentSchema.safeParse(await jsonBody(ctx.request));
      const only = parsed.data?.versions.length === 1 ? parsed.data.versions[0] : undefined;
      if (only?.percentage !== 100) {
        throw badRequest(10021, 'the twin deploys exactly one version at 100 %');
      }
      const version = workers.versions.get(only.version_id);
      if (!version || version.script !== script.name) throw notFound(10212, 'version not found');
      const outcome = applyUpload(
        workers,
        script.name,
        uploadMetadataSchema.parse(version.metadata),
        version.modules,
        { client: version.client, versionId: only.version_id },
      );
      workers.versions.delete(only.version_id);
      return ok<Cloudflare.Workers.Scripts.Deployment>(deploymentOf(outcome.script));
    }),
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
  ];
}

/** The lookups around an upload, and the workers.dev subdomain. */
function lookupRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
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
    route(account, 'GET', `${SCRIPTS}/:name/deployments`, (ctx) =>
      ok<Cloudflare.Workers.Scripts.DeploymentListResponse>({
        deployments: [deploymentOf(scriptOf(workers, ctx))],
      }),
    ),
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
    route(account, 'GET', '/accounts/:account/workers/workers/:name', (ctx) =>
      ok<Cloudflare.Workers.Beta.Worker>(workerView(workers, scriptOf(workers, ctx))),
    ),
    route(account, 'GET', '/accounts/:account/workers/subdomain', () =>
      ok<Cloudflare.Workers.SubdomainGetResponse>({ subdomain: workers.subdomain }),
    ),
  ];
}

export function deployRoutes(workers: WorkersStore, account: AccountCore): HttpHandler[] {
  return [...versionRoutes(workers, account), ...lookupRoutes(workers, account)];
}

// Workers script routes (§6, §7): the multipart upload, the script list, settings, services, the
// script content, and what `wrangler deploy` reads and writes around an upload (secrets,
// deployments, the workers.dev subdomain). Sources: the SDK's response types; wrangler's deploy
// (deploy-helpers validate-worker-props.ts, durable.ts, check-remote-secrets-override.ts,
// confirm-latest-deployment-overwrite.ts, triggers subdomain.ts) for the routes it calls and the
// fields it reads; wrangler's cfetch/internal.ts for the content answer (multipart + cf-entrypoint).
import type Cloudflare from 'cloudflare';
import { type HttpHandler, HttpResponse } from 'msw';
import { z } from 'zod';
import type { TwinAccount } from './account.ts';
import { badRequest, jsonBody, notFound, ok } from './envelope.ts';
import { type RouteContext, route } from './gate.ts';
import { newId, type WorkerModule, type WorkerScript } from './workers-store.ts';
import {
  applyUpload,
  type Reconciliation,
  type UploadMetadata,
  uploadMetadataSchema,
} from './workers-upload.ts';

type Script = Cloudflare.Workers.Scripts.Script;
type SettingsAnswer = Cloudflare.Workers.Scripts.ScriptAndVersionSettingGetResponse;
/**
 * The upload answer; wrangler's deploy also reads `deployment_id` (the new version, without
 * hyphens) and `exports_reconciliation` from it.
 */
type UploadAnswer = Cloudflare.Workers.Scripts.ScriptUpdateResponse & {
  deployment_id?: string;
  exports_reconciliation?: Reconciliation;
};
/** `GET /workers/services/:name` is not in the SDK: the fields wrangler's ServiceMetadataRes reads. */
interface ServiceAnswer {
  id: string;
  created_on: string;
  modified_on: string;
  default_environment: { environment: string; created_on: string; modified_on: string; script: Script };
}

const SCRIPTS = '/accounts/:account/workers/scripts';
const subdomainSchema = z.looseObject({ enabled: z.boolean(), previews_enabled: z.boolean().optional() });

function scriptOf({ account, params }: RouteContext): WorkerScript {
  const script = account.workers.scripts.get(params.name ?? '');
  if (!script) throw notFound(10007, 'This Worker does not exist on your account.');
  return script;
}

/** The client of an upload, from its user agent: wrangler says `wrangler/<version>`. */
function clientOf(request: Request): string {
  return /^wrangler\//.test(request.headers.get('user-agent') ?? '') ? 'wrangler' : 'api';
}

/** Like the API, the list shows live declarative exports (tombstones omitted) of an exports-mode script. */
function exportsView(script: WorkerScript): Script['exports'] {
  const live = [...script.classes.values()].filter((c) => c.state === 'live');
  return Object.fromEntries(
    live.map((c) => [
      c.name,
      {
        type: 'durable-object' as const,
        storage: c.sqlite ? ('sqlite' as const) : ('legacy-kv' as const),
        ...(c.container === undefined ? {} : { container: c.container }),
      },
    ]),
  );
}

function scriptView(script: WorkerScript): Script {
  return {
    id: script.name,
    tag: script.tag,
    etag: script.etag,
    created_on: script.createdOn,
    modified_on: script.modifiedOn,
    handlers: ['fetch'],
    has_modules: true,
    usage_model: 'standard',
    compatibility_date: script.compatibilityDate,
    compatibility_flags: script.compatibilityFlags,
    last_deployed_from: script.lastDeployedFrom,
    tags: script.tags,
    ...(script.migrationTag === undefined ? {} : { migration_tag: script.migrationTag }),
    ...(script.exportsMode ? { exports: exportsView(script) } : {}),
  };
}

function settingsView(script: WorkerScript): SettingsAnswer {
  return {
    // Stored as uploaded: the twin checks only the Durable Object bindings' fields, so it cannot
    // type the others.
    bindings: script.bindings as unknown as SettingsAnswer['bindings'],
    compatibility_date: script.compatibilityDate,
    compatibility_flags: script.compatibilityFlags,
    logpush: false,
    tags: script.tags,
    tail_consumers: [],
    usage_model: 'standard',
    observability: { enabled: false },
  };
}

/** Reads one JSON part named `name` (10021 when missing, repeated or not JSON). */
async function jsonPart(form: FormData, name: string): Promise<UploadMetadata> {
  const parts = form.getAll(name);
  const part = parts[0];
  if (parts.length !== 1 || part === undefined) {
    throw badRequest(
      10021,
      `could not read content for part ${name}: expected exactly one, got ${parts.length}`,
    );
  }
  const text = typeof part === 'string' ? part : await part.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest(10021, `could not read content for part ${name}: not JSON`);
  }
  const parsed = uploadMetadataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(10021, `${name}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

async function formOf(request: Request, part: string): Promise<FormData> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.startsWith('multipart/form-data')) {
    throw badRequest(10021, `could not read content for part ${part}: the body is not multipart/form-data`);
  }
  return request.formData();
}

async function modulesOf(form: FormData, metadata: UploadMetadata): Promise<WorkerModule[]> {
  const modules: WorkerModule[] = [];
  for (const [name, value] of form.entries()) {
    if (name === 'metadata' || typeof value === 'string') continue;
    modules.push({ name, contentType: value.type, text: await value.text() });
  }
  const main = metadata.main_module ?? metadata.body_part;
  if (!main) throw badRequest(10021, 'metadata must name main_module (or body_part)');
  if (!modules.some((m) => m.name === main)) throw badRequest(10021, `No such module "${main}".`);
  return modules;
}

/** The deployed code: one part per module and the main module in `cf-entrypoint`. */
function contentAnswer(script: WorkerScript): Response {
  const form = new FormData();
  for (const module of script.modules) {
    form.append(module.name, new File([module.text], module.name, { type: module.contentType }));
  }
  return new HttpResponse(form, { headers: { 'cf-entrypoint': script.mainModule } });
}

function secretsOf(script: WorkerScript): Cloudflare.Workers.Scripts.SecretListResponse[] {
  return script.bindings.flatMap((binding) =>
    binding.type === 'secret_text' ? [{ name: String(binding.name), type: 'secret_text' as const }] : [],
  );
}

/** The latest deployment: the last upload's version at 100 %. */
function deploymentOf(script: WorkerScript): Cloudflare.Workers.Scripts.Deployment {
  return {
    id: script.deploymentId,
    created_on: script.modifiedOn,
    source: script.lastDeployedFrom,
    strategy: 'percentage',
    versions: [{ version_id: script.versionId, percentage: 100 }],
    annotations: { 'workers/triggered_by': 'upload' },
  };
}

/**
 * The Worker resource: wrangler reads `subdomain` from it; `references.durable_objects` lists the
 * other Workers bound to this Worker's classes.
 */
function workerView(account: TwinAccount, script: WorkerScript): Cloudflare.Workers.Beta.Worker {
  const { workers } = account;
  const host = `${script.name}.${workers.subdomain}.workers.dev`;
  const durableObjects = [...script.classes.values()]
    .filter((c) => c.state === 'live')
    .flatMap((c) =>
      workers.externalBindings(script.name, c.name).map((ref) => ({
        namespace_id: c.namespaceId,
        namespace_name: `${script.name}_${c.name}`,
        worker_id: workers.scripts.get(ref.script)?.tag ?? '',
        worker_name: ref.script,
      })),
    );
  return {
    id: script.tag,
    name: script.name,
    created_on: script.createdOn,
    updated_on: script.modifiedOn,
    deployed_on: script.modifiedOn,
    logpush: false,
    observability: { enabled: false },
    references: {
      dispatch_namespace_outbounds: [],
      domains: [],
      durable_objects: durableObjects,
      queues: [],
      workers: [],
    },
    subdomain: { ...script.subdomain, url: `https://${host}`, preview_url_suffix: host },
    tags: script.tags,
    tail_consumers: [],
  };
}

function uploadRoutes(account: TwinAccount): HttpHandler[] {
  return [
    route(account, 'GET', SCRIPTS, () =>
      ok<Cloudflare.Workers.Scripts.ScriptListResponse[]>(
        [...account.workers.scripts.values()].map(scriptView),
      ),
    ),
    route(account, 'PUT', `${SCRIPTS}/:name`, async ({ request, params }) => {
      const form = await formOf(request, 'metadata');
      const metadata = await jsonPart(form, 'metadata');
      const modules = await modulesOf(form, metadata);
      const outcome = applyUpload(account.workers, params.name ?? '', metadata, modules, {
        client: clientOf(request),
      });
      return ok<UploadAnswer>({
        ...scriptView(outcome.script),
        startup_time_ms: 1,
        deployment_id: outcome.script.versionId.replaceAll('-', ''),
        ...(outcome.reconciliation ? { exports_reconciliation: outcome.reconciliation } : {}),
      });
    }),
    route(account, 'DELETE', `${SCRIPTS}/:name`, (ctx) => {
      const script = scriptOf(ctx);
      account.workers.scripts.delete(script.name);
      return ok<Cloudflare.Workers.Scripts.ScriptDeleteResponse>(null);
    }),
    route(account, 'GET', `${SCRIPTS}/:name/settings`, (ctx) =>
      ok<SettingsAnswer>(settingsView(scriptOf(ctx))),
    ),
    route(account, 'PATCH', `${SCRIPTS}/:name/settings`, async (ctx) => {
      const script = scriptOf(ctx);
      const form = await formOf(ctx.request, 'settings');
      const settings = await jsonPart(form, 'settings');
      const outcome = applyUpload(account.workers, script.name, settings, undefined, {
        client: clientOf(ctx.request),
      });
      return ok<Cloudflare.Workers.Scripts.ScriptAndVersionSettingEditResponse>({
        ...settingsView(outcome.script),
        ...(outcome.reconciliation ? { exports_reconciliation: outcome.reconciliation } : {}),
      });
    }),
    route(account, 'GET', `${SCRIPTS}/:name/content/v2`, (ctx) => contentAnswer(scriptOf(ctx))),
  ];
}

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
function versionRoutes(account: TwinAccount): HttpHandler[] {
  const { workers } = account;
  return [
    route(account, 'POST', `${SCRIPTS}/:name/versions`, async (ctx) => {
      const script = scriptOf(ctx);
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
      const script = scriptOf(ctx);
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
      const script = scriptOf(ctx);
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

/** What `wrangler deploy` calls besides the upload. */
function deployRoutes(account: TwinAccount): HttpHandler[] {
  return [
    route(account, 'GET', '/accounts/:account/workers/services/:name', (ctx) => {
      const script = scriptOf(ctx);
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
      ok<Cloudflare.Workers.Scripts.SecretListResponse[]>(secretsOf(scriptOf(ctx))),
    ),
    route(account, 'GET', `${SCRIPTS}/:name/deployments`, (ctx) =>
      ok<Cloudflare.Workers.Scripts.DeploymentListResponse>({ deployments: [deploymentOf(scriptOf(ctx))] }),
    ),
    route(account, 'GET', `${SCRIPTS}/:name/subdomain`, (ctx) =>
      ok<Cloudflare.Workers.Scripts.SubdomainGetResponse>(scriptOf(ctx).subdomain),
    ),
    route(account, 'POST', `${SCRIPTS}/:name/subdomain`, async (ctx) => {
      const script = scriptOf(ctx);
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
      ok<Cloudflare.Workers.Beta.Worker>(workerView(account, scriptOf(ctx))),
    ),
    route(account, 'GET', '/accounts/:account/workers/subdomain', () =>
      ok<Cloudflare.Workers.SubdomainGetResponse>({ subdomain: account.workers.subdomain }),
    ),
  ];
}

export function workersRoutes(account: TwinAccount): HttpHandler[] {
  return [...uploadRoutes(account), ...versionRoutes(account), ...deployRoutes(account)];
}

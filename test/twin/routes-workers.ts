// Workers routes (docs/cloudflare.md#workers-and-durable-objects, docs/cloudflare.md#containers):
// multipart script upload, settings, services, script list/delete, Durable Object namespaces and
// objects, container applications.
import type { HttpHandler } from 'msw';
import type { TwinAccount } from './account.ts';
import { badRequest, cursorPageOf, decodeCursor, encodeCursor, notFound, ok, pageOf } from './envelope.ts';
import { type RouteContext, route } from './gate.ts';
import type { WorkerModule, WorkerScript } from './workers-store.ts';
import {
  applyUpload,
  type UploadMetadata,
  type UploadOutcome,
  uploadMetadataSchema,
} from './workers-upload.ts';

const SCRIPTS = '/accounts/:account/workers/scripts';
const NAMESPACES = '/accounts/:account/workers/durable_objects/namespaces';
const APPS = '/accounts/:account/containers/applications';

function scriptOf({ account, params }: RouteContext): WorkerScript {
  const script = account.workers.scripts.get(params.name ?? '');
  if (!script) throw notFound(10007, 'This Worker does not exist on your account.');
  return script;
}

function scriptView(script: WorkerScript) {
  const view: Record<string, unknown> = {
    id: script.name,
    etag: script.etag,
    created_on: script.createdOn,
    modified_on: script.modifiedOn,
    handlers: ['fetch'],
    has_modules: true,
    usage_model: 'standard',
    compatibility_date: script.compatibilityDate,
    compatibility_flags: script.compatibilityFlags,
  };
  if (script.migrationTag !== undefined) view.migration_tag = script.migrationTag;
  view.tags = script.tags;
  // Like the API, the list shows live declarative exports (tombstones omitted) of an exports-mode script.
  if (script.exportsMode) {
    const live = [...script.classes.values()].filter((c) => c.state === 'live');
    view.exports = Object.fromEntries(
      live.map((c) => [c.name, { type: 'durable-object', storage: c.sqlite ? 'sqlite' : 'kv' }]),
    );
  }
  return view;
}

function settingsView(script: WorkerScript) {
  return {
    bindings: script.bindings,
    compatibility_date: script.compatibilityDate,
    compatibility_flags: script.compatibilityFlags,
    ...(script.migrationTag === undefined ? {} : { migration_tag: script.migrationTag }),
    logpush: false,
    placement: {},
    tail_consumers: [],
    usage_model: 'standard',
    observability: { enabled: false },
  };
}

function outcomeView(outcome: UploadOutcome, base: Record<string, unknown>) {
  return outcome.reconciliation ? { ...base, exports_reconciliation: outcome.reconciliation } : base;
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

function scriptRoutes(account: TwinAccount): HttpHandler[] {
  return [
    route(account, 'GET', SCRIPTS, () => ok([...account.workers.scripts.values()].map(scriptView))),
    route(account, 'PUT', `${SCRIPTS}/:name`, async ({ request, params }) => {
      const form = await formOf(request, 'metadata');
      const metadata = await jsonPart(form, 'metadata');
      const modules = await modulesOf(form, metadata);
      const outcome = applyUpload(account.workers, params.name ?? '', metadata, modules);
      return ok(outcomeView(outcome, { ...scriptView(outcome.script), startup_time_ms: 1 }));
    }),
    route(account, 'DELETE', `${SCRIPTS}/:name`, (ctx) => {
      const script = scriptOf(ctx);
      account.workers.scripts.delete(script.name);
      return ok(null);
    }),
    route(account, 'GET', `${SCRIPTS}/:name/settings`, (ctx) => ok(settingsView(scriptOf(ctx)))),
    route(account, 'PATCH', `${SCRIPTS}/:name/settings`, async (ctx) => {
      const script = scriptOf(ctx);
      const form = await formOf(ctx.request, 'settings');
      const settings = await jsonPart(form, 'settings');
      const outcome = applyUpload(account.workers, script.name, settings, undefined);
      return ok(outcomeView(outcome, settingsView(outcome.script)));
    }),
    route(account, 'GET', '/accounts/:account/workers/services/:name', (ctx) => {
      const script = scriptOf(ctx);
      return ok({
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
  ];
}

function durableObjectRoutes(account: TwinAccount): HttpHandler[] {
  return [
    route(account, 'GET', NAMESPACES, ({ url }) => {
      const { result, resultInfo } = pageOf(account.workers.namespaces(), url, {
        defaultPerPage: 20,
        maxPerPage: 1000,
      });
      return ok(result, resultInfo);
    }),
    route(account, 'GET', `${NAMESPACES}/:id/objects`, ({ params, url }) => {
      const ns = account.workers.findNamespace(params.id ?? '');
      if (!ns) throw notFound(10066, 'Durable Object namespace not found');
      const objects = [...ns.objectIds].sort().map((id) => ({ id, hasStoredData: true }));
      const { result, resultInfo } = cursorPageOf(objects, (o) => o.id, url, {
        defaultLimit: 1000,
        minLimit: 10,
        maxLimit: 10000,
      });
      return ok(result, resultInfo);
    }),
  ];
}

function appView(
  account: TwinAccount,
  app: { id: string; name: string; namespaceId: string | undefined; createdAt: string },
) {
  return {
    id: app.id,
    name: app.name,
    account_id: account.accountId,
    created_at: app.createdAt,
    version: 1,
    instances: 0,
    max_instances: 5,
    scheduling_policy: app.namespaceId ? 'durable_object' : 'default',
    ...(app.namespaceId ? { durable_objects: { namespace_id: app.namespaceId } } : {}),
    configuration: { image: `registry.cloudflare.com/${account.accountId}/${app.name}:latest` },
  };
}

function containerRoutes(account: TwinAccount): HttpHandler[] {
  return [
    route(account, 'GET', APPS, ({ url }) => {
      const apps = [...account.workers.containers.values()].sort((a, b) => a.id.localeCompare(b.id));
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 20) || 20));
      const after = decodeCursor(url.searchParams.get('page_token'));
      const start = after === null ? 0 : apps.findIndex((a) => a.id > after);
      const from = start === -1 ? apps.length : start;
      const page = apps.slice(from, from + perPage);
      const last = page.at(-1);
      const info: Record<string, unknown> = { per_page: perPage, count: page.length };
      if (last && from + perPage < apps.length) info.next_page_token = encodeCursor(last.id);
      return ok(
        page.map((app) => appView(account, app)),
        info,
      );
    }),
    route(account, 'GET', `${APPS}/:id`, ({ params }) => {
      const app = account.workers.containers.get(params.id ?? '');
      if (!app) throw notFound(1404, 'application not found');
      return ok(appView(account, app));
    }),
    route(account, 'DELETE', `${APPS}/:id`, ({ params }) => {
      if (!account.workers.containers.delete(params.id ?? '')) throw notFound(1404, 'application not found');
      return ok({ message: 'application deleted' });
    }),
  ];
}

export function workersRoutes(account: TwinAccount): HttpHandler[] {
  return [...scriptRoutes(account), ...durableObjectRoutes(account), ...containerRoutes(account)];
}

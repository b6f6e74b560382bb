// The Workers calls preview-gc makes: list scripts, their Durable Object namespaces and the container
// applications (and delete a retired one); read a script's code, settings and references; upload the
// parked Worker, learning the version it became. The upload
// is a hand-built FormData sent with the raw `put`, because the SDK's upload is broken in 7.x
// (docs/cloudflare.md#the-sdks-worker-upload-is-broken-in-7x).
// biome-ignore lint/style/noRestrictedImports: types only (the upload metadata's type), erased from the bundle.
import type Cloudflare from 'cloudflare';
import { BaseApplications } from 'cloudflare/resources/containers/applications/applications';
import { BaseNamespaces } from 'cloudflare/resources/durable-objects/namespaces/namespaces';
import { BaseWorkers as BaseBetaWorkers } from 'cloudflare/resources/workers/beta/workers/workers';
import { BaseContent } from 'cloudflare/resources/workers/scripts/content';
import { BaseScriptAndVersionSettings } from 'cloudflare/resources/workers/scripts/script-and-version-settings';
import { BaseScripts } from 'cloudflare/resources/workers/scripts/scripts';
import { toCallError, withAttemptSignal } from '../../cloudflare/answer.ts';
import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';
import { modulesOf, readCapped, type WorkerModuleText } from './content.ts';

const RESOURCES = [
  BaseScripts,
  BaseContent,
  BaseScriptAndVersionSettings,
  BaseBetaWorkers,
  BaseNamespaces,
  BaseApplications,
] as const;

const workerExportSchema = z.looseObject({ type: z.string(), storage: z.string().optional() });
const workerScriptSchema = z.looseObject({
  id: z.string(),
  migration_tag: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  exports: z.record(z.string(), workerExportSchema).nullish(),
});
export interface WorkerScriptSummary {
  name: string;
  migrationTag: string | undefined;
  tags: string[];
  /** Live declarative exports; undefined when the script uses legacy migrations. */
  exports: Record<string, { type: string; storage?: string | undefined }> | undefined;
}

const doNamespaceSchema = z.looseObject({
  id: z.string(),
  class: z.string().nullish(),
  script: z.string().nullish(),
  use_sqlite: z.boolean().nullish(),
  // A Worker preview's namespace: `script` is the parent Worker's name (wrangler's containers/deploy.ts).
  preview: z.looseObject({ id: z.string() }).nullish(),
});
export interface DurableObjectNamespace {
  id: string;
  className: string;
  script: string;
  sqlite: boolean;
  /** The namespace belongs to a preview of the Worker `script`, not to the Worker itself. */
  preview: boolean;
}

const containerAppSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  durable_objects: z.looseObject({ namespace_id: z.string() }).nullish(),
});
export interface ContainerApplication {
  id: string;
  name: string;
  namespaceId: string | undefined;
}
const tokenInfoSchema = z.looseObject({ next_page_token: z.string().nullish() }).nullish();

export interface WorkerModuleFile {
  name: string;
  content: string;
  type: string;
}

/**
 * Upload metadata: the SDK's, plus `containers`, which the SDK's type lacks but the API reads (its
 * `exports` entries name containers "declared in the upload's metadata.containers"), in the shape
 * wrangler sends (deploy-helpers create-worker-upload-form.ts).
 */
export type WorkerUploadMetadata = Cloudflare.Workers.Scripts.ScriptUpdateParams.Metadata & {
  containers?: { name?: string; class_name?: string }[];
};

const doBindingSchema = z.looseObject({
  type: z.literal('durable_object_namespace'),
  name: z.string(),
  class_name: z.string(),
  script_name: z.string().optional(),
});
export interface DurableObjectBinding {
  name: string;
  className: string;
  /** The Worker implementing the class; undefined: the bound Worker itself. */
  script: string | undefined;
}

export async function listWorkerScripts(api: CloudflareApi): Promise<WorkerScriptSummary[]> {
  const { result } = await api.send(
    'workers.list',
    (options) => api.sdk(RESOURCES).workers.scripts.list({ account_id: api.accountId }, options).asResponse(),
    z.array(workerScriptSchema),
  );
  return result.map((script) => ({
    name: script.id,
    migrationTag: script.migration_tag ?? undefined,
    tags: script.tags ?? [],
    exports: script.exports ?? undefined,
  }));
}

export async function listDurableObjectNamespaces(api: CloudflareApi): Promise<DurableObjectNamespace[]> {
  const namespaces = await api.allPages(
    'do.namespaces.list',
    (page, options) =>
      api
        .sdk(RESOURCES)
        .durableObjects.namespaces.list({ account_id: api.accountId, page, per_page: 1000 }, options)
        .asResponse(),
    doNamespaceSchema,
  );
  return namespaces.map((namespace) => ({
    id: namespace.id,
    className: namespace.class ?? '',
    script: namespace.script ?? '',
    sqlite: namespace.use_sqlite ?? false,
    preview: namespace.preview != null,
  }));
}

export function listContainerApplications(api: CloudflareApi): Promise<ContainerApplication[]> {
  return api.allContinued(async (token) => {
    const { result, info } = await api.send(
      'containers.list',
      (options) =>
        api
          .sdk(RESOURCES)
          .containers.applications.list(
            { account_id: api.accountId, per_page: 100, ...(token ? { page_token: token } : {}) },
            options,
          )
          .asResponse(),
      z.array(containerAppSchema),
      tokenInfoSchema,
    );
    return {
      items: result.map((app) => ({
        id: app.id,
        name: app.name,
        namespaceId: app.durable_objects?.namespace_id,
      })),
      next: info?.next_page_token ?? undefined,
    };
  });
}

/** Deletes a container application (its instances go with it). */
export async function deleteContainerApplication(api: CloudflareApi, id: string): Promise<void> {
  await api.send(
    'containers.delete',
    (options) =>
      api
        .sdk(RESOURCES)
        .containers.applications.delete(id, { account_id: api.accountId }, options)
        .asResponse(),
    z.unknown(),
  );
}

/**
 * The Worker's deployed code (`content/v2`: one part per module), or 'too-large' when it is over
 * `maxBytes`: a caller comparing it with a small known script needs no more to know it differs.
 */
export function getWorkerContent(
  api: CloudflareApi,
  name: string,
  maxBytes: number,
): Promise<WorkerModuleText[] | 'too-large'> {
  return api.pacer.call('workers.content', (context) =>
    withAttemptSignal(context, async (signal, timedOut) => {
      try {
        const response = await api
          .sdk(RESOURCES)
          .workers.scripts.content.get(
            name,
            { account_id: api.accountId },
            { maxRetries: 0, timeout: context.timeoutMs, signal },
          )
          .asResponse();
        const body = await readCapped(response, maxBytes);
        if (body === 'too-large') return body;
        return await modulesOf(response.headers.get('content-type') ?? '', body);
      } catch (error) {
        throw toCallError('workers.content', error, context, timedOut());
      }
    }),
  );
}

/** The Workers of the account bound to one of this Worker's Durable Object namespaces. */
export async function durableObjectReferences(
  api: CloudflareApi,
  name: string,
): Promise<{ namespaceId: string; worker: string }[]> {
  const { result } = await api.send(
    'workers.get',
    (options) =>
      api.sdk(RESOURCES).workers.beta.workers.get(name, { account_id: api.accountId }, options).asResponse(),
    z.looseObject({
      references: z
        .looseObject({
          durable_objects: z
            .array(z.looseObject({ namespace_id: z.string(), worker_name: z.string() }))
            .nullish(),
        })
        .nullish(),
    }),
  );
  return (result.references?.durable_objects ?? []).map((reference) => ({
    namespaceId: reference.namespace_id,
    worker: reference.worker_name,
  }));
}

/** Every binding of a Worker's live version (its settings), as the API answers it: `{ type, name, … }`. */
export async function workerBindings(
  api: CloudflareApi,
  name: string,
): Promise<({ type: string } & Record<string, unknown>)[]> {
  const { result } = await api.send(
    'workers.settings',
    (options) =>
      api
        .sdk(RESOURCES)
        .workers.scripts.scriptAndVersionSettings.get(name, { account_id: api.accountId }, options)
        .asResponse(),
    z.looseObject({ bindings: z.array(z.looseObject({ type: z.string() })).nullish() }),
  );
  return result.bindings ?? [];
}

/** Whether a Worker of this name exists: its settings answer, or 404 says there is none. */
async function workerExists(api: CloudflareApi, name: string): Promise<boolean> {
  try {
    await workerBindings(api, name);
    return true;
  } catch (error) {
    if (error instanceof CloudflareCallError && error.status === 404) return false;
    throw error;
  }
}

/** The Durable Object bindings of a Worker's live version (its settings). */
export async function durableObjectBindings(
  api: CloudflareApi,
  name: string,
): Promise<DurableObjectBinding[]> {
  return (await workerBindings(api, name)).flatMap((binding) => {
    const parsed = doBindingSchema.safeParse(binding);
    if (!parsed.success) return [];
    return [{ name: parsed.data.name, className: parsed.data.class_name, script: parsed.data.script_name }];
  });
}

/**
 * Uploads a whole Worker: one JSON `metadata` part and one part per module. Answers the id of the
 * version it became, when the answer names it (`deployment_id`, the version's id without hyphens, as
 * wrangler's deploy reads it; the SDK's type leaves it out).
 */
export async function uploadWorker(
  api: CloudflareApi,
  name: string,
  metadata: WorkerUploadMetadata,
  modules: WorkerModuleFile[],
): Promise<string | undefined> {
  const { result } = await api.send(
    'workers.upload',
    (options) => {
      // A fresh form per attempt: a body stream cannot be sent twice.
      const form = new FormData();
      form.set(
        'metadata',
        new Blob([JSON.stringify(metadata)], { type: 'application/json' }),
        'metadata.json',
      );
      for (const module of modules)
        form.set(module.name, new File([module.content], module.name, { type: module.type }));
      return api
        .sdk(RESOURCES)
        .put(`/accounts/${api.accountId}/workers/scripts/${encodeURIComponent(name)}`, {
          body: form,
          ...options,
        })
        .asResponse();
    },
    z.looseObject({ deployment_id: z.string().nullish() }),
  );
  return result.deployment_id ?? undefined;
}

/** The minimal script `slots provision` uploads to create a slot's Worker: it answers 503 until a deploy. */
const SHELL_MODULE = 'shell.js';
const SHELL_CODE =
  "export default { fetch() { return new Response('This preview slot has not been deployed to yet.\\n', { status: 503 }); } };\n";

/**
 * Creates a Worker as a shell: an upload of a minimal script with no bindings, which the slot's first
 * deploy replaces. An upload to a name that exists replaces that Worker, so callers create only what
 * the run's listing says is missing.
 */
/**
 * A new Worker as a shell, only where none of that name exists. A script upload is an upsert, so the
 * Worker is read first: one that exists (a Worker the listing missed, or made meanwhile) is never
 * uploaded over, and the call fails naming it.
 */
export async function createWorkerShell(api: CloudflareApi, name: string): Promise<void> {
  if (await workerExists(api, name))
    throw new Error(
      `the Worker '${name}' exists already, though the account's listing did not show it; preview-gc slots provision never uploads over a Worker: check the name the slot config gives, and run it again`,
    );
  await uploadWorker(
    api,
    name,
    { main_module: SHELL_MODULE, compatibility_date: '2025-06-01', bindings: [] },
    [{ name: SHELL_MODULE, content: SHELL_CODE, type: 'application/javascript+module' }],
  );
}

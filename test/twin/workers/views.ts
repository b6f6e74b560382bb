// The twin's Workers as the API shows them, each typed with the SDK's response type (or, where the
// SDK has none, with the fields wrangler reads, named after wrangler's own type).
import type Cloudflare from 'cloudflare';
import { HttpResponse } from 'msw';
import type { Reconciliation } from './draft.ts';
import type { WorkerScript, WorkersStore } from './store.ts';

export type Script = Cloudflare.Workers.Scripts.Script;
export type SettingsAnswer = Cloudflare.Workers.Scripts.ScriptAndVersionSettingGetResponse;
/**
 * The upload answer; wrangler's deploy also reads `deployment_id` (the new version, without
 * hyphens) and `exports_reconciliation` from it.
 */
export type UploadAnswer = Cloudflare.Workers.Scripts.ScriptUpdateResponse & {
  deployment_id?: string;
  exports_reconciliation?: Reconciliation;
};
/** `GET /workers/services/:name` is not in the SDK: the fields wrangler's ServiceMetadataRes reads. */
export interface ServiceAnswer {
  id: string;
  created_on: string;
  modified_on: string;
  default_environment: { environment: string; created_on: string; modified_on: string; script: Script };
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

export function scriptView(script: WorkerScript): Script {
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

export function settingsView(script: WorkerScript): SettingsAnswer {
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

/** The deployed code: one part per module and the main module in `cf-entrypoint`. */
export function contentAnswer(script: WorkerScript): Response {
  const form = new FormData();
  for (const module of script.modules) {
    form.append(module.name, new File([module.text], module.name, { type: module.contentType }));
  }
  return new HttpResponse(form, { headers: { 'cf-entrypoint': script.mainModule } });
}

export function secretsOf(script: WorkerScript): Cloudflare.Workers.Scripts.SecretListResponse[] {
  return script.bindings.flatMap((binding) =>
    binding.type === 'secret_text' ? [{ name: String(binding.name), type: 'secret_text' as const }] : [],
  );
}

/**
 * The Worker resource: wrangler reads `subdomain` from it; `references.durable_objects` lists the
 * other Workers bound to this Worker's classes.
 */
export function workerView(workers: WorkersStore, script: WorkerScript): Cloudflare.Workers.Beta.Worker {
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
    // The SDK: prepend a version or preview prefix to the suffix to make a preview URL
    // (`https://<prefix>-my-worker.my-subdomain.workers.dev`), as wrangler's versions upload does.
    subdomain: { ...script.subdomain, url: `https://${host}`, preview_url_suffix: `-${host}` },
    tags: script.tags,
    tail_consumers: [],
  };
}

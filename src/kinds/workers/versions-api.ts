// The Workers calls about what keeps a Worker's older code reachable after it is parked
// (docs/cloudflare.md#versions-deployments-and-preview-urls): its workers.dev switches (the beta
// Worker, read, or patched with a merge patch that turns preview URLs off), its deployments and
// versions (listed; old ones deleted), and its Worker Previews (listed, deleted). The SDK has no
// Previews resource, and its classic deployments and versions listings page a shape the API does
// not answer (`items` where the deployments answer `deployments`), so those are read with the raw
// `get` and checked here.

import { BaseVersions as BaseBetaVersions } from 'cloudflare/resources/workers/beta/workers/versions';
import { BaseWorkers as BaseBetaWorkers } from 'cloudflare/resources/workers/beta/workers/workers';
import { BaseDeployments } from 'cloudflare/resources/workers/scripts/deployments';
import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';

const RESOURCES = [BaseBetaWorkers, BaseBetaVersions, BaseDeployments] as const;

/** A Worker's workers.dev switches: its own URL, and its version and alias preview URLs. */
export interface WorkerSubdomain {
  enabled: boolean;
  previewsEnabled: boolean;
}

const workerSchema = z.looseObject({
  subdomain: z
    .looseObject({ enabled: z.boolean().nullish(), previews_enabled: z.boolean().nullish() })
    .nullish(),
});

function subdomainOf(worker: z.infer<typeof workerSchema>): WorkerSubdomain {
  // wrangler reads a missing switch as off (triggers/subdomain.ts, getWorkerSubdomain).
  return {
    enabled: worker.subdomain?.enabled ?? false,
    previewsEnabled: worker.subdomain?.previews_enabled ?? false,
  };
}

const workerPath = (api: CloudflareApi, name: string) =>
  `/accounts/${api.accountId}/workers/workers/${encodeURIComponent(name)}`;
const scriptPath = (api: CloudflareApi, name: string) =>
  `/accounts/${api.accountId}/workers/scripts/${encodeURIComponent(name)}`;

/** The Worker's switches as the beta Worker shows them. */
export async function readWorkerSubdomain(api: CloudflareApi, name: string): Promise<WorkerSubdomain> {
  const { result } = await api.send(
    'workers.get',
    (options) =>
      api.sdk(RESOURCES).workers.beta.workers.get(name, { account_id: api.accountId }, options).asResponse(),
    workerSchema,
  );
  return subdomainOf(result);
}

/**
 * Turns the Worker's preview URLs off and leaves its own URL as it is: a merge patch of the beta
 * Worker ("a partial update … omitted properties are left unchanged"), answered with the Worker as
 * it is now.
 */
export async function turnPreviewUrlsOff(api: CloudflareApi, name: string): Promise<WorkerSubdomain> {
  const { result } = await api.send(
    'workers.previews.off',
    (options) =>
      api
        .sdk(RESOURCES)
        .patch(workerPath(api, name), {
          body: { subdomain: { previews_enabled: false } },
          headers: { 'content-type': 'application/merge-patch+json' },
          ...options,
        })
        .asResponse(),
    workerSchema,
  );
  return subdomainOf(result);
}

/** One deployment: the versions it sends traffic to, with their share. */
export interface WorkerDeployment {
  id: string;
  versions: { versionId: string; percentage: number }[];
}

const deploymentsSchema = z.looseObject({
  deployments: z.array(
    z.looseObject({
      id: z.string(),
      versions: z.array(z.looseObject({ version_id: z.string(), percentage: z.number() })),
    }),
  ),
});

/** The Worker's deployments, the one serving its traffic first (the SDK: "The first deployment in the list is the latest"). */
export async function listDeployments(api: CloudflareApi, name: string): Promise<WorkerDeployment[]> {
  const { result } = await api.send(
    'workers.deployments.list',
    (options) =>
      api
        .sdk(RESOURCES)
        .get(`${scriptPath(api, name)}/deployments`, options)
        .asResponse(),
    deploymentsSchema,
  );
  return result.deployments.map((deployment) => ({
    id: deployment.id,
    versions: deployment.versions.map((version) => ({
      versionId: version.version_id,
      percentage: version.percentage,
    })),
  }));
}

/** Deletes a deployment that no longer serves traffic (the latest one cannot be deleted). */
export async function deleteDeployment(api: CloudflareApi, name: string, id: string): Promise<void> {
  await api.send(
    'workers.deployments.delete',
    (options) =>
      api
        .sdk(RESOURCES)
        .workers.scripts.deployments.delete(id, { account_id: api.accountId, script_name: name }, options)
        .asResponse(),
    z.unknown(),
  );
}

/** One version of the Worker's code. */
export interface WorkerVersion {
  id: string;
  number: number | undefined;
  /** Whether it has a version preview URL; undefined when the answer does not say. */
  hasPreview: boolean | undefined;
}

const versionSchema = z.looseObject({
  id: z.string(),
  number: z.number().nullish(),
  // The SDK and the API reference say `hasPreview`; wrangler reads `has_preview` from an upload's answer.
  metadata: z
    .looseObject({ hasPreview: z.boolean().nullish(), has_preview: z.boolean().nullish() })
    .nullish(),
});

/**
 * Every version of the Worker, page by page (`page` only: no source says which page size the API
 * takes); a page's `result` is `{ items }`.
 */
export async function listVersions(api: CloudflareApi, name: string): Promise<WorkerVersion[]> {
  const versions = await api.allPages(
    'workers.versions.list',
    (page, options) =>
      api
        .sdk(RESOURCES)
        .get(`${scriptPath(api, name)}/versions`, { query: { page }, ...options })
        .asResponse(),
    versionSchema,
    'items',
  );
  return versions.map((version) => ({
    id: version.id,
    number: version.number ?? undefined,
    hasPreview: version.metadata?.hasPreview ?? version.metadata?.has_preview ?? undefined,
  }));
}

/** Deletes one version (the beta Workers API: "Delete a Worker version"). */
export async function deleteVersion(api: CloudflareApi, name: string, id: string): Promise<void> {
  await api.send(
    'workers.versions.delete',
    (options) =>
      api
        .sdk(RESOURCES)
        .workers.beta.workers.versions.delete(id, { account_id: api.accountId, worker_id: name }, options)
        .asResponse(),
    z.unknown(),
  );
}

/** A Worker Preview: its own code and Durable Object storage, under the Worker. */
export interface WorkerPreview {
  id: string;
  slug: string;
  name: string;
  /** When it was made and last changed (wrangler's PreviewResource), when the answer says. */
  createdOn: string | undefined;
  updatedOn: string | undefined;
}

const previewSchema = z
  .looseObject({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    created_on: z.string().nullish(),
    updated_on: z.string().nullish(),
  })
  .transform(
    (preview): WorkerPreview => ({
      id: preview.id,
      slug: preview.slug,
      name: preview.name,
      createdOn: preview.created_on ?? undefined,
      updatedOn: preview.updated_on ?? undefined,
    }),
  );

/** Every Worker Preview of the Worker (the Previews API pages by `page`). */
export function listWorkerPreviews(api: CloudflareApi, name: string): Promise<WorkerPreview[]> {
  return api.allPages(
    'workers.previews.list',
    (page, options) =>
      api
        .sdk(RESOURCES)
        .get(`${workerPath(api, name)}/previews`, { query: { page }, ...options })
        .asResponse(),
    previewSchema,
  );
}

/** Deletes a Worker Preview with its deployments and its Durable Object namespaces. */
export async function deleteWorkerPreview(api: CloudflareApi, name: string, id: string): Promise<void> {
  await api.send(
    'workers.previews.delete',
    (options) =>
      api
        .sdk(RESOURCES)
        .delete(`${workerPath(api, name)}/previews/${encodeURIComponent(id)}`, options)
        .asResponse(),
    z.unknown(),
  );
}

/** A preview's latest deployment: when it was made, and the bindings it carries (its `env`). */
export interface PreviewDeployment {
  id: string;
  createdOn: string | undefined;
  /** The deployment's bindings by name, as sent (wrangler's extractBindings: `{ type, … }`). */
  bindings: Record<string, Record<string, unknown>>;
}

const previewDeploymentSchema = z.looseObject({
  id: z.string(),
  created_on: z.string().nullish(),
  env: z.record(z.string(), z.looseObject({ type: z.string() })).nullish(),
});

/**
 * The latest deployment of a Worker Preview (`deployments/latest`, as wrangler's preview command reads
 * it), or undefined when it has none: 404, code 10025 or 10222 (wrangler's preview.ts takes the same
 * three as "no deployment yet").
 */
export async function latestPreviewDeployment(
  api: CloudflareApi,
  name: string,
  previewId: string,
): Promise<PreviewDeployment | undefined> {
  try {
    const { result } = await api.send(
      'workers.previews.deployments.get',
      (options) =>
        api
          .sdk(RESOURCES)
          .get(
            `${workerPath(api, name)}/previews/${encodeURIComponent(previewId)}/deployments/latest`,
            options,
          )
          .asResponse(),
      previewDeploymentSchema,
    );
    return { id: result.id, createdOn: result.created_on ?? undefined, bindings: result.env ?? {} };
  } catch (error) {
    if (isNoDeployment(error)) return undefined;
    throw error;
  }
}

function isNoDeployment(error: unknown): boolean {
  return (
    error instanceof CloudflareCallError &&
    (error.status === 404 || error.codes.some((code) => code === 10025 || code === 10222))
  );
}

/** Whether a call failed because the preview does not exist (404, code 10025: wrangler's preview.ts). */
export function isPreviewMissing(error: unknown): boolean {
  return error instanceof CloudflareCallError && (error.status === 404 || error.codes.includes(10025));
}

// A Worker's versions and deployments as the twin keeps them and the API shows them. Sources: the
// SDK's types (scripts/versions, scripts/deployments, beta/workers/versions) and wrangler's
// deploy-helpers versions-api.ts and versions-types.ts for the fields wrangler reads (`annotations`,
// which the SDK's classic version types lack), and the preview URLs docs for which version gets a
// preview URL (none for a Worker that implements a Durable Object).
import { randomUUID } from 'node:crypto';
import type Cloudflare from 'cloudflare';
import type { UploadMetadata } from './metadata.ts';
import {
  activeDeployment,
  type VersionAnnotations,
  type WorkerDeployment,
  type WorkerScript,
  type WorkersStore,
  type WorkerVersion,
} from './store.ts';

/** The account-wide author every version and deployment names (the twin has no users). */
export const TWIN_AUTHOR = 'tenant@example.com';

const ANNOTATION_KEYS = ['workers/message', 'workers/tag', 'workers/alias', 'workers/triggered_by'] as const;

function annotationsOf(metadata: UploadMetadata): VersionAnnotations {
  const sent = metadata.annotations ?? {};
  const kept: VersionAnnotations = {};
  for (const key of ANNOTATION_KEYS) {
    const value = sent[key];
    if (value !== undefined) kept[key] = value;
  }
  kept['workers/triggered_by'] ??= 'upload';
  return kept;
}

/** The version `metadata` makes of `script` (the script as the upload leaves it). */
export function newVersion(script: WorkerScript, metadata: UploadMetadata, client: string): WorkerVersion {
  const implementsDurableObject = [...script.classes.values()].some((c) => c.state === 'live');
  return {
    id: randomUUID(),
    number: Math.max(0, ...script.versions.map((v) => v.number)) + 1,
    createdOn: new Date().toISOString(),
    source: client,
    annotations: annotationsOf(metadata),
    hasPreview: !implementsDurableObject,
    metadata,
    modules: script.modules,
    bindings: script.bindings,
    compatibilityDate: script.compatibilityDate,
    compatibilityFlags: script.compatibilityFlags,
    migrationTag: script.migrationTag,
  };
}

export function newDeployment(
  versionId: string,
  source: string,
  annotations: WorkerDeployment['annotations'],
): WorkerDeployment {
  return {
    id: randomUUID(),
    createdOn: new Date().toISOString(),
    source,
    versions: [{ version_id: versionId, percentage: 100 }],
    annotations,
  };
}

/** The version the active deployment serves (the twin deploys one version at 100 %). */
export function activeVersion(script: WorkerScript): WorkerVersion | undefined {
  const id = activeDeployment(script)?.versions[0]?.version_id;
  return script.versions.find((version) => version.id === id);
}

/** The hostname of a version's preview URL: `<first 8 of the id>-<worker>.<subdomain>.workers.dev`. */
export function previewHost(workers: WorkersStore, script: WorkerScript, prefix: string): string {
  return `${prefix}-${script.name}.${workers.subdomain}.workers.dev`;
}

/** Version and alias preview URLs of a version: the URLs that route to it while previews are on. */
export function versionUrls(workers: WorkersStore, script: WorkerScript, version: WorkerVersion): string[] {
  return version.hasPreview ? [`https://${previewHost(workers, script, version.id.slice(0, 8))}`] : [];
}

type Source = Cloudflare.Workers.Scripts.VersionListResponse.Metadata['source'];
const SOURCES = new Set<Source>(['api', 'wrangler']);
const sourceOf = (source: string): Source => (SOURCES.has(source as Source) ? (source as Source) : 'unknown');

/**
 * wrangler's ApiVersion reads `annotations` from list and get answers (Tag, Message, triggered_by);
 * the SDK's classic types leave them out.
 */
type WithAnnotations<T> = T & { annotations: VersionAnnotations };

function metadataOf(version: WorkerVersion) {
  return {
    author_email: TWIN_AUTHOR,
    author_id: 'twin-author',
    created_on: version.createdOn,
    modified_on: version.createdOn,
    hasPreview: version.hasPreview,
    source: sourceOf(version.source),
  };
}

export type VersionListItem = WithAnnotations<Cloudflare.Workers.Scripts.VersionListResponse>;

export function versionListItem(version: WorkerVersion): VersionListItem {
  return {
    id: version.id,
    number: version.number,
    metadata: metadataOf(version),
    annotations: version.annotations,
  };
}

export type VersionDetail = WithAnnotations<Cloudflare.Workers.Scripts.VersionGetResponse>;

export function versionDetail(version: WorkerVersion): VersionDetail {
  return {
    ...versionListItem(version),
    resources: {
      // Stored as uploaded (the twin checks only the Durable Object bindings' fields).
      bindings:
        version.bindings as unknown as Cloudflare.Workers.Scripts.VersionGetResponse.Resources['bindings'],
      script: {
        etag: version.id.replaceAll('-', ''),
        handlers: ['fetch'],
        last_deployed_from: version.source,
      },
      script_runtime: {
        compatibility_date: version.compatibilityDate,
        compatibility_flags: version.compatibilityFlags,
        usage_model: 'standard',
        ...(version.migrationTag === undefined ? {} : { migration_tag: version.migrationTag }),
      },
    },
  };
}

/** A version as the beta Workers API shows it: `urls` are the URLs that always route to it. */
export function betaVersion(
  workers: WorkersStore,
  script: WorkerScript,
  version: WorkerVersion,
): Cloudflare.Workers.Beta.Workers.Version {
  return {
    id: version.id,
    number: version.number,
    created_on: version.createdOn,
    urls: versionUrls(workers, script, version),
    annotations: {
      ...(version.annotations['workers/message'] === undefined
        ? {}
        : { 'workers/message': version.annotations['workers/message'] }),
      ...(version.annotations['workers/tag'] === undefined
        ? {}
        : { 'workers/tag': version.annotations['workers/tag'] }),
      ...(version.annotations['workers/triggered_by'] === undefined
        ? {}
        : { 'workers/triggered_by': version.annotations['workers/triggered_by'] }),
    },
    author_email: TWIN_AUTHOR,
    compatibility_date: version.compatibilityDate,
    compatibility_flags: version.compatibilityFlags,
    main_module: version.metadata.main_module ?? version.metadata.body_part ?? '',
    source: version.source,
    ...(version.migrationTag === undefined ? {} : { migration_tag: version.migrationTag }),
  };
}

export function deploymentView(deployment: WorkerDeployment): Cloudflare.Workers.Scripts.Deployment {
  return {
    id: deployment.id,
    created_on: deployment.createdOn,
    source: deployment.source,
    strategy: 'percentage',
    versions: deployment.versions,
    annotations: deployment.annotations,
    author_email: TWIN_AUTHOR,
  };
}

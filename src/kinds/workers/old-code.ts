// After the park, what could still run the last tenant's code: its versions' preview URLs and
// aliases, older versions a deployment could bring back, and its Worker Previews (each with its own
// code and Durable Object storage). The step turns the Worker's preview URLs off (routing to every
// version and alias URL stops at once), deletes every version that has a preview URL and no longer
// serves traffic (first the old deployments that name one: a deployment's versions must stay
// readable), and deletes every Worker Preview with its deployments and namespaces
// (docs/cloudflare.md#versions-deployments-and-preview-urls). Aliases cannot be read or deleted; an
// alias whose version is gone has nothing to answer with.
//
// Its reads are made after the park and are the last the step makes of each thing unless it then
// deletes some of it: those the inventory judges itself (reads), so a clean Worker costs no second
// listing.
import { plural } from '../../text/words.ts';
import type { EraseContext } from '../step.ts';
import type { SlotWorker } from './config.ts';
import {
  deleteDeployment,
  deleteVersion,
  deleteWorkerPreview,
  listDeployments,
  listVersions,
  listWorkerPreviews,
  readWorkerSubdomain,
  turnPreviewUrlsOff,
  type WorkerDeployment,
  type WorkerPreview,
  type WorkerSubdomain,
  type WorkerVersion,
} from './versions-api.ts';

export interface OldCodeDetails {
  /**
   * The Worker's version and alias preview URLs: set off with the park (not read before), found on
   * and turned off, found off, or found on in a dry run.
   */
  previewUrls: 'set off' | 'turned off' | 'off' | 'would turn off';
  /** Old deployments deleted, so the versions they name could be. */
  deletedDeployments: number;
  /** Versions with a preview URL deleted (ids). */
  deletedVersions: string[];
  /** Worker Previews deleted (slugs). */
  deletedPreviews: string[];
}

/** What the step read last of each thing; undefined where it changed the thing after reading it. */
export interface OldCodeReads {
  subdomain: WorkerSubdomain;
  deployments: WorkerDeployment[];
  versions: WorkerVersion[] | undefined;
  previews: WorkerPreview[] | undefined;
}

/** Whether the step changed (or would change) anything here beyond the park itself. */
export function changedOldCode(details: OldCodeDetails): boolean {
  return (
    details.previewUrls === 'turned off' ||
    details.previewUrls === 'would turn off' ||
    details.deletedDeployments > 0 ||
    details.deletedVersions.length > 0 ||
    details.deletedPreviews.length > 0
  );
}

/**
 * The park this runs after: `now` (this step uploaded it), `would` (a dry run's, not made) or
 * `already` (the Worker was parked before).
 */
export type ParkState = 'now' | 'would' | 'already';

/**
 * The previews switch: right after an upload it is turned off at once (one request that answers the
 * state it leaves); otherwise read first, so a clean Worker is only read.
 */
async function previewUrlsOff(
  context: EraseContext,
  name: string,
  park: ParkState,
): Promise<{ subdomain: WorkerSubdomain; previewUrls: OldCodeDetails['previewUrls'] }> {
  const { api, dryRun } = context;
  if (park === 'now') return { subdomain: await turnPreviewUrlsOff(api, name), previewUrls: 'set off' };
  const subdomain = await readWorkerSubdomain(api, name);
  if (!subdomain.previewsEnabled) return { subdomain, previewUrls: 'off' };
  if (dryRun) return { subdomain, previewUrls: 'would turn off' };
  return { subdomain: await turnPreviewUrlsOff(api, name), previewUrls: 'turned off' };
}

/**
 * The versions to delete: every one that has (or may have) a preview URL and that the serving
 * deployment does not use (a dry run's park would replace that one too); and the other deployments
 * that name one of them.
 */
function oldVersionsOf(
  deployments: readonly WorkerDeployment[],
  versions: readonly WorkerVersion[],
  park: ParkState,
) {
  const [serving, ...older] = deployments;
  const kept = new Set(park === 'would' ? [] : (serving?.versions.map((version) => version.versionId) ?? []));
  const doomed = versions.filter((version) => !kept.has(version.id) && version.hasPreview !== false);
  const ids = new Set(doomed.map((version) => version.id));
  return {
    versions: doomed,
    deployments: older.filter((deployment) =>
      deployment.versions.some((version) => ids.has(version.versionId)),
    ),
  };
}

/** Removes what keeps the Worker's older code reachable; with `context.dryRun`, says what it would remove. */
export async function removeOldCode(
  context: EraseContext,
  worker: SlotWorker,
  park: ParkState,
): Promise<{ details: OldCodeDetails; reads: OldCodeReads }> {
  const { api, dryRun } = context;
  const { subdomain, previewUrls } = await previewUrlsOff(context, worker.name, park);
  const details: OldCodeDetails = {
    previewUrls,
    deletedDeployments: 0,
    deletedVersions: [],
    deletedPreviews: [],
  };

  const deployments = await listDeployments(api, worker.name);
  const versions = await listVersions(api, worker.name);
  const old = oldVersionsOf(deployments, versions, park);
  for (const deployment of old.deployments) {
    if (!dryRun) await deleteDeployment(api, worker.name, deployment.id);
    details.deletedDeployments++;
  }
  for (const version of old.versions) {
    if (!dryRun) await deleteVersion(api, worker.name, version.id);
    details.deletedVersions.push(version.id);
  }

  const previews = await listWorkerPreviews(api, worker.name);
  for (const preview of previews) {
    if (!dryRun) await deleteWorkerPreview(api, worker.name, preview.id);
    details.deletedPreviews.push(preview.slug);
  }
  return {
    details,
    reads: {
      subdomain,
      deployments,
      versions: old.versions.length === 0 ? versions : undefined,
      previews: previews.length === 0 ? previews : undefined,
    },
  };
}

/** "turned preview URLs off; deleted 2 old versions, Worker Previews pr-7, pr-9", or undefined when nothing changed. */
export function describeOldCode(details: OldCodeDetails, dryRun: boolean): string | undefined {
  const { deletedVersions, deletedPreviews } = details;
  const deleted = [
    ...(deletedVersions.length > 0 ? [plural(deletedVersions.length, 'old version')] : []),
    ...(deletedPreviews.length > 0
      ? [
          `${deletedPreviews.length === 1 ? 'Worker Preview' : 'Worker Previews'} ${deletedPreviews.join(', ')}`,
        ]
      : []),
  ];
  const parts = [
    ...(details.previewUrls === 'turned off' ? ['turned preview URLs off'] : []),
    ...(details.previewUrls === 'would turn off' ? ['would turn preview URLs off'] : []),
    ...(deleted.length > 0 ? [`${dryRun ? 'would delete' : 'deleted'} ${deleted.join(', ')}`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : undefined;
}

// Which URLs of workers.dev answer, and with what, as the twin models routing: the Worker's own URL
// (while workers.dev is on) serves the active deployment; while preview URLs are on, each version
// that has a preview URL answers on `<first 8 of its id>-<worker>`, and each alias on
// `<alias>-<worker>`, pointing at the newest version uploaded with it; each Worker Preview answers on
// `<slug>-<worker>` and each of its deployments on `<first 8 of its id>-<worker>`. Sources: the preview URLs docs (the URL format; "Disabling Preview URLs will
// disable routing to both versioned and aliased preview URLs"; no preview URLs for a Worker that
// implements a Durable Object) and the Previews docs (`{slug}-{worker}.{subdomain}.workers.dev`, `{short_id}-{worker}…` for a deployment).
// Stand-ins: an alias whose version is deleted answers nothing, and a Worker Preview's URL answers
// whether or not the Worker's preview URLs are on (so only deleting it makes it unreachable).
import type { WorkerScript, WorkersStore } from './store.ts';
import { activeVersion, previewHost, versionUrls } from './versions.ts';

export interface ReachableUrl {
  url: string;
  /** `version <id>` or `Worker Preview <slug>`. */
  serves: string;
}

function aliasUrls(workers: WorkersStore, script: WorkerScript): ReachableUrl[] {
  const newestByAlias = new Map<string, string>();
  for (const version of [...script.versions].sort((a, b) => a.number - b.number)) {
    const alias = version.annotations['workers/alias'];
    if (alias !== undefined && version.hasPreview) newestByAlias.set(alias, version.id);
  }
  return [...newestByAlias].map(([alias, id]) => ({
    url: `https://${previewHost(workers, script, alias)}`,
    serves: `version ${id}`,
  }));
}

/** Every URL that answers for `script` now. */
export function reachableUrls(workers: WorkersStore, script: WorkerScript): ReachableUrl[] {
  const reachable: ReachableUrl[] = [];
  const active = activeVersion(script);
  if (script.subdomain.enabled && active) {
    reachable.push({
      url: `https://${script.name}.${workers.subdomain}.workers.dev`,
      serves: `version ${active.id}`,
    });
  }
  if (script.subdomain.previews_enabled) {
    for (const version of script.versions) {
      for (const url of versionUrls(workers, script, version))
        reachable.push({ url, serves: `version ${version.id}` });
    }
    reachable.push(...aliasUrls(workers, script));
  }
  for (const preview of script.previews) {
    if (preview.deployments.length === 0) continue;
    const serves = `Worker Preview ${preview.slug}`;
    reachable.push({ url: `https://${previewHost(workers, script, preview.slug)}`, serves });
    for (const deployment of preview.deployments)
      reachable.push({ url: `https://${previewHost(workers, script, deployment.id.slice(0, 8))}`, serves });
  }
  return reachable;
}

/** What answers at `url` (a workers.dev URL of any Worker), or undefined when nothing does. */
export function whatAnswers(workers: WorkersStore, url: string): string | undefined {
  for (const script of workers.scripts.values()) {
    const found = reachableUrls(workers, script).find((candidate) => candidate.url === url);
    if (found) return found.serves;
  }
  return undefined;
}

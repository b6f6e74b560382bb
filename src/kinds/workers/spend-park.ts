// Parking for spend: a live lease whose compute runs away has its Worker replaced by the parked Worker
// (parked-worker.ts) as an erase parks it, but with every Durable Object class kept as a stub class:
// the objects' data stays, every request is answered 503 and every alarm ends without being set again.
// The lease and its data stay with the pull request; its next deploy replaces the parked code and runs
// again. What was done is read back: the deployed code, fetched after the upload, must be the parked code.

import type { CloudflareApi } from '../../cloudflare/client.ts';
import type { NameResolver } from '../../cloudflare/resolver.ts';
import {
  getWorkerContent,
  listContainerApplications,
  listDurableObjectNamespaces,
  listWorkerScripts,
  uploadWorker,
  type WorkerScriptSummary,
} from './api.ts';
import type { SlotWorker } from './config.ts';
import {
  isIdentifier,
  isParkedCode,
  type KeptClass,
  PARKED_CODE_MAX_BYTES,
  parkedUpload,
} from './parked-worker.ts';

export interface SpendParkResult {
  worker: string;
  /** `parked`: uploaded and read back parked; `running`: the read-back found other code; `missing`: no such Worker. */
  state: 'parked' | 'running' | 'missing' | 'refused';
  /** For a person: what was kept, or why not. */
  summary: string;
}

/** Every Durable Object class of the script, each kept (with its container, so that stays on). */
async function keptClasses(resolver: NameResolver, script: WorkerScriptSummary): Promise<KeptClass[]> {
  const exported = Object.entries(script.exports ?? {}).filter(
    ([, entry]) => entry.type === 'durable-object',
  );
  if (exported.length === 0 && script.migrationTag === undefined) return [];
  const namespaces = (await resolver.listing('durable-objects', listDurableObjectNamespaces)).filter(
    (namespace) => namespace.script === script.name && !namespace.preview,
  );
  const names = [...new Set([...namespaces.map((n) => n.className), ...exported.map(([name]) => name)])];
  if (names.length === 0) return [];
  const applications = await resolver.listing('containers', listContainerApplications);
  return names.sort().map((name) => {
    const namespace = namespaces.find((candidate) => candidate.className === name);
    const entry = exported.find(([exportName]) => exportName === name)?.[1];
    const application = namespace && applications.find((app) => app.namespaceId === namespace.id);
    return { name, sqlite: namespace?.sqlite ?? entry?.storage === 'sqlite', container: application?.name };
  });
}

/** Parks `worker`'s compute keeping its data, then reads the deployed code back. */
export async function parkKeepingData(
  context: { api: CloudflareApi; resolver: NameResolver },
  worker: SlotWorker,
): Promise<SpendParkResult> {
  const { api, resolver } = context;
  const script = (await resolver.listing('workers', listWorkerScripts)).find((s) => s.name === worker.name);
  if (script === undefined)
    return { worker: worker.name, state: 'missing', summary: 'no such Worker: nothing runs' };
  const keep = await keptClasses(resolver, script);
  const unusable = keep.filter((kept) => !isIdentifier(kept.name));
  if (unusable.length > 0)
    return {
      worker: worker.name,
      state: 'refused',
      summary: `cannot write a stub for class ${unusable.map((kept) => `'${kept.name}'`).join(', ')}; stop it by hand`,
    };
  const exportsMode = Object.values(script.exports ?? {}).some((entry) => entry.type === 'durable-object');
  const upload = parkedUpload({ exportsMode, migrationTag: script.migrationTag, tombstone: [], keep });
  await uploadWorker(api, worker.name, upload.metadata, upload.modules);
  // Read back: the code now deployed, not what the upload answered.
  const deployed = await getWorkerContent(api, worker.name, PARKED_CODE_MAX_BYTES);
  const parked = deployed !== 'too-large' && isParkedCode(deployed, keep);
  const classes =
    keep.length === 0 ? 'no Durable Object classes' : `kept ${keep.map((k) => k.name).join(', ')}`;
  return parked
    ? { worker: worker.name, state: 'parked', summary: `parked; ${classes} (their data stays)` }
    : {
        worker: worker.name,
        state: 'running',
        summary: 'uploaded the parked Worker, but other code is deployed',
      };
}

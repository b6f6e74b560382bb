// Step 1: park the slot's Worker. One upload replaces the code with the parked Worker and
// tombstones every Durable Object class in the same request: with `exports` entries in state
// `deleted` when the script uses declarative exports (the script list shows an `exports` map with a
// durable-object entry), else with a legacy migration {old_tag, new_tag, steps: [{deleted_classes}]}.
// Classes backed by a container application stay as stub classes (deleting them is refused while
// the application exists), declared with their container so it stays on.
//
// "Already parked" is decided by the deployed code, which every upload replaces: with nothing left
// to tombstone and our tag on the script, the code is read back (content/v2) and compared with the
// parked Worker this erase would upload. Tags and migration tags survive a redeploy, so neither
// alone may skip the upload.

import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import {
  type DurableObjectNamespace,
  getWorkerContent,
  listContainerApplications,
  listDurableObjectNamespaces,
  uploadWorker,
  type WorkerScriptSummary,
} from './api.ts';
import { describeBlockedClasses } from './blocked-classes.ts';
import type { SlotWorker } from './config.ts';

export interface ComputeDetails {
  /** How the Durable Object classes were tombstoned. */
  mode: 'exports' | 'migrations' | 'none';
  tombstoned: string[];
  /** Classes kept as stub exports, with why: container-backed, or durable-objects: keep. */
  kept: { name: string; why: 'container' | 'keep' }[];
  migrationTag?: { from: string | undefined; to: string };
}

import {
  isIdentifier,
  isParkedCode,
  type KeptClass,
  PARKED_CODE_MAX_BYTES,
  PARKED_TAG,
  parkedUpload,
} from './parked-worker.ts';

function usesExports(script: WorkerScriptSummary): boolean {
  return Object.values(script.exports ?? {}).some((entry) => entry.type === 'durable-object');
}

interface ClassPlan {
  tombstone: { name: string; namespaceId: string | undefined }[];
  keep: (KeptClass & { why: 'container' | 'keep' })[];
}

/**
 * The Durable Object namespaces whose class the Worker `script` implements (one listing of every
 * namespace a run). The namespaces of the Worker's previews carry its name too; they are not its
 * classes (a preview-only class in `deleted_classes` would fail the whole upload), so they are left out.
 */
async function durableObjectNamespaces(
  context: EraseContext,
  script: string,
): Promise<DurableObjectNamespace[]> {
  const namespaces = await context.resolver.listing('durable-objects', listDurableObjectNamespaces);
  return namespaces.filter((namespace) => namespace.script === script && !namespace.preview);
}

/** Every live Durable Object class of the script, split into those to tombstone and those to keep. */
async function planClasses(
  context: EraseContext,
  worker: SlotWorker,
  script: WorkerScriptSummary,
): Promise<ClassPlan> {
  const exportsMode = usesExports(script);
  // A script with neither a migration tag nor exports has no Durable Object class: no listing needed.
  if (!exportsMode && script.migrationTag === undefined) return { tombstone: [], keep: [] };
  const namespaces = await durableObjectNamespaces(context, worker.name);
  const exported = Object.entries(script.exports ?? {}).filter(
    ([, entry]) => entry.type === 'durable-object',
  );
  const names = [
    ...new Set([...namespaces.map((namespace) => namespace.className), ...exported.map(([name]) => name)]),
  ];
  if (names.length === 0) return { tombstone: [], keep: [] };

  const applications = await context.resolver.listing('containers', listContainerApplications);
  const plan: ClassPlan = { tombstone: [], keep: [] };
  for (const name of names.sort()) {
    const namespace = namespaces.find((candidate) => candidate.className === name);
    const application = namespace ? applications.find((app) => app.namespaceId === namespace.id) : undefined;
    const why = application ? 'container' : worker.durableObjects === 'keep' ? 'keep' : undefined;
    if (why === undefined) {
      plan.tombstone.push({ name, namespaceId: namespace?.id });
      continue;
    }
    const entry = exported.find(([exportName]) => exportName === name)?.[1];
    plan.keep.push({
      name,
      why,
      sqlite: namespace?.sqlite ?? entry?.storage === 'sqlite',
      container: application?.name,
    });
  }
  return plan;
}

function describeClasses(plan: ClassPlan, tombstoneVerb: string): string {
  const parts = [
    ...(plan.tombstone.length > 0
      ? [`${tombstoneVerb} ${plan.tombstone.map((entry) => entry.name).join(', ')}`]
      : []),
    ...(plan.keep.length > 0
      ? [
          `kept ${plan.keep.map((kept) => `${kept.name} (${kept.why === 'container' ? 'container' : 'durable-objects: keep'})`).join(', ')}`,
        ]
      : []),
  ];
  return parts.join('; ');
}

/** Whether the deployed code is the parked Worker this plan would upload: one read of the code. */
async function runsParkedCode(context: EraseContext, worker: SlotWorker, plan: ClassPlan): Promise<boolean> {
  const deployed = await getWorkerContent(context.api, worker.name, PARKED_CODE_MAX_BYTES);
  return deployed !== 'too-large' && isParkedCode(deployed, plan.keep);
}

/** Parks the Worker whose listing entry is `script` (kind.ts found it by name). */
export async function eraseCompute(
  context: EraseContext,
  worker: SlotWorker,
  script: WorkerScriptSummary,
): Promise<StepOutcome<ComputeDetails>> {
  const exportsMode = usesExports(script);
  const plan = await planClasses(context, worker, script);
  const unusable = plan.keep.filter((kept) => !isIdentifier(kept.name));
  if (unusable.length > 0) {
    throw new StepError(
      'refused',
      `cannot write a stub for class ${unusable.map((kept) => `'${kept.name}'`).join(', ')} into the parked Worker; park it by hand`,
    );
  }

  const details: ComputeDetails = {
    mode: plan.tombstone.length === 0 ? 'none' : exportsMode ? 'exports' : 'migrations',
    tombstoned: plan.tombstone.map((entry) => entry.name),
    kept: plan.keep.map((kept) => ({ name: kept.name, why: kept.why })),
  };
  // Without our tag the Worker was never parked, or someone uploaded it with other tags since.
  const mayBeParked = plan.tombstone.length === 0 && script.tags.includes(PARKED_TAG);
  if (mayBeParked && (await runsParkedCode(context, worker, plan))) {
    const kept = describeClasses(plan, 'tombstoned');
    return { status: 'unchanged', summary: `already parked${kept ? `; ${kept}` : ''}`, details };
  }

  const upload = parkedUpload({
    exportsMode,
    migrationTag: script.migrationTag,
    tombstone: details.tombstoned,
    keep: plan.keep,
  });
  if (upload.newMigrationTag !== undefined)
    details.migrationTag = { from: script.migrationTag, to: upload.newMigrationTag };
  if (context.dryRun) {
    const classes = describeClasses(plan, 'tombstone');
    return {
      status: 'would-change',
      summary: `would park the Worker${classes ? `; ${classes.replace('kept', 'keep')}` : ''}`,
      details,
    };
  }
  try {
    await uploadWorker(context.api, worker.name, upload.metadata, upload.modules);
  } catch (error) {
    if (error instanceof CloudflareCallError && error.reason === 'api') {
      const blocked = await describeBlockedClasses(context, worker, plan.tombstone, error);
      if (blocked !== undefined) throw new StepError('refused', blocked);
    }
    throw error;
  }
  const classes = describeClasses(plan, 'tombstoned');
  return {
    status: 'done',
    summary: classes ? `parked; ${classes}` : 'parked (no Durable Object classes)',
    details,
  };
}

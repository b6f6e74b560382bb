// Step 1: park the slot's Worker. One upload replaces the code with the parked Worker and
// tombstones every Durable Object class in the same request: with `exports` entries in state
// `deleted` when the script uses declarative exports (the script list shows an `exports` map with a
// durable-object entry), else with a legacy migration {old_tag, new_tag, steps: [{deleted_classes}]}.
// Classes backed by a container application stay as stub classes (deleting them is refused while
// the application exists), declared with their container so it stays on; when the erase runs for an
// incoming deploy that no longer declares such a class, its application is deleted first and the
// class is tombstoned with the rest. Then what could still run older code goes (old-code.ts):
// preview URLs, old versions, Worker Previews; and the inventory judges what is left.
//
// "Already parked" is decided by the deployed code, which every upload replaces: with nothing left
// to tombstone and our tag on the script, the code is read back (content/v2) and compared with the
// parked Worker this erase would upload. Tags and migration tags survive a redeploy, so neither
// alone may skip the upload.

import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import {
  type ContainerApplication,
  type DurableObjectNamespace,
  deleteContainerApplication,
  getWorkerContent,
  listContainerApplications,
  listDurableObjectNamespaces,
  uploadWorker,
  type WorkerScriptSummary,
} from './api.ts';
import { describeBlockedClasses } from './blocked-classes.ts';
import type { SlotWorker } from './config.ts';
import type { WorkerModuleText } from './content.ts';
import type { ComputeHandover } from './inventory.ts';
import { changedOldCode, describeOldCode, type OldCodeDetails, removeOldCode } from './old-code.ts';

export interface ComputeDetails {
  /** How the Durable Object classes were tombstoned. */
  mode: 'exports' | 'migrations' | 'none';
  tombstoned: string[];
  /** Classes kept as stub exports, with why: container-backed, or durable-objects: keep. */
  kept: { name: string; why: 'container' | 'keep' }[];
  migrationTag?: { from: string | undefined; to: string };
  /** The park's upload was made (not skipped as already parked, not a dry run). */
  uploaded: boolean;
  /**
   * Container applications deleted (or that a dry run would delete) because the incoming deploy no
   * longer declares their class, which was then tombstoned.
   */
  retired: { className: string; application: string }[];
  /** Preview URLs, old versions and Worker Previews; absent when the step stopped before them. */
  oldCode?: OldCodeDetails;
  /** The cron triggers removed (or that a dry run would remove); absent when the step stopped before them. */
  schedules?: string[];
}

import {
  isIdentifier,
  isParkedCode,
  type KeptClass,
  PARKED_CODE_MAX_BYTES,
  PARKED_TAG,
  parkedUpload,
} from './parked-worker.ts';
import { readSchedules, removeSchedules } from './schedules.ts';

function usesExports(script: WorkerScriptSummary): boolean {
  return Object.values(script.exports ?? {}).some((entry) => entry.type === 'durable-object');
}

interface ClassPlan {
  tombstone: { name: string; namespaceId: string | undefined }[];
  keep: (KeptClass & { why: 'container' | 'keep' })[];
  /** Container-backed classes the incoming deploy no longer declares: their application goes first. */
  retire: { className: string; application: ContainerApplication }[];
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
  if (!exportsMode && script.migrationTag === undefined) return { tombstone: [], keep: [], retire: [] };
  const namespaces = await durableObjectNamespaces(context, worker.name);
  const exported = Object.entries(script.exports ?? {}).filter(
    ([, entry]) => entry.type === 'durable-object',
  );
  const names = [
    ...new Set([...namespaces.map((namespace) => namespace.className), ...exported.map(([name]) => name)]),
  ];
  if (names.length === 0) return { tombstone: [], keep: [], retire: [] };

  const applications = await context.resolver.listing('containers', listContainerApplications);
  const plan: ClassPlan = { tombstone: [], keep: [], retire: [] };
  const { incoming } = context;
  for (const name of names.sort()) {
    const namespace = namespaces.find((candidate) => candidate.className === name);
    const application = namespace ? applications.find((app) => app.namespaceId === namespace.id) : undefined;
    const retired =
      application !== undefined &&
      worker.durableObjects === 'park' &&
      incoming !== undefined &&
      !incoming.containerClasses.includes(name);
    if (retired) plan.retire.push({ className: name, application });
    const why = retired
      ? undefined
      : application
        ? 'container'
        : worker.durableObjects === 'keep'
          ? 'keep'
          : undefined;
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

function describeClasses(plan: ClassPlan, dryRun: boolean): string {
  const parts = [
    ...plan.retire.map(
      (retired) =>
        `${dryRun ? 'would delete' : 'deleted'} container application ${retired.application.name} (class ${retired.className} no longer declared)`,
    ),
    ...(plan.tombstone.length > 0
      ? [`${dryRun ? 'tombstone' : 'tombstoned'} ${plan.tombstone.map((entry) => entry.name).join(', ')}`]
      : []),
    ...(plan.keep.length > 0
      ? [
          `${dryRun ? 'keep' : 'kept'} ${plan.keep.map((kept) => `${kept.name} (${kept.why === 'container' ? 'container' : 'durable-objects: keep'})`).join(', ')}`,
        ]
      : []),
  ];
  return parts.join('; ');
}

/** The deployed code when it is the parked Worker this plan would upload (one read), else undefined. */
async function parkedCodeDeployed(
  context: EraseContext,
  worker: SlotWorker,
  plan: ClassPlan,
): Promise<WorkerModuleText[] | undefined> {
  const deployed = await getWorkerContent(context.api, worker.name, PARKED_CODE_MAX_BYTES);
  return deployed !== 'too-large' && isParkedCode(deployed, plan.keep) ? deployed : undefined;
}

/**
 * Uploads the parked Worker: first the container applications of retired classes go (a class is not
 * deleted while its application exists), each recorded in `details` once deleted. Answers the
 * version the upload became, when it says.
 */
async function park(
  context: EraseContext,
  worker: SlotWorker,
  plan: ClassPlan,
  upload: ReturnType<typeof parkedUpload>,
  details: ComputeDetails,
): Promise<string | undefined> {
  for (const { className, application } of plan.retire) {
    await deleteContainerApplication(context.api, application.id);
    details.retired.push({ className, application: application.name });
  }
  try {
    return await uploadWorker(context.api, worker.name, upload.metadata, upload.modules);
  } catch (error) {
    if (error instanceof CloudflareCallError && error.reason === 'api') {
      const blocked = await describeBlockedClasses(context, worker, plan.tombstone, error);
      if (blocked !== undefined) throw new StepError('refused', blocked);
    }
    throw error;
  }
}

/** A failure once the step has changed something keeps what it had done, for the report. */
function withDetails(error: unknown, details: ComputeDetails): unknown {
  if (error instanceof CloudflareCallError || error instanceof StepError)
    return new StepError(error.reason, error.message, details);
  return error;
}

function summaryOf(
  plan: ClassPlan,
  details: ComputeDetails,
  alreadyParked: boolean,
  dryRun: boolean,
): string {
  const classes = describeClasses(plan, dryRun);
  const park = alreadyParked
    ? `already parked${classes ? `; ${classes}` : ''}`
    : dryRun
      ? `would park the Worker${classes ? `; ${classes}` : ''}`
      : classes
        ? `parked; ${classes}`
        : 'parked (no Durable Object classes)';
  const old = details.oldCode === undefined ? undefined : describeOldCode(details.oldCode, dryRun);
  const crons = details.schedules ?? [];
  const schedules =
    crons.length === 0
      ? undefined
      : `${dryRun ? 'would remove' : 'removed'} ${crons.length === 1 ? 'its cron trigger' : `its ${crons.length} cron triggers`}`;
  return [park, old, schedules].filter((part) => part !== undefined).join('; ');
}

/** Removes the Worker's cron triggers, if it has any: the crons it ran go with the tenant. */
async function removeCronTriggers(context: EraseContext, worker: SlotWorker): Promise<string[]> {
  const crons = await readSchedules(context.api, worker.name);
  if (crons.length > 0 && !context.dryRun) await removeSchedules(context.api, worker.name);
  return crons;
}

interface ParkOutcome {
  /** The deployed code, read back and found parked; undefined when the step parked (or would). */
  deployedCode: WorkerModuleText[] | undefined;
  /** The version the upload became, when it says. */
  parkedVersion: string | undefined;
}

/** Parks the Worker unless its deployed code is already the parked Worker this plan would upload. */
async function parkUnlessParked(
  context: EraseContext,
  worker: SlotWorker,
  script: WorkerScriptSummary,
  plan: ClassPlan,
  details: ComputeDetails,
): Promise<ParkOutcome> {
  // Without our tag the Worker was never parked, or someone uploaded it with other tags since.
  const mayBeParked = plan.tombstone.length === 0 && script.tags.includes(PARKED_TAG);
  const deployedCode = mayBeParked ? await parkedCodeDeployed(context, worker, plan) : undefined;
  if (deployedCode !== undefined) return { deployedCode, parkedVersion: undefined };
  const upload = parkedUpload({
    exportsMode: usesExports(script),
    migrationTag: script.migrationTag,
    tombstone: details.tombstoned,
    keep: plan.keep,
  });
  if (upload.newMigrationTag !== undefined)
    details.migrationTag = { from: script.migrationTag, to: upload.newMigrationTag };
  if (context.dryRun) return { deployedCode, parkedVersion: undefined };
  try {
    const parkedVersion = await park(context, worker, plan, upload, details);
    details.uploaded = true;
    return { deployedCode, parkedVersion };
  } catch (error) {
    throw details.retired.length > 0 ? withDetails(error, details) : error;
  }
}

/** Parks the Worker whose listing entry is `script` (kind.ts found it by name). */
export async function eraseCompute(
  context: EraseContext,
  worker: SlotWorker,
  script: WorkerScriptSummary,
): Promise<StepOutcome<ComputeDetails, ComputeHandover>> {
  const plan = await planClasses(context, worker, script);
  const unusable = plan.keep.filter((kept) => !isIdentifier(kept.name));
  if (unusable.length > 0) {
    throw new StepError(
      'refused',
      `cannot write a stub for class ${unusable.map((kept) => `'${kept.name}'`).join(', ')} into the parked Worker; park it by hand`,
    );
  }

  const details: ComputeDetails = {
    mode: plan.tombstone.length === 0 ? 'none' : usesExports(script) ? 'exports' : 'migrations',
    tombstoned: plan.tombstone.map((entry) => entry.name),
    kept: plan.keep.map((kept) => ({ name: kept.name, why: kept.why })),
    uploaded: false,
    // A dry run records what it would delete; a real run each application once it is deleted.
    retired: context.dryRun
      ? plan.retire.map(({ className, application }) => ({ className, application: application.name }))
      : [],
  };
  const { deployedCode, parkedVersion } = await parkUnlessParked(context, worker, script, plan, details);
  const alreadyParked = deployedCode !== undefined;

  let removed: Awaited<ReturnType<typeof removeOldCode>>;
  try {
    removed = await removeOldCode(
      context,
      worker,
      alreadyParked ? 'already' : context.dryRun ? 'would' : 'now',
    );
  } catch (error) {
    throw withDetails(error, details);
  }
  details.oldCode = removed.details;
  try {
    details.schedules = await removeCronTriggers(context, worker);
  } catch (error) {
    throw withDetails(error, details);
  }
  const changed = !alreadyParked || changedOldCode(removed.details) || details.schedules.length > 0;
  return {
    status: changed ? (context.dryRun ? 'would-change' : 'done') : 'unchanged',
    summary: summaryOf(plan, details, alreadyParked, context.dryRun),
    details,
    handover: { incoming: context.incoming, parkedVersion, deployedCode, ...removed.reads },
  };
}

// Step 1: park the slot's Worker. One upload replaces the code with the parked Worker and
// tombstones every Durable Object class in the same request: with `exports` entries in state
// `deleted` when the script uses declarative exports (the script list shows an `exports` map with a
// durable-object entry), else with a legacy migration {old_tag, new_tag, steps: [{deleted_classes}]}.
// Classes backed by a container application stay as stub classes (deleting them is refused while
// the application exists). A Worker that is already parked with nothing left to tombstone gets no
// upload: the script list shows our tag, or (legacy migrations) a migration tag we wrote.
import type { SlotWorker } from '../config/slot-config.ts';
import type { WorkerScriptSummary } from './account.ts';
import {
  type ComputeDetails,
  type EraseContext,
  missingResource,
  StepError,
  type StepOutcome,
} from './erase-step.ts';
import {
  isIdentifier,
  isOwnMigrationTag,
  type KeptClass,
  PARKED_TAG,
  parkedUpload,
} from './parked-worker.ts';

function usesExports(script: WorkerScriptSummary): boolean {
  return Object.values(script.exports ?? {}).some((entry) => entry.type === 'durable-object');
}

interface ClassPlan {
  tombstone: string[];
  keep: (KeptClass & { why: 'container' | 'keep' })[];
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
  const namespaces = await context.resolver.durableObjectNamespaces(worker.name);
  const exported = Object.entries(script.exports ?? {}).filter(
    ([, entry]) => entry.type === 'durable-object',
  );
  const names = [
    ...new Set([...namespaces.map((namespace) => namespace.className), ...exported.map(([name]) => name)]),
  ];
  if (names.length === 0) return { tombstone: [], keep: [] };

  const applications = await context.resolver.containerApplications();
  const containerNamespaces = new Set(
    applications.flatMap((app) => (app.namespaceId ? [app.namespaceId] : [])),
  );
  const plan: ClassPlan = { tombstone: [], keep: [] };
  for (const name of names.sort()) {
    const namespace = namespaces.find((candidate) => candidate.className === name);
    const why =
      namespace && containerNamespaces.has(namespace.id)
        ? 'container'
        : worker.durableObjects === 'keep'
          ? 'keep'
          : undefined;
    if (why === undefined) {
      plan.tombstone.push(name);
      continue;
    }
    const entry = exported.find(([exportName]) => exportName === name)?.[1];
    plan.keep.push({
      name,
      why,
      sqlite: namespace?.sqlite ?? entry?.storage === 'sqlite',
      exportEntry: entry,
    });
  }
  return plan;
}

function describeClasses(plan: ClassPlan, tombstoneVerb: string): string {
  const parts = [
    ...(plan.tombstone.length > 0 ? [`${tombstoneVerb} ${plan.tombstone.join(', ')}`] : []),
    ...(plan.keep.length > 0
      ? [
          `kept ${plan.keep.map((kept) => `${kept.name} (${kept.why === 'container' ? 'container' : 'durable-objects: keep'})`).join(', ')}`,
        ]
      : []),
  ];
  return parts.join('; ');
}

export async function eraseCompute(context: EraseContext, worker: SlotWorker): Promise<StepOutcome> {
  const script = await context.resolver.workerScript(worker.name);
  if (!script) throw missingResource('Worker', worker.name, worker);
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
    tombstoned: plan.tombstone,
    kept: plan.keep.map((kept) => ({ name: kept.name, why: kept.why })),
  };
  const parked = script.tags.includes(PARKED_TAG) || isOwnMigrationTag(script.migrationTag);
  if (plan.tombstone.length === 0 && parked) {
    const kept = describeClasses(plan, 'tombstoned');
    return { status: 'unchanged', summary: `already parked${kept ? `; ${kept}` : ''}`, details };
  }

  const upload = parkedUpload({
    exportsMode,
    migrationTag: script.migrationTag,
    tombstone: plan.tombstone,
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
  await context.account.uploadWorker(worker.name, upload.metadata, upload.modules);
  const classes = describeClasses(plan, 'tombstoned');
  return {
    status: 'done',
    summary: classes ? `parked; ${classes}` : 'parked (no Durable Object classes)',
    details,
  };
}

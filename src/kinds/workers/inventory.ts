// What is left of a slot's Worker after its park, judged by code of its own: the deployment serving
// it is the parked Worker alone, at 100 %; its preview URLs are off; no other version keeps a preview
// URL (one that would answer again the moment preview URLs are on); no Worker Preview is left; and no
// Durable Object class is live but the kept ones (backed by a container application the incoming
// deploy still declares, or all of them under `durable-objects: keep`).
//
// It judges the step's own last reads of the deployments, the switch, the versions and the previews
// where the step changed nothing after them (the step hands them over; see old-code.ts), and reads the
// rest itself: the Durable Object namespaces afresh (never the run's listing, which the park changed),
// and the versions or previews again where the step deleted some. Handed nothing, it reads everything
// itself. Which classes may stay is not what is left but what is allowed: a class backed by a
// container application, as the run's listing of applications shows them (the park deletes only
// applications whose class it then tombstones).
import { plural } from '../../text/words.ts';
import { type Inventory, type InventoryContext, someItems } from '../inventory.ts';
import type { IncomingDeploy } from '../step.ts';
import {
  getWorkerContent,
  listContainerApplications,
  listDurableObjectNamespaces,
  type WorkerScriptSummary,
} from './api.ts';
import type { SlotWorker } from './config.ts';
import type { WorkerModuleText } from './content.ts';
import { PARKED_BANNER, PARKED_CODE_MAX_BYTES, PARKED_MAIN_MODULE } from './parked-worker.ts';
import { readSchedules } from './schedules.ts';
import {
  listDeployments,
  listVersions,
  listWorkerPreviews,
  readWorkerSubdomain,
  type WorkerDeployment,
  type WorkerPreview,
  type WorkerSubdomain,
  type WorkerVersion,
} from './versions-api.ts';

/**
 * What the step hands over: what it was told of the incoming deploy, and its reads, each made after
 * its last change to what it shows (undefined where it changed that after reading it).
 */
export interface ComputeHandover {
  incoming: IncomingDeploy | undefined;
  /** The version the parked upload became, when the step uploaded and the answer named it. */
  parkedVersion: string | undefined;
  /** The deployed code the step read back, when it did not upload. */
  deployedCode: readonly WorkerModuleText[] | undefined;
  subdomain: WorkerSubdomain;
  /** The serving deployment first. */
  deployments: readonly WorkerDeployment[];
  versions: readonly WorkerVersion[] | undefined;
  previews: readonly WorkerPreview[] | undefined;
}

/** The reads the inventory judges: the step's where it handed them over, its own for the rest. */
interface Reads {
  incoming: IncomingDeploy | undefined;
  parkedVersion: string | undefined;
  deployedCode: readonly WorkerModuleText[] | undefined;
  subdomain: WorkerSubdomain;
  deployments: readonly WorkerDeployment[];
}

interface ComputeInventoryInput {
  worker: SlotWorker;
  /** The Worker as the run's script listing showed it before the park. */
  script: WorkerScriptSummary;
  reads: Reads;
  handover: ComputeHandover | undefined;
}

const short = (id: string) => `${id.replaceAll('-', '').slice(0, 8)}…`;
const sameId = (a: string, b: string) =>
  a.replaceAll('-', '').toLowerCase() === b.replaceAll('-', '').toLowerCase();

/** The parked Worker's code, as this module knows it: one module, `parked.js`, starting with the banner. */
function looksParked(modules: readonly WorkerModuleText[] | 'too-large'): boolean {
  if (modules === 'too-large' || modules.length !== 1) return false;
  const [only] = modules;
  return only?.name === PARKED_MAIN_MODULE && only.text.startsWith(PARKED_BANNER);
}

/** What is wrong with the serving deployment, or undefined when it is the parked Worker alone, at 100 %; and its version. */
async function servingLeft(
  context: InventoryContext,
  input: ComputeInventoryInput,
): Promise<{ left: string[]; serving: string | undefined }> {
  const { reads, worker } = input;
  const [serving] = reads.deployments;
  if (serving === undefined) return { left: ['no deployment serves the Worker'], serving: undefined };
  const [only, ...more] = serving.versions;
  if (only === undefined || more.length > 0 || only.percentage !== 100) {
    const split = serving.versions.map((v) => `${short(v.versionId)} at ${v.percentage} %`).join(', ');
    return { left: [`the serving deployment splits traffic: ${split}`], serving: undefined };
  }
  if (reads.parkedVersion !== undefined) {
    const parked = sameId(only.versionId, reads.parkedVersion);
    return {
      left: parked
        ? []
        : [`the serving deployment runs version ${short(only.versionId)}, not the parked Worker`],
      serving: only.versionId,
    };
  }
  const code =
    reads.deployedCode ?? (await getWorkerContent(context.api, worker.name, PARKED_CODE_MAX_BYTES));
  return {
    left: looksParked(code)
      ? []
      : [`the serving version ${short(only.versionId)} does not run the parked Worker`],
    serving: only.versionId,
  };
}

/** Versions other than the serving one that keep a preview URL. */
async function versionsLeft(
  context: InventoryContext,
  input: ComputeInventoryInput,
  serving: string | undefined,
): Promise<string[]> {
  const { reads, worker, handover } = input;
  const versions = handover?.versions ?? (await listVersions(context.api, worker.name));
  const on = reads.subdomain.previewsEnabled;
  return versions
    .filter(
      (version) => (serving === undefined || !sameId(version.id, serving)) && version.hasPreview !== false,
    )
    .map((version) =>
      on
        ? `version ${short(version.id)} still reachable by its preview URL`
        : `version ${short(version.id)} keeps its preview URL (reachable again once preview URLs are on)`,
    );
}

async function previewsLeft(context: InventoryContext, input: ComputeInventoryInput): Promise<string[]> {
  const previews = input.handover?.previews ?? (await listWorkerPreviews(context.api, input.worker.name));
  if (previews.length === 0) return [];
  return [
    `${plural(previews.length, 'Worker Preview')}: ${previews.map((preview) => preview.slug).join(', ')}`,
  ];
}

/** Live classes that should not be, and the kept ones (for the summary). */
async function classesLeft(
  context: InventoryContext,
  input: ComputeInventoryInput,
): Promise<{ left: string[]; kept: string[] }> {
  const { worker, script } = input;
  const { incoming } = input.reads;
  // Durable Object classes come only with migrations or declarative exports.
  if (script.migrationTag === undefined && script.exports === undefined) return { left: [], kept: [] };
  const namespaces = (await listDurableObjectNamespaces(context.api)).filter(
    (namespace) => namespace.script === worker.name && !namespace.preview,
  );
  if (namespaces.length === 0 || worker.durableObjects === 'keep') {
    return { left: [], kept: namespaces.map((namespace) => namespace.className) };
  }
  const applications = await context.resolver.listing('containers', listContainerApplications);
  const left: string[] = [];
  const kept: string[] = [];
  for (const namespace of namespaces) {
    const application = applications.find((app) => app.namespaceId === namespace.id);
    if (application === undefined) {
      left.push(`Durable Object class ${namespace.className} is live (no container application backs it)`);
    } else if (incoming !== undefined && !incoming.containerClasses.includes(namespace.className)) {
      left.push(
        `Durable Object class ${namespace.className} is live with container application ${application.name}, which the incoming deploy no longer declares`,
      );
    } else {
      kept.push(namespace.className);
    }
  }
  return { left, kept };
}

/** What is left of `worker` (found as `script` in the run's listing), given what its step handed over. */
/** A cron trigger left runs the Worker on its own, production's job in a preview. */
function cronsLeft(crons: readonly string[]): string[] {
  return crons.length === 0
    ? []
    : [
        `${crons.length === 1 ? 'a cron trigger' : `${crons.length} cron triggers`} left (${crons.map((cron) => `'${cron}'`).join(', ')})`,
      ];
}

export async function computeInventory(
  context: InventoryContext,
  worker: SlotWorker,
  script: WorkerScriptSummary,
  handover: ComputeHandover | undefined,
): Promise<Inventory> {
  const reads: Reads = {
    incoming: handover?.incoming,
    parkedVersion: handover?.parkedVersion,
    deployedCode: handover?.deployedCode,
    subdomain: handover?.subdomain ?? (await readWorkerSubdomain(context.api, worker.name)),
    deployments: handover?.deployments ?? (await listDeployments(context.api, worker.name)),
  };
  const input: ComputeInventoryInput = { worker, script, reads, handover };
  const serving = await servingLeft(context, input);
  const left = [
    ...serving.left,
    ...(input.reads.subdomain.previewsEnabled ? ['preview URLs are on'] : []),
    ...(await versionsLeft(context, input, serving.serving)),
    ...(await previewsLeft(context, input)),
    ...cronsLeft(await readSchedules(context.api, worker.name)),
  ];
  const classes = await classesLeft(context, input);
  left.push(...classes.left);
  if (left.length > 0) return { state: 'left', summary: left.join('; '), items: someItems(left) };
  // One item of the slot's "left:" line, which joins the resources' summaries with commas: the
  // parked Worker serving alone and preview URLs off go without saying once nothing is left.
  const kept = classes.kept.length > 0 ? ` (kept ${classes.kept.sort().join(' and ')})` : '';
  return { state: 'empty', summary: `no other version reachable, 0 Worker Previews${kept}` };
}

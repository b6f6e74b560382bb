// Applies a Worker upload (or settings patch) to the script's Durable Object classes: legacy migrations
// with old_tag/new_tag, or declarative `exports` with tombstones
// (docs/cloudflare.md#deleting-a-durable-object-class). Either all of it applies or an ApiFailure with
// the API's code is thrown and nothing changes.
// A refused exports reconciliation is code 100402 with per-class `meta.details` (wrangler's
// deploy-helpers error-codes.ts and exports-reconciliation.ts).
import { ApiFailure, badRequest } from '../envelope.ts';
import { bindingStillThere, Draft, type Reconciliation } from './draft.ts';
import { applyContainers, applyExports } from './exports.ts';
import { EXPORTS_RECONCILIATION_ERROR, type Step, type UploadMetadata } from './metadata.ts';
import {
  classesInCode,
  doBindingsOf,
  newId,
  type WorkerModule,
  type WorkerScript,
  type WorkersStore,
  type WorkerVersion,
} from './store.ts';
import { newDeployment, newVersion } from './versions.ts';

function applyStep(draft: Draft, step: Step): void {
  if (step.transferred_classes?.length) {
    throw badRequest(10021, 'transferred_classes migrations are not modelled by the preview-gc twin');
  }
  for (const name of step.new_classes ?? []) draft.create(name, false);
  for (const name of step.new_sqlite_classes ?? []) draft.create(name, true);
  for (const { from, to } of step.renamed_classes ?? []) draft.rename(from, to);
  for (const name of step.deleted_classes ?? []) {
    const target = draft.assertDeletable(name);
    if (draft.externalBindings(name).length > 0) throw bindingStillThere(name);
    draft.tombstone(target);
  }
}

function applyMigrations(
  draft: Draft,
  previous: WorkerScript | undefined,
  migrations: UploadMetadata['migrations'],
) {
  if (!migrations) return previous?.migrationTag;
  if (previous?.exportsMode) {
    throw badRequest(10021, 'This script uses declarative exports; send exports instead of migrations');
  }
  const current = previous?.migrationTag;
  if ((migrations.old_tag ?? undefined) !== current) {
    throw badRequest(10079, `Migration tag precondition failed; current tag is ${current ?? '(none)'}`);
  }
  for (const step of migrations.steps ?? [migrations]) applyStep(draft, step);
  return migrations.new_tag ?? current;
}

function exportsMissingFromCode(draft: Draft, inCode: Set<string>): void {
  for (const c of draft.classes.values()) {
    if (c.state === 'live' && !inCode.has(c.name)) {
      throw badRequest(
        10064,
        `New version of script does not export class '${c.name}' which is depended on by existing Durable Objects. Did you forget to export it or want to use a delete-class migration?`,
      );
    }
  }
}

export interface UploadOutcome {
  script: WorkerScript;
  reconciliation: Reconciliation | undefined;
}

export interface UploadOptions {
  /** Who uploaded (`wrangler` or `api`), shown as the script's `last_deployed_from`. */
  client: string;
  /** A version uploaded earlier, deployed now: no new version is made. */
  deploying?: WorkerVersion;
  /** The deployment's message (`wrangler versions deploy --message`). */
  message?: string | undefined;
  /** Check everything, change nothing (a version upload is checked when it is uploaded). */
  dryRun?: boolean;
}

/** Applies metadata + modules to `name`; modules undefined = a settings patch that keeps the code. */
export function applyUpload(
  store: WorkersStore,
  name: string,
  metadata: UploadMetadata,
  modules: WorkerModule[] | undefined,
  options: UploadOptions,
): UploadOutcome {
  if (metadata.migrations && metadata.exports) {
    throw badRequest(10021, 'migrations and exports cannot be used together; choose one');
  }
  const previous = store.scripts.get(name);
  const isSettingsPatch = modules === undefined;
  const code = modules ?? previous?.modules ?? [];
  const rawBindings = bindingsAfter(metadata, previous, isSettingsPatch);
  const draft = new Draft(store, name, previous, doBindingsOf(rawBindings));
  const exportNames = Object.keys(metadata.exports ?? {});
  const inCode = classesInCode(
    code,
    new Set([...draft.classes.keys(), ...exportNames, ...migrationNames(metadata)]),
  );
  const migrationTag = applyMigrations(draft, previous, metadata.migrations);
  if (metadata.exports) applyExports(draft, metadata.exports, inCode);
  applyContainers(draft, name, metadata, isSettingsPatch);
  if (draft.errors.length > 0) {
    throw new ApiFailure(400, EXPORTS_RECONCILIATION_ERROR, 'Durable Object exports reconciliation failed', {
      details: draft.errors,
    });
  }
  exportsMissingFromCode(draft, inCode);
  const now = new Date().toISOString();
  const script: WorkerScript = {
    name,
    tag: previous?.tag ?? newId(),
    etag: isSettingsPatch && previous ? previous.etag : newId(),
    migrationTag,
    exportsMode: previous?.exportsMode === true || metadata.exports !== undefined,
    tags: metadata.tags ?? previous?.tags ?? [],
    classes: draft.classes,
    bindings: rawBindings,
    modules: code,
    mainModule: metadata.main_module ?? metadata.body_part ?? previous?.mainModule ?? '',
    compatibilityDate: metadata.compatibility_date ?? previous?.compatibilityDate ?? '2026-01-01',
    compatibilityFlags: metadata.compatibility_flags ?? previous?.compatibilityFlags ?? [],
    createdOn: previous?.createdOn ?? now,
    modifiedOn: now,
    lastDeployedFrom: options.client,
    versions: previous?.versions ?? [],
    deployments: previous?.deployments ?? [],
    subdomain: previous?.subdomain ?? { enabled: false, previews_enabled: false },
    previews: previous?.previews ?? [],
    schedules: previous?.schedules ?? [],
  };
  if (!options.dryRun) {
    recordDeployment(script, metadata, options);
    store.scripts.set(name, script);
  }
  return { script, reconciliation: metadata.exports ? draft.reconciliation : undefined };
}

/**
 * Every upload is a new version and is deployed at once; a deployment of an earlier version makes no
 * new version.
 */
function recordDeployment(script: WorkerScript, metadata: UploadMetadata, options: UploadOptions): void {
  const { deploying, message, client } = options;
  const version = deploying ?? newVersion(script, metadata, client);
  if (!deploying) script.versions = [...script.versions, version];
  const annotations = deploying
    ? message === undefined
      ? {}
      : { 'workers/message': message }
    : { 'workers/triggered_by': 'upload' };
  script.deployments = [...script.deployments, newDeployment(version.id, client, annotations)];
}

/**
 * An upload replaces the bindings (keeping the types listed in keep_bindings); a settings patch
 * without bindings keeps them.
 */
function bindingsAfter(
  metadata: UploadMetadata,
  previous: WorkerScript | undefined,
  isSettingsPatch: boolean,
) {
  const before = previous?.bindings ?? [];
  if (isSettingsPatch) return metadata.bindings ?? before;
  const keep = new Set(metadata.keep_bindings ?? []);
  return [...before.filter((b) => keep.has(String(b.type))), ...(metadata.bindings ?? [])];
}

function migrationNames(metadata: UploadMetadata): string[] {
  const m = metadata.migrations;
  if (!m) return [];
  return (m.steps ?? [m]).flatMap((s) => [
    ...(s.new_classes ?? []),
    ...(s.new_sqlite_classes ?? []),
    ...(s.renamed_classes ?? []).map((r) => r.to),
  ]);
}

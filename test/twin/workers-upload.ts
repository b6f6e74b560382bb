// Applies a Worker upload (or settings patch) to the script's Durable Object classes: legacy migrations
// with old_tag/new_tag, or declarative `exports` with tombstones (§6.3). Either all of it applies or an
// ApiFailure with the API's code is thrown and nothing changes.
//
// Sources: the SDK's ScriptUpdateParams.Metadata and its `exports` entry types (a `deleted` tombstone
// "must be absent from the uploaded code and no other Worker in the account may bind to the
// namespace, otherwise the deploy is rejected"; `container` names a container "declared in the
// upload's metadata.containers"); wrangler's deploy (a reconciliation failure is code 100402 with
// per-class `meta.details`, deploy-helpers error-codes.ts and exports-reconciliation.ts).
import type Cloudflare from 'cloudflare';
import { z } from 'zod';
import { ApiFailure, badRequest, type ReconciliationErrorDetail } from './envelope.ts';
import {
  classesInCode,
  type DeclaredContainer,
  type DoClass,
  doBindingsOf,
  newClass,
  newId,
  type WorkerModule,
  type WorkerScript,
  type WorkersStore,
} from './workers-store.ts';

/** The error code of a failed declarative exports reconciliation (wrangler: EXPORTS_RECONCILIATION_ERROR_CODE). */
export const EXPORTS_RECONCILIATION_ERROR = 100402;

const renameSchema = z.object({ from: z.string(), to: z.string() });
const stepSchema = z.looseObject({
  new_classes: z.array(z.string()).optional(),
  new_sqlite_classes: z.array(z.string()).optional(),
  deleted_classes: z.array(z.string()).optional(),
  renamed_classes: z.array(renameSchema).optional(),
  transferred_classes: z.array(z.unknown()).optional(),
});
const migrationsSchema = stepSchema.extend({
  old_tag: z.string().optional(),
  new_tag: z.string().optional(),
  steps: z.array(stepSchema).optional(),
});
const exportEntrySchema = z.looseObject({
  type: z.string(),
  state: z.string().optional(),
  /** The SDK's WorkersDurableObjectExport: `sqlite` or `legacy-kv`, nothing else. */
  storage: z.enum(['sqlite', 'legacy-kv']).optional(),
  renamed_to: z.string().optional(),
  container: z.string().optional(),
});
export const uploadMetadataSchema = z.looseObject({
  main_module: z.string().optional(),
  body_part: z.string().optional(),
  compatibility_date: z.string().optional(),
  compatibility_flags: z.array(z.string()).optional(),
  bindings: z.array(z.looseObject({ type: z.string() })).optional(),
  keep_bindings: z.array(z.string()).optional(),
  migrations: migrationsSchema.optional(),
  exports: z.record(z.string(), exportEntrySchema).optional(),
  containers: z
    .array(z.looseObject({ name: z.string().optional(), class_name: z.string().optional() }))
    .optional(),
  tags: z.array(z.string()).optional(),
});
export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;
type Step = z.infer<typeof stepSchema>;
type ExportEntry = z.infer<typeof exportEntrySchema>;

export type Reconciliation =
  Cloudflare.Workers.Scripts.ScriptAndVersionSettingEditResponse.ExportsReconciliation;

function emptyReconciliation(): Reconciliation {
  return {
    created: [],
    deleted: [],
    updated: [],
    renamed: [],
    transferred: [],
    transfer_pending: [],
    removable_entries: [],
    info: [],
    warnings: [],
  };
}

/** The draft of one upload: the script's classes as they will be if every check passes. */
class Draft {
  readonly classes: Map<string, DoClass>;
  readonly reconciliation = emptyReconciliation();
  /** Blocking exports reconciliation errors, all reported at once in `meta.details`. */
  readonly errors: ReconciliationErrorDetail[] = [];
  private readonly store: WorkersStore;
  private readonly scriptName: string;
  private readonly bindings: ReturnType<typeof doBindingsOf>;

  constructor(
    store: WorkersStore,
    scriptName: string,
    previous: WorkerScript | undefined,
    bindings: Draft['bindings'],
  ) {
    this.store = store;
    this.scriptName = scriptName;
    this.bindings = bindings;
    this.classes = new Map(
      [...(previous?.classes ?? new Map<string, DoClass>())].map(([k, v]) => [k, { ...v }]),
    );
  }

  live(name: string): DoClass | undefined {
    const c = this.classes.get(name);
    return c?.state === 'live' ? c : undefined;
  }

  /** A new namespace; the name of a tombstoned class may be used again (it gets a new namespace). */
  create(name: string, sqlite: boolean): void {
    if (this.live(name)) {
      throw badRequest(
        10074,
        `Cannot apply new-class migration to class '${name}' that is already depended on by existing Durable Objects`,
      );
    }
    this.classes.set(name, newClass(name, sqlite));
    this.reconciliation.created.push(name);
  }

  /** Refusals that hold for both migrations and exports. */
  assertDeletable(name: string): DoClass {
    const target = this.live(name);
    if (!target) {
      throw badRequest(
        10065,
        `Cannot apply --delete-class migration to class '${name}' that is not depended on by existing Durable Objects`,
      );
    }
    const ownBinding = this.bindings.find(
      (b) => b.class_name === name && (b.script_name === undefined || b.script_name === this.scriptName),
    );
    if (ownBinding) throw bindingStillThere(name);
    const app = this.store.containerFor(target.namespaceId);
    if (app) {
      throw badRequest(
        10061,
        `Cannot apply --delete-class migration to class '${name}' while container application '${app.name}' uses it; delete the application first`,
      );
    }
    return target;
  }

  tombstone(target: DoClass): void {
    target.state = 'deleted';
    target.objectIds = [];
    target.container = undefined;
    this.reconciliation.deleted.push(target.name);
  }

  rename(from: string, to: string): void {
    const source = this.live(from);
    if (!source) throw badRequest(10065, `Cannot apply rename migration from class '${from}': no such class`);
    if (this.live(to))
      throw badRequest(10074, `Cannot apply rename migration to class '${to}': it already exists`);
    this.classes.delete(from);
    this.classes.set(to, { ...source, name: to });
    this.reconciliation.renamed.push({ from, to });
  }

  externalBindings(name: string): { script: string; binding: string }[] {
    return this.store.externalBindings(this.scriptName, name);
  }
}

function bindingStillThere(name: string): ApiFailure {
  return badRequest(
    10061,
    `Cannot apply --delete-class migration to class '${name}' without also removing the binding that references it`,
  );
}

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

function applyExports(draft: Draft, exports: Record<string, ExportEntry>, inCode: Set<string>): void {
  for (const [name, entry] of Object.entries(exports)) {
    if (entry.type !== 'durable-object') continue;
    const state = entry.state ?? 'created';
    if (state === 'created') {
      createExport(draft, name, entry);
    } else if (state === 'deleted') {
      deleteExport(draft, name, inCode);
    } else if (state === 'renamed' && entry.renamed_to) {
      draft.rename(name, entry.renamed_to);
    } else {
      throw badRequest(10021, `exports state '${state}' of '${name}' is not modelled by the preview-gc twin`);
    }
  }
  // The SDK: `provisioned_class_missing_from_config` "is a hard error".
  for (const c of draft.classes.values()) {
    if (c.state === 'live' && exports[c.name] === undefined) {
      draft.errors.push({
        class: c.name,
        scenario: 'provisioned_class_missing_from_config',
        message: `'${c.name}' has a namespace but no entry in exports`,
        namespace_id: c.namespaceId,
        suggestion: `keep '${c.name}' in exports, or add a "deleted" tombstone for it`,
      });
    }
  }
}

function createExport(draft: Draft, name: string, entry: ExportEntry): void {
  const live = draft.live(name);
  const storage = entry.storage ?? 'sqlite';
  if (!live) {
    draft.create(name, storage === 'sqlite');
    return;
  }
  if (live.sqlite !== (storage === 'sqlite')) {
    draft.errors.push({
      class: name,
      scenario: 'storage_type_mismatch',
      message: `'${name}' is ${live.sqlite ? 'sqlite' : 'legacy-kv'} backed, the entry says ${storage}`,
      namespace_id: live.namespaceId,
    });
  }
}

function deleteExport(draft: Draft, name: string, inCode: Set<string>): void {
  const target = draft.live(name);
  if (!target) {
    draft.reconciliation.info.push({
      scenario: 'stale_tombstone',
      class: name,
      message: `'${name}' is already deleted`,
    });
    draft.reconciliation.removable_entries.push(name);
    return;
  }
  if (inCode.has(name)) {
    draft.errors.push({
      class: name,
      scenario: 'tombstone_delete_class_still_in_code',
      message: `'${name}' is still exported by the uploaded code`,
      namespace_id: target.namespaceId,
      suggestion: `remove class '${name}' from the code, or drop its "deleted" entry`,
    });
    return;
  }
  draft.assertDeletable(name);
  const external = draft.externalBindings(name);
  if (external.length > 0) {
    draft.errors.push({
      class: name,
      scenario: 'tombstone_delete_blocked_by_external_bindings',
      message: `'${name}' is still bound by other Workers`,
      namespace_id: target.namespaceId,
      referencing_scripts: [...new Set(external.map((e) => e.script))],
      suggestion: 'redeploy the referencing Workers without their binding to this class first',
    });
    return;
  }
  draft.tombstone(target);
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

/**
 * Attaches each declared container to its class: by `class_name`, or by an `exports` entry naming
 * the container (wrangler's workers-utils containers.ts resolves both directions). Every other
 * class loses its container. A settings patch without `containers` keeps them.
 */
function applyContainers(
  draft: Draft,
  scriptName: string,
  metadata: UploadMetadata,
  isSettingsPatch: boolean,
): void {
  if (isSettingsPatch && metadata.containers === undefined) return;
  const declared: DeclaredContainer[] = metadata.containers ?? [];
  const exports = metadata.exports ?? {};
  for (const [name, entry] of Object.entries(exports)) {
    if (entry.container !== undefined && !declared.some((c) => c.name === entry.container)) {
      draft.errors.push({
        class: name,
        scenario: 'container_undeclared_reference',
        message: `'${name}' names container '${entry.container}', which metadata.containers does not declare`,
      });
    }
  }
  const attached = new Map<string, string>();
  for (const container of declared) {
    const className =
      container.class_name ??
      Object.entries(exports).find(([, entry]) => entry.container === container.name)?.[0];
    const target = className === undefined ? undefined : draft.live(className);
    if (!target) {
      draft.errors.push({
        class: className ?? container.name ?? '',
        scenario: 'container_class_not_durable_object',
        message: `container '${container.name ?? className}' is not linked to a live Durable Object class`,
      });
      continue;
    }
    attached.set(target.name, container.name ?? `${scriptName}-${target.name}`.toLowerCase());
  }
  for (const c of draft.classes.values()) c.container = attached.get(c.name);
}

export interface UploadOutcome {
  script: WorkerScript;
  reconciliation: Reconciliation | undefined;
}

export interface UploadOptions {
  /** Who uploaded (`wrangler` or `api`), shown as the script's `last_deployed_from`. */
  client: string;
  /** The version this upload becomes (a version uploaded earlier and deployed now); default a new one. */
  versionId?: string;
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
    versionId: options.versionId ?? crypto.randomUUID(),
    deploymentId: crypto.randomUUID(),
    subdomain: previous?.subdomain ?? { enabled: false, previews_enabled: false },
    previews: previous?.previews ?? [],
  };
  if (!options.dryRun) store.scripts.set(name, script);
  return { script, reconciliation: metadata.exports ? draft.reconciliation : undefined };
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

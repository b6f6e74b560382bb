// Applies a Worker upload (or settings patch) to the script's Durable Object classes: legacy migrations
// with old_tag/new_tag, or declarative `exports` with tombstones
// (docs/cloudflare.md#deleting-a-durable-object-class). Either all of it applies or an ApiFailure with
// the API's code is thrown and nothing changes.
import { z } from 'zod';
import { type ApiFailure, badRequest } from './envelope.ts';
import {
  classesInCode,
  type DoClass,
  doBindingsOf,
  newClass,
  type WorkerModule,
  type WorkerScript,
  type WorkersStore,
} from './workers-store.ts';

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
  storage: z.string().optional(),
  renamed_to: z.string().optional(),
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
  tags: z.array(z.string()).optional(),
});
export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;
type Step = z.infer<typeof stepSchema>;

export interface Reconciliation {
  created: string[];
  deleted: string[];
  updated: string[];
  renamed: { from: string; to: string }[];
  transferred: string[];
  transfer_pending: string[];
  removable_entries: string[];
  info: { scenario: string; class: string; message: string }[];
  warnings: { scenario: string; class: string; message: string }[];
}

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
  /** Tombstones asked for but blocked by other Workers' bindings: the class may leave the code. */
  readonly blockedTombstones = new Set<string>();
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

function applyExports(
  draft: Draft,
  exports: NonNullable<UploadMetadata['exports']>,
  inCode: Set<string>,
): void {
  for (const [name, entry] of Object.entries(exports)) {
    if (entry.type !== 'durable-object') continue;
    const state = entry.state ?? 'created';
    if (state === 'created') {
      if (!draft.live(name)) draft.create(name, entry.storage === 'sqlite');
    } else if (state === 'deleted') {
      deleteExport(draft, name, inCode);
    } else if (state === 'renamed' && entry.renamed_to) {
      draft.rename(name, entry.renamed_to);
    } else {
      throw badRequest(10021, `exports state '${state}' of '${name}' is not modelled by the preview-gc twin`);
    }
  }
}

function deleteExport(draft: Draft, name: string, inCode: Set<string>): void {
  const { reconciliation } = draft;
  if (!draft.live(name)) {
    reconciliation.info.push({
      scenario: 'stale_tombstone',
      class: name,
      message: `'${name}' is already deleted`,
    });
    reconciliation.removable_entries.push(name);
    return;
  }
  if (inCode.has(name)) {
    reconciliation.warnings.push({
      scenario: 'tombstone_delete_class_still_in_code',
      class: name,
      message: `'${name}' is still exported by the code; the tombstone was not applied`,
    });
    return;
  }
  const target = draft.assertDeletable(name);
  const external = draft.externalBindings(name);
  if (external.length > 0) {
    reconciliation.warnings.push({
      scenario: 'tombstone_delete_blocked_by_external_bindings',
      class: name,
      message: `'${name}' is still bound by ${external.map((e) => e.script).join(', ')}; the tombstone was not applied`,
    });
    draft.blockedTombstones.add(name);
    return;
  }
  draft.tombstone(target);
}

function exportsMissingFromCode(draft: Draft, inCode: Set<string>): void {
  for (const c of draft.classes.values()) {
    if (c.state === 'live' && !inCode.has(c.name) && !draft.blockedTombstones.has(c.name)) {
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

/** Applies metadata + modules to `name`; modules undefined = a settings patch that keeps the code. */
export function applyUpload(
  store: WorkersStore,
  name: string,
  metadata: UploadMetadata,
  modules: WorkerModule[] | undefined,
): UploadOutcome {
  if (metadata.migrations && metadata.exports) {
    throw badRequest(10021, 'migrations and exports cannot be used together; choose one');
  }
  const previous = store.scripts.get(name);
  const code = modules ?? previous?.modules ?? [];
  const rawBindings = bindingsAfter(metadata, previous, modules === undefined);
  const draft = new Draft(store, name, previous, doBindingsOf(rawBindings));
  const exportNames = Object.keys(metadata.exports ?? {});
  const inCode = classesInCode(
    code,
    new Set([...draft.classes.keys(), ...exportNames, ...migrationNames(metadata)]),
  );
  const migrationTag = applyMigrations(draft, previous, metadata.migrations);
  if (metadata.exports) applyExports(draft, metadata.exports, inCode);
  exportsMissingFromCode(draft, inCode);
  const now = new Date().toISOString();
  const script: WorkerScript = {
    name,
    etag: crypto.randomUUID().replaceAll('-', ''),
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
  };
  store.scripts.set(name, script);
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

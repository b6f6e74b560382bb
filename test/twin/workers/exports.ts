// Declarative `exports` and `metadata.containers` of an upload, applied to its draft. A refusal
// is recorded per class (the draft's `errors`, answered as 100402 with `meta.details`), not thrown,
// so one answer names every refused class. Sources: the SDK's exports entry types (a `deleted`
// tombstone "must be absent from the uploaded code and no other Worker in the account may bind to
// the namespace"; `container` names a container "declared in the upload's metadata.containers";
// the reconciliation scenarios) and wrangler's workers-utils containers.ts (both directions of the
// container link).
import { badRequest } from '../envelope.ts';
import type { Draft } from './draft.ts';
import type { ExportEntry, UploadMetadata } from './metadata.ts';
import type { DeclaredContainer } from './store.ts';

export function applyExports(draft: Draft, exports: Record<string, ExportEntry>, inCode: Set<string>): void {
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

/**
 * Attaches each declared container to its class: by `class_name`, or by an `exports` entry naming
 * the container (wrangler's workers-utils containers.ts resolves both directions). Every other
 * class loses its container. A settings patch without `containers` keeps them.
 */
export function applyContainers(
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

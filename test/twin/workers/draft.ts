// The draft of one upload: the script's Durable Object classes as they will be if every check of
// the upload passes, the reconciliation report it builds, and the refusals both lifecycles share.
import type Cloudflare from 'cloudflare';
import { type ApiFailure, badRequest, type ReconciliationErrorDetail } from '../envelope.ts';
import { type DoClass, type doBindingsOf, newClass, type WorkerScript, type WorkersStore } from './store.ts';

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
export class Draft {
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

export function bindingStillThere(name: string): ApiFailure {
  return badRequest(
    10061,
    `Cannot apply --delete-class migration to class '${name}' without also removing the binding that references it`,
  );
}

// When Cloudflare refuses the parked upload because a class to tombstone is still bound by another
// Worker, the erase says which class, which binding of which Worker, and what to do. Declarative
// exports name the classes and the referencing Workers in the error's `meta.details`
// (`tombstone_delete_blocked_by_external_bindings`); a legacy migration answers code 10061 alone.
// Either way the bindings are looked up (the Worker's `references.durable_objects`, then each
// referencing Worker's settings), best effort: a failed lookup only makes the message vaguer.

import type { CloudflareCallError } from '../../cloudflare/call-error.ts';
import type { EraseContext } from '../step.ts';
import { type DurableObjectBinding, durableObjectBindings, durableObjectReferences } from './api.ts';
import type { SlotWorker } from './config.ts';

/** Declarative exports: a failed reconciliation (wrangler: EXPORTS_RECONCILIATION_ERROR_CODE). */
const RECONCILIATION_FAILED = 100402;
/** Legacy migrations: a deleted class is still referenced by a binding. */
const BINDING_STILL_THERE = 10061;
const BLOCKED_BY_BINDINGS = 'tombstone_delete_blocked_by_external_bindings';
/** Workers looked up for their bindings, at most: one request each. */
const MAX_REFERENCING_WORKERS = 5;
const WORKER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

interface TombstonedClass {
  name: string;
  namespaceId: string | undefined;
}

/** "binding ROOM of Worker 'router'" for each binding other Workers hold to one of `classes`. */
async function bindingsTo(
  context: EraseContext,
  worker: SlotWorker,
  classes: readonly TombstonedClass[],
  hinted: readonly string[],
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const namespaces = new Set(classes.flatMap((entry) => (entry.namespaceId ? [entry.namespaceId] : [])));
  let referencing = [...hinted];
  try {
    const references = await durableObjectReferences(context.api, worker.name);
    referencing = [
      ...referencing,
      ...references.filter((ref) => namespaces.has(ref.namespaceId)).map((ref) => ref.worker),
    ];
  } catch {
    // Best effort: the hinted Workers (from the error) are all there is to look at.
  }
  const names = new Set(classes.map((entry) => entry.name));
  for (const other of [...new Set(referencing)]
    .filter((name) => WORKER_NAME.test(name))
    .slice(0, MAX_REFERENCING_WORKERS)) {
    let bindings: DurableObjectBinding[];
    try {
      bindings = await durableObjectBindings(context.api, other);
    } catch {
      continue;
    }
    for (const binding of bindings) {
      if (binding.script !== worker.name || !names.has(binding.className)) continue;
      const list = found.get(binding.className) ?? [];
      list.push(`binding ${quote(binding.name)} of Worker '${other}'`);
      found.set(binding.className, list);
    }
  }
  return found;
}

function quote(name: string): string {
  return WORKER_NAME.test(name) ? name : JSON.stringify(name.slice(0, 64));
}

/**
 * The refusal explained for a person, or undefined when `error` is not a refusal to tombstone a
 * class that is still bound.
 */
export async function describeBlockedClasses(
  context: EraseContext,
  worker: SlotWorker,
  tombstone: readonly TombstonedClass[],
  error: CloudflareCallError,
): Promise<string | undefined> {
  let blocked: TombstonedClass[];
  let hinted: string[] = [];
  if (error.codes.includes(RECONCILIATION_FAILED)) {
    const refused = error.refusals.filter((refusal) => refusal.scenario === BLOCKED_BY_BINDINGS);
    blocked = tombstone.filter((entry) => refused.some((refusal) => refusal.class === entry.name));
    hinted = refused.flatMap((refusal) => refusal.referencingScripts);
  } else if (error.codes.includes(BINDING_STILL_THERE)) {
    blocked = [...tombstone];
  } else {
    return undefined;
  }
  if (blocked.length === 0) return undefined;
  const bindings = await bindingsTo(context, worker, blocked, hinted);
  const perClass = blocked
    .filter((entry) => error.codes.includes(RECONCILIATION_FAILED) || bindings.has(entry.name))
    .map((entry) => {
      const held = bindings.get(entry.name);
      return `class ${entry.name} is still bound by ${held ? held.join(', ') : 'another Worker (the binding could not be looked up)'}`;
    });
  const what =
    perClass.length > 0
      ? perClass.join('; ')
      : `a class (${blocked.map((entry) => entry.name).join(', ')}) is still bound by another Worker (${error.detail})`;
  return `Cloudflare refused to tombstone: ${what}. Remove those bindings (or deploy those Workers without them), then run the preview-gc workflow again; until then the Worker is not parked and keeps its last code`;
}

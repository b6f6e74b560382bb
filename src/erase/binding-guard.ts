// The binding guard: a store (D1 database, KV namespace, R2 bucket, queue, Vectorize index) that a
// Worker other than the slot's own binds is never erased. A template can reach a production store
// whose name carries no protected word (`orders-{n}` → `orders-1`), and only the account's Workers
// know which stores production uses. The Workers are listed once a run (the listing the compute step
// shares) and each other Worker's bindings read once a run, only when a slot is erased, so a quiet
// sweep makes none of these reads.
import type { CloudflareApi } from '../cloudflare/client.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import type { WorkerBinding } from '../kinds/kind.ts';
import { listWorkerScripts, workerBindings } from '../kinds/workers/api.ts';

/** A Worker outside the slot that binds the store, and the binding's name in it. */
export interface OutsideBinding {
  worker: string;
  binding: string;
}

export interface BindingGuard {
  /** The first Worker other than `own` with a binding `names` accepts, or undefined. */
  boundOutside(
    own: ReadonlySet<string>,
    names: (binding: WorkerBinding) => boolean,
  ): Promise<OutsideBinding | undefined>;
}

/** One guard a run: every Worker's bindings are read at most once, in the listing's order. */
export function createBindingGuard(api: CloudflareApi, resolver: NameResolver): BindingGuard {
  const bindings = new Map<string, Promise<WorkerBinding[]>>();
  const bindingsOf = (worker: string) => {
    let read = bindings.get(worker);
    if (read === undefined) {
      // Shared by every slot of the run, like a listing; a failed read is asked again next time.
      read = api.pacer.shared(() => workerBindings(api, worker));
      bindings.set(worker, read);
      read.catch(() => bindings.delete(worker));
    }
    return read;
  };
  return {
    async boundOutside(own, names) {
      const scripts = await resolver.listing('workers', listWorkerScripts);
      for (const script of scripts) {
        if (own.has(script.name)) continue;
        const found = (await bindingsOf(script.name)).find(names);
        if (found !== undefined) return { worker: script.name, binding: String(found.name ?? found.type) };
      }
      return undefined;
    },
  };
}

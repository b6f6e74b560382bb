// The Cloudflare side of an eraser: the API client, the name resolver, the kinds' operations and the
// erase steps.
// cloudflare-eraser.ts loads this module on the first erase, not at start-up: a sweep with nothing to
// reclaim (most hourly runs) never loads the Cloudflare SDK, and the bundle keeps it in a chunk of its own.
import '../heap-limits.ts';
import { CloudflareApi } from '../cloudflare/client.ts';
import { checkCredentials } from '../cloudflare/credentials.ts';
import type { Pacer } from '../cloudflare/pacer.ts';
import { NameResolver } from '../cloudflare/resolver.ts';
import { createBindingGuard } from '../erase/binding-guard.ts';
import { eraseSlot } from '../erase/erase-slot.ts';
import type { InventoryContext } from '../kinds/inventory.ts';
import type { KindOperations, Origin } from '../kinds/kind.ts';
import { credentialProbes, operationsOf } from '../kinds/operations.ts';
import {
  describeResource,
  KIND_LIST,
  type KindResources,
  type KindTemplates,
  nameOf,
  type SomeKind,
} from '../kinds/registry.ts';
import type { SlotWorker } from '../kinds/workers/config.ts';
import { parkKeepingData } from '../kinds/workers/spend-park.ts';
import type { AcquiredResource, AcquiredResources, LeftReport } from '../report/model.ts';
import { visible } from '../text/log-text.ts';

/** A slot's resources with the ids its deploy binds, or the ones the account does not have. */
export type LocatedResources = { resources: AcquiredResources } | { missing: string[] };

/**
 * Every resource of a slot looked up in the run's listings (one per kind, shared with the erase and
 * the credential check): its name and id, or, for each one the account does not have, what it is
 * and the template it comes from.
 */
export async function locateIn(context: InventoryContext, slot: KindResources): Promise<LocatedResources> {
  const { resolver } = context;
  const missing: string[] = [];
  const byKind = await Promise.all(
    KIND_LIST.map(async (kind) => {
      const operations = operationsOf(kind);
      const listed: readonly (object & Origin)[] = slot[kind.key];
      const entries: AcquiredResource[] = [];
      for (const resource of listed) {
        const name = nameOf(kind, resource);
        const found = await operations.find(resolver, resource);
        if (found === undefined)
          missing.push(
            `${describeResource(kind, resource)} '${name}' (from '${resource.template}' at ${resource.path})`,
          );
        const id = found === undefined ? undefined : operations.idOf?.(resource, found);
        const left =
          found !== undefined && kind.readAtHandOver
            ? await leftAtHandOver(context, operations, resource, found)
            : undefined;
        entries.push({ name, ...(id === undefined ? {} : { id }), ...(left === undefined ? {} : { left }) });
      }
      return [kind.key, entries] as const;
    }),
  );
  return missing.length > 0 ? { missing } : { resources: Object.fromEntries(byKind) as AcquiredResources };
}

/**
 * What a resource whose leftovers go by themselves still holds as the slot is handed over (its
 * inventory, read now), or undefined when nothing is left. A read that fails says so: it may still
 * hold what the last tenant wrote.
 */
async function leftAtHandOver(
  context: InventoryContext,
  operations: KindOperations<object>,
  resource: object & Origin,
  found: unknown,
): Promise<LeftReport | undefined> {
  try {
    // Nothing is handed over: the slot was not erased by this run, or its erase read it already.
    const inventory = await operations.inventory?.(context, resource, found, undefined);
    if (inventory === undefined || inventory.state === 'empty') return undefined;
    return {
      state: inventory.state,
      summary: visible(inventory.summary),
      ...(inventory.goneBy === undefined ? {} : { goneBy: inventory.goneBy }),
    };
  } catch (error) {
    const why = visible(error instanceof Error ? error.message : String(error));
    return { state: 'expiring', summary: `not read (${why}): it may still hold what the last tenant wrote` };
  }
}

export interface CloudflareOptions {
  apiToken: string;
  accountId: string;
  baseUrl: string;
  budget: number;
  ratePerSecond: number;
  deadlineAt: number;
  signal: AbortSignal;
  /** For tests that count or shape requests; the global fetch otherwise. */
  fetch?: typeof fetch;
}

export function connect(options: CloudflareOptions, pacer: Pacer) {
  const api = new CloudflareApi({
    apiToken: options.apiToken,
    accountId: options.accountId,
    baseUrl: options.baseUrl,
    pacer,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const resolver = new NameResolver(api);
  return {
    api,
    resolver,
    eraseSlot,
    /** The run's one binding guard: every other Worker's bindings read at most once a run. */
    guard: createBindingGuard(api, resolver),
    /** The run's credential check: the token, and one listing per kind `templates` names. */
    checkCredentials: (templates: KindTemplates) =>
      checkCredentials(api, credentialProbes(resolver, templates)),
    /** The slot's resources with their ids, from the run's listings. */
    locate: (slot: KindResources) => locateIn({ api, resolver }, slot),
    /** Whether `resource` exists in the account (what its kind's listing says of it), from the run's listings. */
    exists: async (kind: SomeKind, resource: object & Origin) =>
      (await operationsOf(kind).find(resolver, resource)) !== undefined,
    /** Parks a Worker's compute keeping its data (a lease parked for spend), read back. */
    parkForSpend: (worker: SlotWorker) => parkKeepingData({ api, resolver }, worker),
  };
}

export type Connection = ReturnType<typeof connect>;

// The Cloudflare side of an eraser: the API client, the name resolver, the kinds' operations and the
// erase steps.
// cloudflare-eraser.ts loads this module on the first erase, not at start-up: a sweep with nothing to
// reclaim (most hourly runs) never loads the Cloudflare SDK, and the bundle keeps it in a chunk of its own.
import '../heap-limits.ts';
import { CloudflareApi } from '../cloudflare/client.ts';
import { checkCredentials } from '../cloudflare/credentials.ts';
import type { Pacer } from '../cloudflare/pacer.ts';
import { NameResolver } from '../cloudflare/resolver.ts';
import { eraseSlot } from '../erase/erase-slot.ts';
import type { Origin } from '../kinds/kind.ts';
import { credentialProbes, operationsOf } from '../kinds/operations.ts';
import {
  describeResource,
  KIND_LIST,
  type KindResources,
  type KindTemplates,
  nameOf,
  type SomeKind,
} from '../kinds/registry.ts';
import type { AcquiredResource, AcquiredResources } from '../report/model.ts';

/** A slot's resources with the ids its deploy binds, or the ones the account does not have. */
export type LocatedResources = { resources: AcquiredResources } | { missing: string[] };

/**
 * Every resource of a slot looked up in the run's listings (one per kind, shared with the erase and
 * the credential check): its name and id, or, for each one the account does not have, what it is
 * and the template it comes from.
 */
export async function locateIn(resolver: NameResolver, slot: KindResources): Promise<LocatedResources> {
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
        entries.push(id === undefined ? { name } : { name, id });
      }
      return [kind.key, entries] as const;
    }),
  );
  return missing.length > 0 ? { missing } : { resources: Object.fromEntries(byKind) as AcquiredResources };
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
    /** The run's credential check: the token, and one listing per kind `templates` names. */
    checkCredentials: (templates: KindTemplates) =>
      checkCredentials(api, credentialProbes(resolver, templates)),
    /** The slot's resources with their ids, from the run's listings. */
    locate: (slot: KindResources) => locateIn(resolver, slot),
    /** Whether `resource` exists in the account (what its kind's listing says of it), from the run's listings. */
    exists: async (kind: SomeKind, resource: object & Origin) =>
      (await operationsOf(kind).find(resolver, resource)) !== undefined,
  };
}

export type Connection = ReturnType<typeof connect>;

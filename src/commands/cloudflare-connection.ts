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
import type { KindTemplates, SomeKind } from '../kinds/registry.ts';

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
    /** Whether `resource` exists in the account (what its kind's listing says of it), from the run's listings. */
    exists: async (kind: SomeKind, resource: object & Origin) =>
      (await operationsOf(kind).find(resolver, resource)) !== undefined,
  };
}

export type Connection = ReturnType<typeof connect>;

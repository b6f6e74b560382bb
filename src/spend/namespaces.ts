// The account's Durable Object namespaces, by id: which Worker and class each belongs to. One listing
// (a request per 1,000 namespaces), made only when the read needs it: to name the class of a slot the
// run alerts about, or to place compute no invocation of the hour explained. Loaded on that first
// need, because it brings the SDK, which a quiet sweep never loads.
import { CloudflareApi } from '../cloudflare/client.ts';
import { listDurableObjectNamespaces } from '../kinds/workers/api.ts';
import type { AnalyticsOptions } from './send.ts';

export interface NamespaceOwner {
  script: string;
  className: string;
}

export async function listNamespaceOwners(options: AnalyticsOptions): Promise<Map<string, NamespaceOwner>> {
  const api = new CloudflareApi({
    apiToken: options.apiToken,
    accountId: options.accountId,
    baseUrl: options.baseUrl,
    pacer: options.pacer,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const namespaces = await options.pacer.shared(() => listDurableObjectNamespaces(api));
  // A Worker preview's namespace names the parent Worker as its script: it is the slot's too.
  return new Map(
    namespaces.map((namespace) => [
      namespace.id,
      { script: namespace.script, className: namespace.className },
    ]),
  );
}

// The account's workers.dev subdomain: a Worker deployed with `workers_dev` on answers at
// `<worker>.<subdomain>.workers.dev`, the preview's address acquire gives the e2e job. One read-only
// request (the SDK's workers/subdomains; wrangler's routes.ts reads the same route to print a
// deploy's URL). What it answers is the server's text: the caller checks it before building a URL.
import { BaseSubdomains } from 'cloudflare/resources/workers/subdomains';
import type { CloudflareApi } from '../../cloudflare/client.ts';
import * as z from '../../zod.ts';

const RESOURCES = [BaseSubdomains] as const;

const subdomainSchema = z.looseObject({ subdomain: z.string() });

/** The account's workers.dev subdomain as the API answers it (unchecked: data, not yet a hostname). */
export async function readWorkersSubdomain(api: CloudflareApi): Promise<string> {
  const { result } = await api.send(
    'workers.subdomain.get',
    (options) =>
      api.sdk(RESOURCES).workers.subdomains.get({ account_id: api.accountId }, options).asResponse(),
    subdomainSchema,
  );
  return result.subdomain;
}

// The Cloudflare side of an eraser: the account client, the name resolver and the erase steps.
// cloudflare-eraser.ts loads this module on the first erase, not at start-up: a sweep with nothing to
// reclaim (most hourly runs) never loads the Cloudflare SDK, and the bundle keeps it in a chunk of its own.
import '../heap-limits.ts';
import { CloudflareAccount } from '../cloudflare/account.ts';
import { checkCredentials } from '../cloudflare/credentials.ts';
import { eraseSlot } from '../cloudflare/erase.ts';
import type { Pacer } from '../cloudflare/pacer.ts';
import { NameResolver } from '../cloudflare/resolver.ts';
import type { CloudflareOptions } from './cloudflare-eraser.ts';

export function connect(options: CloudflareOptions, pacer: Pacer) {
  const account = new CloudflareAccount({
    apiToken: options.apiToken,
    accountId: options.accountId,
    baseUrl: options.baseUrl,
    pacer,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return { account, resolver: new NameResolver(account), eraseSlot, checkCredentials };
}

export type Connection = ReturnType<typeof connect>;

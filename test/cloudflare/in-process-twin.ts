// A twin account answering in-process (msw's handlers as the fetch of the real SDK; no server, so the
// tests stay in the unit lane), the SDK pointed at it for putting data in, and one run's plumbing
// (pacer, account, resolver) on a virtual clock the twin shares, so waits cost no time.
import Cloudflare from 'cloudflare';
import { getResponse } from 'msw';
import { CloudflareApi } from '../../src/cloudflare/client.ts';
import { Pacer, type PacerOptions } from '../../src/cloudflare/pacer.ts';
import { NameResolver } from '../../src/cloudflare/resolver.ts';
import type { SlotResources } from '../../src/config/slot-config.ts';
import { eraseSlot } from '../../src/erase/erase-slot.ts';
import { createTwinAccount, createTwinHandlers, type TwinAccount } from '../twin/twin.ts';
import { VirtualClock } from './support.ts';

export const BASE_URL = 'https://api.cloudflare.com/client/v4';

export interface InProcessTwin {
  clock: VirtualClock;
  twin: TwinAccount;
  /** The twin as a fetch: a request goes through the gate (limiter, faults, auth) and a route. */
  fetch: typeof fetch;
  /** The real SDK on the twin, for putting data in. */
  sdk: Cloudflare;
}

export function inProcessTwin(): InProcessTwin {
  const clock = new VirtualClock();
  const twin = createTwinAccount({ now: clock.now });
  const handlers = createTwinHandlers(twin);
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await getResponse(handlers, new Request(input, init));
    if (!response || response.type === 'error')
      throw new TypeError('fetch failed: the twin reset the connection');
    return response;
  };
  const sdk = new Cloudflare({ apiToken: twin.token, baseURL: BASE_URL, maxRetries: 0, fetch });
  return { clock, twin, fetch, sdk };
}

/** One run's pacer, API client and resolver against the twin. */
export function newRun(env: InProcessTwin, options: PacerOptions = {}) {
  const pacer = new Pacer({ ratePerSecond: 1000, clock: env.clock, ...options });
  const api = new CloudflareApi({
    apiToken: env.twin.token,
    accountId: env.twin.accountId,
    baseUrl: BASE_URL,
    pacer,
    fetch: env.fetch,
  });
  return { pacer, api, resolver: new NameResolver(api) };
}

/** Erases `resources` in a new run, with the twin's request log cleared first. */
export async function eraseInNewRun(
  env: InProcessTwin,
  resources: SlotResources,
  options: { dryRun?: boolean; pacer?: PacerOptions } = {},
) {
  const run = newRun(env, options.pacer);
  env.twin.resetRequests();
  const result = await eraseSlot({
    ...run,
    resources,
    fence: async () => true,
    dryRun: options.dryRun ?? false,
  });
  return { ...run, result };
}

/** `route -> status` of every request the twin served since the log was cleared. */
export function routesServed(env: InProcessTwin): string[] {
  return env.twin.requests().map((request) => `${request.route} -> ${request.status}`);
}

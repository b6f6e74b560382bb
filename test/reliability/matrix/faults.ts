// The axes of the fault matrix: the routes gc and cleanup use (checked against a real run by the
// matrix test) and the six faults, as the Cloudflare twin and the semaphore proxy inject them.
import type { Intervention, ProxiedRequest, Replacement } from '../../support/semaphore-proxy.ts';
import type { FaultRule } from '../../twin/twin.ts';

export const FAULTS = ['429', '500', 'reset', 'hang', 'malformed', 'refusal'] as const;
export type FaultKind = (typeof FAULTS)[number];

export const FAULT_TITLES: Record<FaultKind, string> = {
  '429': '429 + Retry-After',
  '500': '500',
  reset: 'connection reset',
  hang: 'hang past the timeout',
  malformed: 'malformed JSON',
  refusal: 'success:false / schema violation',
};

/**
 * Every Cloudflare route of a sweep, in the order it calls them: the spend read, the credential check,
 * then the erase.
 */
export const CLOUDFLARE_ROUTES = [
  'POST /graphql',
  'GET /user/tokens/verify',
  'GET /accounts/:account/workers/scripts',
  'GET /accounts/:account/workers/durable_objects/namespaces',
  'GET /accounts/:account/containers/applications',
  'PUT /accounts/:account/workers/scripts/:name',
  'PATCH /accounts/:account/workers/workers/:name',
  'GET /accounts/:account/workers/scripts/:name/deployments',
  // The slot Worker's cron triggers, read by the erase and by its inventory.
  'GET /accounts/:account/workers/scripts/:name/schedules',
  // The binding guard's read of the account's other Workers' bindings.
  'GET /accounts/:account/workers/scripts/:name/settings',
  'GET /accounts/:account/workers/scripts/:name/versions',
  'GET /accounts/:account/workers/workers/:name/previews',
  'GET /accounts/:account/d1/database',
  'POST /accounts/:account/d1/database/:id/query',
  'GET /accounts/:account/storage/kv/namespaces',
  'GET /accounts/:account/storage/kv/namespaces/:ns/keys',
  'POST /accounts/:account/storage/kv/namespaces/:ns/bulk/delete',
  'GET /accounts/:account/r2/buckets',
  'GET /accounts/:account/r2/buckets/:bucket/lifecycle',
  'PUT /accounts/:account/r2/buckets/:bucket/lifecycle',
  'GET /accounts/:account/r2/buckets/:bucket/objects',
] as const;

/** Whether a request (method, path under the API base) is one of the route template's. */
export function cloudflareRouteMatches(route: string, method: string, pathname: string): boolean {
  const [routeMethod, template] = route.split(' ');
  const pattern = (template ?? '').replace(/:[a-z]+/g, '[^/]+');
  return method === routeMethod && new RegExp(`/client/v4${pattern}$`).test(pathname);
}

/** A hung call ends only because the client gives up on it, after HANG_TIMEOUT_MS. */
const HANG_MS = 8_000;
export const HANG_TIMEOUT_MS = 500;

export function cloudflareFault(route: string, fault: FaultKind): FaultRule {
  const shapes: Record<FaultKind, Omit<FaultRule, 'route'>> = {
    '429': { status: 429, retryAfter: 1 },
    '500': { status: 500 },
    reset: { reset: true },
    hang: { delayMs: HANG_MS },
    malformed: { malformed: true },
    refusal: { successFalse: true },
  };
  return { route, ...shapes[fault] };
}

export const SEMAPHORE_ROUTES = [
  'GET /api/resources?type=',
  'GET /api/resources/{type}/{slug}',
  'POST /api/resources/acquire-specific',
  'POST /api/resources/renew',
  'POST /api/resources/release',
  // gc's record of each slot's hour and each live lease's cost: a fault there must not stop a reclaim.
  'POST /api/resources/activity',
] as const;
export type SemaphoreRoute = (typeof SEMAPHORE_ROUTES)[number];

export function semaphoreRouteOf(request: Pick<ProxiedRequest, 'method' | 'path'>): string {
  const path = request.path;
  if (request.method === 'GET' && path.startsWith('/api/resources?')) return 'GET /api/resources?type=';
  if (request.method === 'GET' && /^\/api\/resources\/[^/?]+\/[^/?]+$/.test(path))
    return 'GET /api/resources/{type}/{slug}';
  return `${request.method} ${path}`;
}

/** An answer that is JSON but breaks the protocol's schema of that route. */
const SCHEMA_VIOLATIONS: Record<SemaphoreRoute, unknown> = {
  'GET /api/resources?type=': { now: 'soon', resources: [{ slug: 7 }] },
  'GET /api/resources/{type}/{slug}': { slug: 'x', leaseState: 'borrowed', leasedUntil: 'tomorrow' },
  'POST /api/resources/acquire-specific': { leaseId: 42, generation: -1 },
  'POST /api/resources/renew': { leaseId: null },
  'POST /api/resources/release': { released: 'yes', dirty: 0 },
  'POST /api/resources/activity': { recorded: 'all', alerted: null },
};

/**
 * 429 and 500 are refusals: the semaphore did nothing. Reset, hang and garbled answers come after the
 * semaphore did the work, the hardest case for the caller: its acquire or release may have happened.
 */
export function semaphoreFault(route: SemaphoreRoute, fault: FaultKind): Intervention {
  const garbled = (body: string): Intervention => ({
    kind: 'after-forward',
    answer: { kind: 'answer', status: 200, body },
  });
  const lost = (answer: Replacement): Intervention => ({ kind: 'after-forward', answer });
  switch (fault) {
    case '429':
      return {
        kind: 'answer',
        status: 429,
        headers: { 'retry-after': '1' },
        body: JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }),
      };
    case '500':
      return {
        kind: 'answer',
        status: 500,
        body: JSON.stringify({ error: { code: 'internal', message: 'the semaphore failed unexpectedly' } }),
      };
    case 'reset':
      return lost({ kind: 'reset' });
    case 'hang':
      return lost({ kind: 'hang' });
    case 'malformed':
      return garbled('{"resources": [{"slug": ');
    case 'refusal':
      return garbled(JSON.stringify(SCHEMA_VIOLATIONS[route]));
  }
}

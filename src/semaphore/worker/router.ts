// HTTP routes under /api. Checks run in the protocol's order: auth (401), what the caller's role may
// call at all (403), body size (413), validation (400), what the role may do with this body (403),
// then the pool's own checks (403 for a lease that is not the caller's, 404, 409), decided by the
// pool's Durable Object. Every write is redacted of the Worker's own tokens before it is stored, and
// no answer repeats one.
import type { z } from 'zod';
import { version } from '../../../package.json';
import { secretRedactor } from '../../text/redact.ts';
import {
  acquireRequestSchema,
  acquireSpecificRequestSchema,
  addRequestSchema,
  DEFAULT_EVENTS_LIMIT,
  deleteQuerySchema,
  describeIssues,
  eventsQuerySchema,
  extendRequestSchema,
  type ListAnswer,
  listQuerySchema,
  MAX_POOLS,
  markDirtyRequestSchema,
  type PoolQueue,
  type PoolSummary,
  recordActivityRequestSchema,
  releaseRequestSchema,
  renewRequestSchema,
  slotPathSchema,
  toIssues,
} from '../protocol.ts';
import { LEAVE_QUEUE_ROUTE, leaveQueueRequestSchema } from '../queue-protocol.ts';
import { redactWrite } from '../stored-text.ts';
import { type AuthEnv, configuredTokens, identify } from './auth.ts';
import {
  type AssetsBinding,
  CONSOLE_CONFIG_ROUTE,
  consoleConfig,
  isConsoleRequest,
  serveConsole,
} from './console.ts';
import { errorResponse, json, jsonText, readJsonBody } from './http.ts';
import { METRICS_CONTENT_TYPE, METRICS_ROUTE, type PoolSlots, renderMetrics } from './metrics.ts';
import type { PoolCommand, PoolReply, TenantLimits } from './pool.ts';
import type { PoolObject } from './pool-object.ts';
import { type PoolRegistry, REGISTRY_NAME } from './registry.ts';
import {
  acquireRefusal,
  acquireSpecificRefusal,
  type Caller,
  forbiddenMessage,
  leaseOwner,
  leaveQueueRefusal,
  releaseRefusal,
  routeRefusal,
  whoami,
} from './roles.ts';
import { type TenancyEnv, tenancyConfig, tenancyRefusal, tenantLimits } from './tenancy.ts';
import { advanceRequestSchema, TEST_CLOCK_ROUTE, testClockRouteAvailable } from './test-clock.ts';
import { armFaultRequestSchema, TEST_FAULT_ROUTE } from './test-fault.ts';

export interface Env extends AuthEnv, TenancyEnv {
  POOLS: DurableObjectNamespace<PoolObject>;
  REGISTRY: DurableObjectNamespace<PoolRegistry>;
  /** The web console's files (console.ts). */
  ASSETS: AssetsBinding;
  /** Optional `owner/name`: the console links `pr-<n>` holders to that repository's pull requests. */
  REPOSITORY?: string;
  /** Tests only, never in wrangler.jsonc: 'enabled' adds the test clock route (see test-clock.ts). */
  PREVIEW_GC_TEST_CLOCK?: string;
}

type Parsed<T> = { value: T } | { response: Response };

function validate<T>(schema: z.ZodType<T>, input: unknown, what: string): Parsed<T> {
  const result = schema.safeParse(input);
  if (result.success) return { value: result.data };
  const issues = toIssues(result.error);
  return {
    response: errorResponse(400, 'invalid_request', `invalid ${what}: ${describeIssues(issues)}`, issues),
  };
}

async function runInPool(env: Env, type: string, command: PoolCommand): Promise<Response> {
  const reply: PoolReply = await env.POOLS.getByName(type).run(command);
  return reply.ok
    ? jsonText(reply.status, reply.json)
    : errorResponse(reply.status, reply.code, reply.message, undefined, reply.queue);
}

/** Every pool the registry knows, with its numbers as the pool itself has them now. */
async function listPools(env: Env): Promise<Response> {
  const types = await env.REGISTRY.getByName(REGISTRY_NAME).poolTypes();
  const replies = await Promise.all(
    types.map((type) => env.POOLS.getByName(type).run({ op: 'summary', type })),
  );
  const pools = replies.flatMap((reply) => (reply.ok ? [JSON.parse(reply.json) as PoolSummary] : []));
  // A pool whose last slot was deleted a moment ago may still be registered: its own count decides.
  return json(200, { now: Date.now(), pools: pools.filter((pool) => pool.slots > 0) });
}

/** `GET /metrics` (metrics.ts): every registered pool's slots, for any caller that may read. */
async function metrics(env: Env): Promise<Response> {
  const types = await env.REGISTRY.getByName(REGISTRY_NAME).poolTypes();
  const replies = await Promise.all(
    types.map(async (type) => ({ type, reply: await env.POOLS.getByName(type).run({ op: 'list', type }) })),
  );
  const pools: PoolSlots[] = replies.flatMap(({ type, reply }) => {
    if (!reply.ok) return [];
    const listing = JSON.parse(reply.json) as ListAnswer & { queue: PoolQueue };
    return [{ type, slots: listing.resources, queue: listing.queue, now: listing.now }];
  });
  return new Response(renderMetrics(pools), {
    status: 200,
    headers: { 'content-type': METRICS_CONTENT_TYPE },
  });
}

/** Reads (413) and validates (400) a JSON body. */
async function readBody<T>(request: Request, schema: z.ZodType<T>): Promise<Parsed<T>> {
  const read = await readJsonBody(request);
  return 'response' in read ? read : validate(schema, read.body, 'request body');
}

const forbidden = (caller: Caller, refused: string): Response =>
  errorResponse(403, 'forbidden', forbiddenMessage(caller, refused));

/** The Worker's own tokens in every form the redaction net knows: never stored, never answered. */
const ownSecrets = (env: Env): ((text: string) => string) =>
  secretRedactor(configuredTokens(env).map(([, token]) => token));

/** A write as the Worker stores it: its free text redacted of the Worker's tokens, a name carrying one refused (400). */
function storable<T extends object>(env: Env, body: T): Parsed<T> {
  const written = redactWrite(body, ownSecrets(env));
  if ('body' in written) return { value: written.body };
  const message = `${written.field} must not contain a token of this semaphore; nothing was changed`;
  return {
    response: errorResponse(400, 'invalid_request', `invalid request body: ${message}`, [
      { path: [written.field], message },
    ]),
  };
}

interface BodyRoute<T> {
  schema: z.ZodType<T>;
  command: (body: T, caller: Caller, limits: TenantLimits) => PoolCommand;
  /** A lease a pull request's job takes or extends: held to the operator's tenancy settings (tenancy.ts). */
  tenancy?: true;
  /** What the caller's role may not do with this body (403), if anything. */
  refusal?: (caller: Caller, body: T) => string | undefined;
  check?: (env: Env, body: T) => Promise<Response | undefined>;
}

/** POST routes whose body names the pool: read (413), validate (400), the role's refusal (403), check, run. */
async function bodyRoute<T extends { type: string }>(
  request: Request,
  env: Env,
  caller: Caller,
  route: BodyRoute<T>,
): Promise<Response> {
  const parsed = await readBody(request, route.schema);
  if ('response' in parsed) return parsed.response;
  const refused = route.refusal?.(caller, parsed.value);
  if (refused !== undefined) return forbidden(caller, refused);
  const tenancy = route.tenancy === true ? tenancyOf(env, caller, parsed.value) : { limits: {} };
  if ('response' in tenancy) return tenancy.response;
  const stored = storable(env, parsed.value);
  if ('response' in stored) return stored.response;
  const checked = await route.check?.(env, stored.value);
  return checked ?? runInPool(env, stored.value.type, route.command(stored.value, caller, tenancy.limits));
}

/** A pull request's lease within the operator's settings: its pool, its length (403), and the limits the pool checks. */
function tenancyOf(
  env: Env,
  caller: Caller,
  body: { type: string; leaseMs?: number | undefined },
): { limits: TenantLimits } | { response: Response } {
  if (caller.role !== 'pull-request') return { limits: {} };
  const config = tenancyConfig(env);
  if ('problem' in config) return { response: errorResponse(500, 'internal', config.problem) };
  const refused = tenancyRefusal(caller, config, body);
  return refused === undefined
    ? { limits: tenantLimits(caller, config) }
    : { response: forbidden(caller, refused) };
}

/** A slot may start a new pool only while there are fewer than MAX_POOLS (see registry.ts). */
async function roomForPool(env: Env, type: string): Promise<Response | undefined> {
  if (await env.REGISTRY.getByName(REGISTRY_NAME).hasRoomFor(type)) return undefined;
  return errorResponse(
    409,
    'limit_reached',
    `the semaphore has ${MAX_POOLS} pools, the most it may have (so their listing fits one answer); add the slot to an existing pool or delete an unused pool's slots`,
  );
}

/** The body routes, and what each is to a role (routeRefusal): the inventory, leasing, marking, gc's activity records. */
const BODY_ROUTES: Record<
  string,
  {
    kind: 'slots' | 'lease' | 'extend' | 'mark-dirty' | 'activity';
    run: (request: Request, env: Env, caller: Caller) => Promise<Response>;
  }
> = {
  '/api/resources': {
    kind: 'slots',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: addRequestSchema,
        command: (body) => ({ op: 'add', request: body }),
        check: (env, body) => roomForPool(env, body.type),
      }),
  },
  '/api/resources/acquire-specific': {
    kind: 'lease',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: acquireSpecificRequestSchema,
        command: (body, _caller, limits) => ({ op: 'acquire-specific', request: body, ...limits }),
        refusal: acquireSpecificRefusal,
        tenancy: true,
      }),
  },
  '/api/resources/acquire': {
    kind: 'lease',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: acquireRequestSchema,
        command: (body, _caller, limits) => ({ op: 'acquire', request: body, ...limits }),
        refusal: acquireRefusal,
        tenancy: true,
      }),
  },
  '/api/resources/extend': {
    kind: 'extend',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: extendRequestSchema,
        command: (body) => ({ op: 'extend', request: body }),
      }),
  },
  '/api/resources/renew': {
    kind: 'lease',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: renewRequestSchema,
        command: (body) => ({ op: 'renew', request: body, owner: leaseOwner(caller) }),
        tenancy: true,
      }),
  },
  '/api/resources/release': {
    kind: 'lease',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: releaseRequestSchema,
        command: (body) => ({ op: 'release', request: body, owner: leaseOwner(caller) }),
        refusal: releaseRefusal,
      }),
  },
  [LEAVE_QUEUE_ROUTE]: {
    kind: 'lease',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: leaveQueueRequestSchema,
        command: (body) => ({ op: 'leave-queue', request: body, owner: leaseOwner(caller) }),
        refusal: leaveQueueRefusal,
        tenancy: true,
      }),
  },
  '/api/resources/mark-dirty': {
    kind: 'mark-dirty',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: markDirtyRequestSchema,
        command: (body) => ({ op: 'mark-dirty', request: body, owner: leaseOwner(caller) }),
      }),
  },
  '/api/resources/activity': {
    kind: 'activity',
    run: (request, env, caller) =>
      bodyRoute(request, env, caller, {
        schema: recordActivityRequestSchema,
        command: (body) => ({ op: 'record-activity', request: body }),
      }),
  },
};

/** A test-only route: validates its body and answers what `run` returns. */
async function testRoute<T>(
  request: Request,
  schema: z.ZodType<T>,
  run: (body: T) => Promise<unknown>,
): Promise<Response> {
  const parsed = await readBody(request, schema);
  return 'response' in parsed ? parsed.response : json(200, await run(parsed.value));
}

/** Routes that exist only on a semaphore started with the test clock (test-clock.ts, test-fault.ts). */
const TEST_ROUTES: Record<string, (request: Request, env: Env) => Promise<Response>> = {
  [TEST_CLOCK_ROUTE]: (request, env) =>
    testRoute(request, advanceRequestSchema, (body) =>
      env.POOLS.getByName(body.type).advanceClock(body.advanceMs),
    ),
  [TEST_FAULT_ROUTE]: (request, env) =>
    testRoute(request, armFaultRequestSchema, (body) => env.POOLS.getByName(body.type).armFault()),
};

/** `/api/resources/{type}/{slug}` and `/api/resources/{type}/{slug}/events`. */
const SLOT_PATH = /^\/api\/resources\/([^/]+)\/([^/]+)(\/events)?$/;

/** `DELETE /api/resources/{type}/{slug}`: only on the condition the caller saw (see deleteQuerySchema). */
function removeRoute(env: Env, url: URL, type: string, slug: string): Promise<Response> | Response {
  const param = (name: string) => url.searchParams.get(name) ?? undefined;
  const query = validate(
    deleteQuerySchema,
    { note: param('note'), ifGeneration: param('ifGeneration'), allowDirty: param('allowDirty') },
    'query',
  );
  if ('response' in query) return query.response;
  const stored = storable(env, query.value);
  if ('response' in stored) return stored.response;
  const { note, ifGeneration, allowDirty } = stored.value;
  return runInPool(env, type, {
    op: 'remove',
    type,
    slug,
    note,
    ifGeneration,
    allowDirty: allowDirty === true,
  });
}

async function slotRoute(
  request: Request,
  env: Env,
  caller: Caller,
  url: URL,
): Promise<Response | undefined> {
  const match = SLOT_PATH.exec(url.pathname);
  if (match === null) return undefined;
  const [, rawType, rawSlug, events] = match;
  const isEvents = events !== undefined;
  if (!(request.method === 'GET' || (request.method === 'DELETE' && !isEvents))) return undefined;
  if (request.method === 'DELETE') {
    const refused = routeRefusal(caller, 'slots');
    if (refused !== undefined) return forbidden(caller, refused);
  }
  const path = validate(slotPathSchema, { type: rawType, slug: rawSlug }, 'path');
  if ('response' in path) return path.response;
  const { type, slug } = path.value;
  if (request.method === 'DELETE') return removeRoute(env, url, type, slug);
  if (!isEvents) return runInPool(env, type, { op: 'find', type, slug });
  const query = validate(eventsQuerySchema, { limit: url.searchParams.get('limit') ?? undefined }, 'query');
  if ('response' in query) return query.response;
  return runInPool(env, type, { op: 'events', type, slug, limit: query.value.limit ?? DEFAULT_EVENTS_LIMIT });
}

/** `GET /api/whoami`: the caller's role and what it may do (the CLI and the console say it). */
export const WHOAMI_ROUTE = '/api/whoami';

/** The GET routes that read beyond a pool's slots: the pools, the caller's role, the console's config. */
function readRoute(env: Env, caller: Caller, url: URL): Promise<Response> | Response | undefined {
  switch (url.pathname) {
    case '/api/pools':
      return listPools(env);
    case WHOAMI_ROUTE:
      return json(200, whoami(caller));
    case CONSOLE_CONFIG_ROUTE:
      return json(200, consoleConfig(env.REPOSITORY));
    case '/api/resources': {
      const query = validate(listQuerySchema, { type: url.searchParams.get('type') ?? undefined }, 'query');
      if ('response' in query) return query.response;
      return runInPool(env, query.value.type, { op: 'list', type: query.value.type });
    }
    default:
      return undefined;
  }
}

/** The POST routes: the protocol's body routes and, on a test semaphore, the test routes. */
function postRoute(
  request: Request,
  env: Env,
  caller: Caller,
  url: URL,
): Promise<Response> | Response | undefined {
  const bodyRouteHandler = BODY_ROUTES[url.pathname];
  if (bodyRouteHandler !== undefined) {
    const refused = routeRefusal(caller, bodyRouteHandler.kind);
    return refused === undefined ? bodyRouteHandler.run(request, env, caller) : forbidden(caller, refused);
  }
  const testRouteHandler = TEST_ROUTES[url.pathname];
  if (testRouteHandler === undefined || !testClockRouteAvailable(env, url)) return undefined;
  const refused = routeRefusal(caller, 'test');
  return refused === undefined ? testRouteHandler(request, env) : forbidden(caller, refused);
}

async function route(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url);
  if (request.method === 'GET' && url.pathname === '/api/health') return json(200, { ok: true, version });
  const isMetrics = request.method === 'GET' && url.pathname === METRICS_ROUTE;
  if (!isMetrics && isConsoleRequest(request, url)) return serveConsole(request, env.ASSETS);
  const identified = await identify(request.headers.get('authorization'), env);
  if (!('caller' in identified))
    return errorResponse(
      identified.status,
      identified.status === 401 ? 'unauthorized' : 'internal',
      identified.message,
    );
  const { caller } = identified;
  if (isMetrics) return metrics(env);
  const answer =
    (request.method === 'POST' ? postRoute(request, env, caller, url) : undefined) ??
    (request.method === 'GET' ? readRoute(env, caller, url) : undefined) ??
    (await slotRoute(request, env, caller, url));
  return (
    (await answer) ??
    errorResponse(
      404,
      'not_found',
      `there is no route ${request.method} ${url.pathname}; see docs/semaphore-protocol.md`,
    )
  );
}

/**
 * An error answer may repeat what the caller sent (an unknown key, a condition): the Worker's tokens
 * are redacted from it, in every form. (Stored text was redacted when it was written.)
 */
async function withoutOwnSecrets(response: Response, env: Env): Promise<Response> {
  if (response.status < 400 || !(response.headers.get('content-type') ?? '').startsWith('application/json'))
    return response;
  const text = await response.text();
  return new Response(ownSecrets(env)(text), response);
}

export async function handleRequest(request: Request, env: Env): Promise<Response> {
  try {
    return await withoutOwnSecrets(await route(request, env), env);
  } catch (error) {
    // Only the error itself: never the request's headers or body, which carry the token and data.
    console.error('semaphore: unexpected error', error instanceof Error ? error.stack : String(error));
    return errorResponse(
      500,
      'internal',
      'the semaphore failed unexpectedly; retry, and check the Worker logs',
    );
  }
}

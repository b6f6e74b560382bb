// HTTP routes under /api. Checks run in the protocol's order: auth (401), body size (413),
// validation (400), then existence (404, decided by the pool's Durable Object).
import type { z } from 'zod';
import { version } from '../../../package.json';
import {
  acquireRequestSchema,
  acquireSpecificRequestSchema,
  addRequestSchema,
  DEFAULT_EVENTS_LIMIT,
  deleteQuerySchema,
  describeIssues,
  eventsQuerySchema,
  listQuerySchema,
  MAX_POOLS,
  markDirtyRequestSchema,
  type PoolSummary,
  recordActivityRequestSchema,
  releaseRequestSchema,
  renewRequestSchema,
  slotPathSchema,
  toIssues,
} from '../protocol.ts';
import { isAuthorized, serverTokenProblem } from './auth.ts';
import {
  type AssetsBinding,
  CONSOLE_CONFIG_ROUTE,
  consoleConfig,
  isConsoleRequest,
  serveConsole,
} from './console.ts';
import { errorResponse, json, jsonText, readJsonBody } from './http.ts';
import type { PoolCommand, PoolReply } from './pool.ts';
import type { PoolObject } from './pool-object.ts';
import { type PoolRegistry, REGISTRY_NAME } from './registry.ts';
import { advanceRequestSchema, TEST_CLOCK_ROUTE, testClockRouteAvailable } from './test-clock.ts';
import { armFaultRequestSchema, TEST_FAULT_ROUTE } from './test-fault.ts';

export interface Env {
  SEMAPHORE_TOKEN?: string;
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
    : errorResponse(reply.status, reply.code, reply.message);
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

/** Reads (413) and validates (400) a JSON body. */
async function readBody<T>(request: Request, schema: z.ZodType<T>): Promise<Parsed<T>> {
  const read = await readJsonBody(request);
  return 'response' in read ? read : validate(schema, read.body, 'request body');
}

/** POST routes whose body names the pool: read (413), validate (400), check, run. */
async function bodyRoute<T extends { type: string }>(
  request: Request,
  env: Env,
  schema: z.ZodType<T>,
  command: (body: T) => PoolCommand,
  check?: (body: T) => Promise<Response | undefined>,
): Promise<Response> {
  const parsed = await readBody(request, schema);
  if ('response' in parsed) return parsed.response;
  const refused = await check?.(parsed.value);
  return refused ?? runInPool(env, parsed.value.type, command(parsed.value));
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

const BODY_ROUTES: Record<string, (request: Request, env: Env) => Promise<Response>> = {
  '/api/resources': (request, env) =>
    bodyRoute(
      request,
      env,
      addRequestSchema,
      (body) => ({ op: 'add', request: body }),
      (body) => roomForPool(env, body.type),
    ),
  '/api/resources/acquire-specific': (request, env) =>
    bodyRoute(request, env, acquireSpecificRequestSchema, (body) => ({
      op: 'acquire-specific',
      request: body,
    })),
  '/api/resources/acquire': (request, env) =>
    bodyRoute(request, env, acquireRequestSchema, (body) => ({ op: 'acquire', request: body })),
  '/api/resources/renew': (request, env) =>
    bodyRoute(request, env, renewRequestSchema, (body) => ({ op: 'renew', request: body })),
  '/api/resources/release': (request, env) =>
    bodyRoute(request, env, releaseRequestSchema, (body) => ({ op: 'release', request: body })),
  '/api/resources/mark-dirty': (request, env) =>
    bodyRoute(request, env, markDirtyRequestSchema, (body) => ({ op: 'mark-dirty', request: body })),
  '/api/resources/activity': (request, env) =>
    bodyRoute(request, env, recordActivityRequestSchema, (body) => ({
      op: 'record-activity',
      request: body,
    })),
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

async function slotRoute(request: Request, env: Env, url: URL): Promise<Response | undefined> {
  const match = SLOT_PATH.exec(url.pathname);
  if (match === null) return undefined;
  const [, rawType, rawSlug, events] = match;
  const isEvents = events !== undefined;
  if (!(request.method === 'GET' || (request.method === 'DELETE' && !isEvents))) return undefined;
  const path = validate(slotPathSchema, { type: rawType, slug: rawSlug }, 'path');
  if ('response' in path) return path.response;
  const { type, slug } = path.value;
  if (request.method === 'DELETE') {
    const query = validate(deleteQuerySchema, { note: url.searchParams.get('note') ?? undefined }, 'query');
    if ('response' in query) return query.response;
    return runInPool(env, type, { op: 'remove', type, slug, note: query.value.note });
  }
  if (!isEvents) return runInPool(env, type, { op: 'find', type, slug });
  const query = validate(eventsQuerySchema, { limit: url.searchParams.get('limit') ?? undefined }, 'query');
  if ('response' in query) return query.response;
  return runInPool(env, type, { op: 'events', type, slug, limit: query.value.limit ?? DEFAULT_EVENTS_LIMIT });
}

async function route(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url);
  if (request.method === 'GET' && url.pathname === '/api/health') return json(200, { ok: true, version });
  if (isConsoleRequest(request, url)) return serveConsole(request, env.ASSETS);
  const token = env.SEMAPHORE_TOKEN;
  if (token === undefined || token === '') {
    return errorResponse(
      500,
      'internal',
      'the semaphore has no SEMAPHORE_TOKEN; run `wrangler secret put SEMAPHORE_TOKEN`',
    );
  }
  const tokenProblem = serverTokenProblem(token);
  if (tokenProblem !== undefined) return errorResponse(401, 'unauthorized', tokenProblem);
  if (!(await isAuthorized(request.headers.get('authorization'), token))) {
    return errorResponse(
      401,
      'unauthorized',
      "the token is missing or wrong: send the header Authorization: Bearer <token>, with the token set as the Worker's SEMAPHORE_TOKEN secret",
    );
  }
  const bodyRouteHandler = request.method === 'POST' ? BODY_ROUTES[url.pathname] : undefined;
  if (bodyRouteHandler !== undefined) return bodyRouteHandler(request, env);
  const testRouteHandler = request.method === 'POST' ? TEST_ROUTES[url.pathname] : undefined;
  if (testRouteHandler !== undefined && testClockRouteAvailable(env, url))
    return testRouteHandler(request, env);
  if (request.method === 'GET' && url.pathname === '/api/pools') return listPools(env);
  if (request.method === 'GET' && url.pathname === CONSOLE_CONFIG_ROUTE) {
    return json(200, consoleConfig(env.REPOSITORY));
  }
  if (request.method === 'GET' && url.pathname === '/api/resources') {
    const query = validate(listQuerySchema, { type: url.searchParams.get('type') ?? undefined }, 'query');
    if ('response' in query) return query.response;
    return runInPool(env, query.value.type, { op: 'list', type: query.value.type });
  }
  const slotAnswer = await slotRoute(request, env, url);
  return (
    slotAnswer ??
    errorResponse(
      404,
      'not_found',
      `there is no route ${request.method} ${url.pathname}; see docs/semaphore-protocol.md`,
    )
  );
}

export async function handleRequest(request: Request, env: Env): Promise<Response> {
  try {
    return await route(request, env);
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

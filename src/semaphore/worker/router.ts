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
  markDirtyRequestSchema,
  type PoolSummary,
  releaseRequestSchema,
  renewRequestSchema,
  slotPathSchema,
  toIssues,
} from '../protocol.ts';
import { isAuthorized } from './auth.ts';
import { errorResponse, json, readJsonBody } from './http.ts';
import type { PoolCommand, PoolOutcome } from './pool.ts';
import type { PoolObject } from './pool-object.ts';
import { type PoolRegistry, REGISTRY_NAME } from './registry.ts';
import { advanceRequestSchema, TEST_CLOCK_ROUTE, testClockRouteAvailable } from './test-clock.ts';

export interface Env {
  SEMAPHORE_TOKEN?: string;
  POOLS: DurableObjectNamespace<PoolObject>;
  REGISTRY: DurableObjectNamespace<PoolRegistry>;
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
  const outcome: PoolOutcome = await env.POOLS.getByName(type).run(command);
  return outcome.ok
    ? json(outcome.status, outcome.body)
    : errorResponse(outcome.status, outcome.code, outcome.message);
}

/** Every pool the registry knows, with its numbers as the pool itself has them now. */
async function listPools(env: Env): Promise<Response> {
  const types = await env.REGISTRY.getByName(REGISTRY_NAME).poolTypes();
  const outcomes = await Promise.all(
    types.map((type) => env.POOLS.getByName(type).run({ op: 'summary', type })),
  );
  const pools = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.body as PoolSummary] : []));
  // A pool whose last slot was deleted a moment ago may still be registered: its own count decides.
  return json(200, { now: Date.now(), pools: pools.filter((pool) => pool.slots > 0) });
}

/** POST routes whose body names the pool: read (413), validate (400), run. */
async function bodyRoute<T extends { type: string }>(
  request: Request,
  env: Env,
  schema: z.ZodType<T>,
  command: (body: T) => PoolCommand,
): Promise<Response> {
  const read = await readJsonBody(request);
  if ('response' in read) return read.response;
  const parsed = validate(schema, read.body, 'request body');
  if ('response' in parsed) return parsed.response;
  return runInPool(env, parsed.value.type, command(parsed.value));
}

const BODY_ROUTES: Record<string, (request: Request, env: Env) => Promise<Response>> = {
  '/api/resources': (request, env) =>
    bodyRoute(request, env, addRequestSchema, (body) => ({ op: 'add', request: body })),
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
};

/** Moves one pool's clock forward; the route exists only on a semaphore started with the test clock. */
async function advanceTestClock(request: Request, env: Env): Promise<Response> {
  const read = await readJsonBody(request);
  if ('response' in read) return read.response;
  const parsed = validate(advanceRequestSchema, read.body, 'request body');
  if ('response' in parsed) return parsed.response;
  return json(200, await env.POOLS.getByName(parsed.value.type).advanceClock(parsed.value.advanceMs));
}

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
  const token = env.SEMAPHORE_TOKEN;
  if (token === undefined || token === '') {
    return errorResponse(
      500,
      'internal',
      'the semaphore has no SEMAPHORE_TOKEN; run `wrangler secret put SEMAPHORE_TOKEN`',
    );
  }
  if (!(await isAuthorized(request.headers.get('authorization'), token))) {
    return errorResponse(401, 'unauthorized', 'send the header Authorization: Bearer <SEMAPHORE_TOKEN>');
  }
  const bodyRouteHandler = request.method === 'POST' ? BODY_ROUTES[url.pathname] : undefined;
  if (bodyRouteHandler !== undefined) return bodyRouteHandler(request, env);
  if (request.method === 'POST' && url.pathname === TEST_CLOCK_ROUTE && testClockRouteAvailable(env, url)) {
    return advanceTestClock(request, env);
  }
  if (request.method === 'GET' && url.pathname === '/api/pools') return listPools(env);
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
      `there is no route ${request.method} ${url.pathname}; see docs/semaphore.md`,
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

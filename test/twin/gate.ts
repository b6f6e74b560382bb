// Every /client/v4 route goes through this gate: latency, the rate limiter, fault injection, bearer-token
// auth and the account check, error envelopes, Ratelimit headers and the request log, in that order.
import { type HttpHandler, HttpResponse, http } from 'msw';
import type { AccountCore, TwinToken } from './account-core.ts';
import { ApiFailure, fail } from './envelope.ts';
import type { ParsedFaultRule } from './faults.ts';
import { acceptedPermissions } from './permissions.ts';

export const API_PREFIX = '/client/v4';
const RATE_LIMITED = 'Please wait and consider throttling your request speed';

export interface RouteContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  account: AccountCore;
  /** A matching fault rule that lets the request through (e.g. unsuccessfulKeys), for the route to apply. */
  fault?: ParsedFaultRule;
}

type Resolver = (ctx: RouteContext) => Response | Promise<Response>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function stringParams(params: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string') out[key] = value;
  return out;
}

function faultResponse(fault: ParsedFaultRule): Response | undefined {
  if (fault.reset) return HttpResponse.error();
  if (fault.malformed) {
    return new HttpResponse('{"success": true, "errors": [], "result": {"id": ', {
      status: fault.status ?? 200,
      headers: { 'Content-Type': 'application/json' },
    });
  }
  const headers: Record<string, string> = {};
  if (fault.retryAfter !== undefined) headers['Retry-After'] = String(fault.retryAfter);
  if (fault.successFalse) {
    return fail(
      200,
      fault.code ?? 10002,
      fault.message ?? 'An internal error occurred (twin fault)',
      headers,
    );
  }
  if (fault.status === undefined) return undefined;
  const rateLimited = fault.status === 429;
  return fail(
    fault.status,
    fault.code ?? (rateLimited ? 971 : 10002),
    fault.message ?? (rateLimited ? RATE_LIMITED : 'An internal error occurred (twin fault)'),
    headers,
  );
}

/** The token the request carries, if the twin knows it. */
export function presentedToken(ctx: RouteContext): TwinToken | undefined {
  const header = ctx.request.headers.get('authorization') ?? '';
  const value = /^Bearer (.+)$/.exec(header)?.[1];
  return value === undefined ? undefined : ctx.account.tokens.get(value);
}

function authorize(ctx: RouteContext, accepts: readonly string[] | null): Response | undefined {
  const token = presentedToken(ctx);
  if (token === undefined || token.status !== 'active') return fail(401, 10000, 'Authentication error');
  const accountParam = ctx.params.account;
  const tokenAccount = token.accountId ?? ctx.account.accountId;
  if (
    accountParam !== undefined &&
    (accountParam !== ctx.account.accountId || accountParam !== tokenAccount)
  ) {
    return fail(403, 10000, 'Authentication error');
  }
  const granted = token.permissions;
  if (accepts !== null && granted !== undefined && !accepts.some((group) => granted.includes(group))) {
    return fail(403, 10000, 'Authentication error');
  }
  return undefined;
}

async function serve(
  ctx: RouteContext,
  route: string,
  resolver: Resolver,
  accepts: readonly string[] | null | 'verifies-itself',
): Promise<Response> {
  const { account } = ctx;
  if (account.latencyMs > 0) await sleep(account.latencyMs);
  const limit = account.limiter.take();
  if (!limit.allowed) return fail(429, 971, RATE_LIMITED, limit.headers);
  const fault = account.faults.take(ctx.request.method, route, ctx.url.pathname.slice(API_PREFIX.length));
  if (fault?.delayMs) await sleep(fault.delayMs);
  const injected = fault ? faultResponse(fault) : undefined;
  if (fault && !injected) ctx.fault = fault;
  const refused = accepts === 'verifies-itself' ? undefined : authorize(ctx, accepts);
  const response = injected ?? refused ?? (await runResolver(ctx, resolver));
  if (response.type !== 'error') {
    for (const [name, value] of Object.entries(limit.headers)) response.headers.set(name, value);
  }
  return response;
}

async function runResolver(ctx: RouteContext, resolver: Resolver): Promise<Response> {
  try {
    return await resolver(ctx);
  } catch (error) {
    if (error instanceof ApiFailure)
      return fail(error.status, error.code, error.message, undefined, error.meta);
    throw error;
  }
}

/**
 * A gated msw handler; `template` is relative to /client/v4 and names the route in the request log.
 * A route that `verifiesToken` answers for the token itself (tokens/verify); every other route
 * refuses a token that is unknown, not active, for another account or without a permission it accepts.
 */
export function route(
  account: AccountCore,
  method: Method | 'ALL',
  template: string,
  resolver: Resolver,
  options: { verifiesToken?: boolean } = {},
): HttpHandler {
  const register = method === 'ALL' ? http.all : http[method.toLowerCase() as Lowercase<Method>];
  return register(`*${API_PREFIX}${template}`, async ({ request, params }) => {
    const url = new URL(request.url);
    const name = method === 'ALL' ? 'unmatched' : `${method} ${template}`;
    const ctx: RouteContext = { request, url, params: stringParams(params), account };
    const accepts =
      options.verifiesToken === true ? 'verifies-itself' : acceptedPermissions(method, template);
    const response = await serve(ctx, name, resolver, accepts);
    account.record({
      method: request.method,
      route: name,
      path: url.pathname.slice(API_PREFIX.length),
      status: response.type === 'error' ? 0 : response.status,
      at: new Date(account.now()).toISOString(),
    });
    return response;
  });
}

// `POST /client/v4/graphql`: Cloudflare's GraphQL Analytics API for the datasets of datasets.ts. The
// body is `{ query, variables }`; the answer `{ data, errors }`, `errors` null when there are none.
// The route checks its token itself, because a refusal is a GraphQL answer, not the v4 envelope: an
// unknown token is 401 `Unauthorized`, a token without Account Analytics Read or for another account
// `not authorized for that account` (code `authz`, HTTP 403 or, with `refusalStatus`, 200). A query
// that does not parse or names a field the schema lacks is 400.
import { type ExecutionResult, GraphQLError, graphql, parse, validate } from 'graphql';
import { type HttpHandler, HttpResponse } from 'msw';
import type { AccountCore } from '../account-core.ts';
import { presentedToken, type RouteContext, route } from '../gate.ts';
import { DATASETS } from './datasets.ts';
import { resolveDataset } from './query.ts';
import { analyticsSchema } from './schema.ts';
import type { AnalyticsStore } from './store.ts';

/** The permission group a token needs (the API's name for Account Analytics: Read). */
export const ANALYTICS_PERMISSION = 'Account Analytics Read';

const NOT_AUTHORIZED = 'not authorized for that account';

function graphQlAnswer(
  status: number,
  errors:
    | readonly { message: string; path?: readonly (string | number)[] | undefined; code?: string }[]
    | null,
  data: unknown = null,
): Response {
  const at = new Date().toISOString();
  return HttpResponse.json(
    {
      data,
      errors:
        errors === null || errors.length === 0
          ? null
          : errors.map((error) => ({
              message: error.message,
              path: error.path ?? null,
              extensions: { ...(error.code === undefined ? {} : { code: error.code }), timestamp: at },
            })),
    },
    { status },
  );
}

class Refused extends GraphQLError {}

function refusal(store: AnalyticsStore): Response {
  return graphQlAnswer(store.refusalStatus, [
    { message: NOT_AUTHORIZED, path: ['viewer', 'accounts', 0], code: 'authz' },
  ]);
}

async function answer(ctx: RouteContext, store: AnalyticsStore, account: AccountCore): Promise<Response> {
  const token = presentedToken(ctx);
  if (token === undefined || token.status !== 'active')
    return graphQlAnswer(401, [{ message: 'Unauthorized' }]);
  const granted = token.permissions;
  const allowed = granted === undefined || granted.includes(ANALYTICS_PERMISSION);
  if (!allowed || (token.accountId ?? account.accountId) !== account.accountId) return refusal(store);

  let body: { query?: unknown; variables?: unknown };
  try {
    body = (await ctx.request.json()) as typeof body;
  } catch {
    return graphQlAnswer(400, [{ message: 'error parsing args: the body is not JSON' }]);
  }
  if (typeof body?.query !== 'string')
    return graphQlAnswer(400, [{ message: 'error parsing args: no query' }]);
  let document: ReturnType<typeof parse>;
  try {
    document = parse(body.query);
  } catch (error) {
    return graphQlAnswer(400, [{ message: (error as Error).message }]);
  }
  const invalid = validate(analyticsSchema, document);
  if (invalid.length > 0)
    return graphQlAnswer(
      400,
      invalid.map((error) => ({ message: error.message })),
    );

  const datasets = Object.fromEntries(
    DATASETS.map((dataset) => [
      dataset.name,
      (
        args: Parameters<typeof resolveDataset>[2],
        _context: unknown,
        info: Parameters<typeof resolveDataset>[3],
      ) => resolveDataset(store, dataset, args, info),
    ]),
  );
  const rootValue = {
    viewer: () => ({
      budget: 1_000_000,
      accounts: ({ filter }: { filter: { accountTag?: string } }) => {
        if (filter.accountTag !== account.accountId) throw new Refused(NOT_AUTHORIZED);
        return [datasets];
      },
    }),
  };
  const result: ExecutionResult = await graphql({
    schema: analyticsSchema,
    source: body.query,
    rootValue,
    variableValues: (body.variables ?? {}) as Record<string, unknown>,
  });
  if (result.errors?.some((error) => error.originalError instanceof Refused)) return refusal(store);
  const errors = (result.errors ?? []).map((error) => ({ message: error.message, path: error.path }));
  // An error in any dataset ends the whole query (Cloudflare's querying basics): no partial data.
  return errors.length > 0 ? graphQlAnswer(400, errors) : graphQlAnswer(200, null, result.data);
}

export function analyticsRoutes(store: AnalyticsStore, account: AccountCore): HttpHandler[] {
  return [route(account, 'POST', '/graphql', (ctx) => answer(ctx, store, account), { verifiesToken: true })];
}

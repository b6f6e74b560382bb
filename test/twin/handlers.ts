// All msw handlers of the twin over one account: admin routes, every kind's routes, the token routes and
// the GraphQL Analytics API (not a kind: it reports on the Workers kind's activity), then a 7003 catch-all.
import type { HttpHandler } from 'msw';
import type { TwinAccount } from './account.ts';
import { analyticsRoutes } from './analytics/routes.ts';
import { fail } from './envelope.ts';
import { route } from './gate.ts';
import { TWIN_KIND_LIST } from './kinds.ts';
import { adminRoutes } from './routes-admin.ts';
import { tokenRoutes } from './routes-tokens.ts';

export function createTwinHandlers(account: TwinAccount): HttpHandler[] {
  return [
    ...adminRoutes(account),
    ...TWIN_KIND_LIST.flatMap((kind) => kind.routes(account.storeOf(kind), account)),
    ...tokenRoutes(account),
    ...analyticsRoutes(account.analytics, account),
    route(account, 'ALL', '/*', ({ url }) => fail(404, 7003, `No route for the URI: ${url.pathname}`)),
  ];
}

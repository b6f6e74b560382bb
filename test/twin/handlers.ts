// All msw handlers of the twin over one account: admin routes, the API, then a 7003 catch-all.
import type { HttpHandler } from 'msw';
import type { TwinAccount } from './account.ts';
import { d1Routes } from './d1/routes.ts';
import { fail } from './envelope.ts';
import { route } from './gate.ts';
import { kvRoutes } from './kv/routes.ts';
import { queuesRoutes } from './queues/routes.ts';
import { r2Routes } from './r2/routes.ts';
import { adminRoutes } from './routes-admin.ts';
import { tokenRoutes } from './routes-tokens.ts';
import { vectorizeRoutes } from './vectorize/routes.ts';
import { deployRoutes } from './workers/deploy-routes.ts';
import { containerRoutes, durableObjectRoutes } from './workers/durable-object-routes.ts';
import { workersRoutes } from './workers/routes.ts';

export function createTwinHandlers(account: TwinAccount): HttpHandler[] {
  return [
    ...adminRoutes(account),
    ...d1Routes(account),
    ...kvRoutes(account),
    ...r2Routes(account),
    ...workersRoutes(account),
    ...queuesRoutes(account),
    ...vectorizeRoutes(account),
    ...tokenRoutes(account),
    ...deployRoutes(account),
    ...durableObjectRoutes(account),
    ...containerRoutes(account),
    route(account, 'ALL', '/*', ({ url }) => fail(404, 7003, `No route for the URI: ${url.pathname}`)),
  ];
}

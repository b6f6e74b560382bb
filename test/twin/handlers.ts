// All msw handlers of the twin over one account: admin routes, the API, then a 7003 catch-all.
import type { HttpHandler } from 'msw';
import type { TwinAccount } from './account.ts';
import { fail } from './envelope.ts';
import { route } from './gate.ts';
import { adminRoutes } from './routes-admin.ts';
import { d1Routes } from './routes-d1.ts';
import { deployRoutes } from './routes-deploy.ts';
import { containerRoutes, durableObjectRoutes } from './routes-durable-objects.ts';
import { kvRoutes } from './routes-kv.ts';
import { queuesRoutes } from './routes-queues.ts';
import { r2Routes } from './routes-r2.ts';
import { tokenRoutes } from './routes-tokens.ts';
import { vectorizeRoutes } from './routes-vectorize.ts';
import { workersRoutes } from './routes-workers.ts';

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

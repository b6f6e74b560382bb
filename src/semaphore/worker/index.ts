// The semaphore Worker: HTTP routes in router.ts, one PoolObject (SQLite Durable Object) per pool.
import { type Env, handleRequest } from './router.ts';

export { PoolObject } from './pool-object.ts';

export default {
  fetch: (request: Request, env: Env): Promise<Response> => handleRequest(request, env),
};

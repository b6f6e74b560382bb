// The semaphore Worker: HTTP routes in router.ts, one PoolObject (SQLite Durable Object) per pool and
// one PoolRegistry that knows which pools exist.
import { type Env, handleRequest } from './router.ts';

export { PoolObject } from './pool-object.ts';
export { PoolRegistry } from './registry.ts';

export default {
  fetch: (request: Request, env: Env): Promise<Response> => handleRequest(request, env),
};

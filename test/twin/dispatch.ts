// A cheap pre-filter for the loopback server: msw tries its handlers one by one (URL parsing, path
// matching, cookies), which costs milliseconds per request over ~60 handlers. Each handler's own
// method and path (msw's `info`) are compiled once into a RegExp, so the server hands msw only the
// few handlers that can match; msw still does the real matching and runs the resolver.
import type { HttpHandler } from 'msw';

interface Matcher {
  method: string;
  path: RegExp;
}

const matchers = new WeakMap<HttpHandler, Matcher>();

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

// '*/client/v4/accounts/:account/d1/database' becomes ^/client/v4/accounts/[^/]+/d1/database$
function compile(handler: HttpHandler): Matcher {
  const { method, path } = handler.info;
  const pattern = String(path)
    .replace(/^\*/, '')
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : escapeRegExp(segment).replaceAll('*', '.*')))
    .join('/');
  return {
    method: typeof method === 'string' ? method.toUpperCase() : 'ALL',
    path: new RegExp(`^${pattern}$`),
  };
}

/** The handlers that may answer `method pathname`, in their original order. */
export function candidateHandlers(handlers: HttpHandler[], method: string, pathname: string): HttpHandler[] {
  return handlers.filter((handler) => {
    let matcher = matchers.get(handler);
    if (!matcher) {
      matcher = compile(handler);
      matchers.set(handler, matcher);
    }
    return (matcher.method === 'ALL' || matcher.method === method) && matcher.path.test(pathname);
  });
}

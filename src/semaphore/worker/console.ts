// The web console: its files are the Worker's static assets (src/semaphore/console/public), served
// through the Worker so every answer carries the security headers below, in deploys and locally
// alike. The page holds no pool data: it signs in with the token and reads /api like any client.
import { REPOSITORY_NAME } from '../holders.ts';

/** The `ASSETS` binding wrangler.jsonc declares. */
export interface AssetsBinding {
  fetch(request: Request): Promise<Response>;
}

/**
 * Nothing inline, nothing from elsewhere: scripts, styles and requests only from this origin, and
 * Trusted Types required, so even a mistaken `innerHTML = string` in the page throws instead of
 * parsing markup. No framing, no form posts, no <base>.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // A pull request link opened from the console must not tell GitHub the semaphore's address.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** The console answers GET and HEAD outside /api; /api and everything under it stays the protocol's. */
export function isConsoleRequest(request: Request, url: URL): boolean {
  const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
  return (request.method === 'GET' || request.method === 'HEAD') && !isApi;
}

export async function serveConsole(request: Request, assets: AssetsBinding): Promise<Response> {
  const asset = await assets.fetch(request);
  const response = new Response(asset.body, asset);
  for (const [name, value] of Object.entries(CONSOLE_HEADERS)) response.headers.set(name, value);
  return response;
}

/** `GET /api/console/config` (authenticated): what the page needs besides the protocol. */
export const CONSOLE_CONFIG_ROUTE = '/api/console/config';

export interface ConsoleConfig {
  /** `owner/name` on github.com: holders named `pr-<n>` link to its pull request n. */
  repository: string | null;
  /** Why `REPOSITORY` was ignored, for the page to show; absent when it is unset or valid. */
  repositoryProblem?: string;
}

export function consoleConfig(repository: string | undefined): ConsoleConfig {
  if (repository === undefined || repository === '') return { repository: null };
  if (REPOSITORY_NAME.test(repository)) return { repository };
  return {
    repository: null,
    repositoryProblem:
      "the Worker's REPOSITORY var is not owner/name (e.g. octo-org/web), so holders are not linked to pull requests",
  };
}

// The preview's address, acquire's `url` output: where the slot's Worker answers once the tenant's
// `wrangler deploy --config <the slot's config>` is done. The slot's copy of the wrangler config turns
// `workers_dev` on, so by default that is `https://<worker>.<account subdomain>.workers.dev` (the
// subdomain read once, read-only); a preview route pattern in the slot config (`{slot}.preview.
// example.com/*`) gives the host instead, with no request. The URL is built from checked parts only:
// the subdomain is the server's text and a Worker name may hold `_`, neither of which may end up in
// a link unless it is a hostname label. Having no URL never fails an acquire: the lease stands, and
// the answer says why in one sentence.
import { CloudflareCallError } from '../cloudflare/call-error.ts';
import type { CloudflareApi } from '../cloudflare/client.ts';
import { fillPlaceholders, slotNumberOf } from '../kinds/name-template.ts';
import type { WorkerTemplate } from '../kinds/workers/config.ts';
import { readWorkersSubdomain } from '../kinds/workers/subdomain.ts';
import { quoted } from '../text/log-text.ts';
import { oneLineError } from './error-line.ts';

/** The preview's URL, or why there is none; `warning`: a person should fix something (not a choice of config). */
export type PreviewUrlAnswer = { url: string } | { why: string; warning: boolean };

export interface PreviewUrlRequest {
  /** The slot's slug: `{slot}` in a route pattern, and its last number `{n}`. */
  slug: string;
  /** The slot's Workers, their names expanded for the slot (resourcesForSlot). */
  workers: readonly WorkerTemplate[];
  /** The run's paced client; asked only when the URL is on workers.dev. */
  api: () => Promise<CloudflareApi>;
  /** The slot config's preview route pattern, e.g. `{slot}.preview.example.com/*`; absent: workers.dev. */
  routePattern?: string | undefined;
}

/** One DNS label as a URL's host may hold it: 1-63 of a-z, 0-9 and '-', not starting or ending with '-'. */
const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A route's path after its host, once the trailing `/*` is dropped: plain path characters only. */
const ROUTE_PATH = /^(?:\/[A-Za-z0-9._~-]+)*\/?$/;

/** Why `host` is not a plain hostname (labels of HOST_LABEL, at least two, 253 characters at most), or undefined. */
function hostProblem(host: string): string | undefined {
  const labels = host.split('.');
  if (host.length > 253 || labels.length < 2 || !labels.every((label) => HOST_LABEL.test(label)))
    return 'is not a plain hostname (labels of a-z, 0-9 and -, separated by dots; no scheme, port or wildcard)';
  return undefined;
}

/**
 * Why a preview route pattern cannot give each slot an address, or undefined: its host must name
 * `{slot}` or `{n}` (else every slot shares one address, as the slot config's own check says) and,
 * expanded, be a plain hostname.
 */
export function routePatternProblem(pattern: string): string | undefined {
  if (!/\{(?:slot|n)\}/.test(pattern.split('/')[0] ?? ''))
    return `route pattern ${quoted(pattern)} must hold {slot} or {n} in its host, so that every slot has its own address`;
  // A slug of a letter and a digit stands in for every slot: the pattern's own part must hold up.
  const url = routeUrl(pattern, 'a1');
  return 'url' in url ? undefined : url.why;
}

function routeUrl(pattern: string, slug: string): { url: string } | { why: string } {
  const number = slotNumberOf(slug);
  if (pattern.includes('{n}') && number === undefined)
    return { why: `route pattern ${quoted(pattern)} uses {n}, but the slot '${slug}' has no number in it` };
  const expanded = fillPlaceholders(pattern, slug, number);
  const slash = expanded.indexOf('/');
  const host = slash === -1 ? expanded : expanded.slice(0, slash);
  const path = (slash === -1 ? '' : expanded.slice(slash)).replace(/\/\*$/, '');
  const problem = hostProblem(host);
  if (problem !== undefined)
    return { why: `route pattern ${quoted(pattern)}: its host ${quoted(host)} ${problem}` };
  if (!ROUTE_PATH.test(path))
    return {
      why: `route pattern ${quoted(pattern)}: its path ${quoted(path)} may hold only a-z, 0-9, . _ ~ - and /, with /* at its end only`,
    };
  return { url: `https://${host}${path}` };
}

/**
 * The Worker the deploy puts in the slot: the slot config's only Worker, or, of several, the one with
 * a `binding` (the one the app's wrangler config deploys as: its top-level `name` is claimed by it).
 */
function deployedWorker(
  workers: readonly WorkerTemplate[],
): WorkerTemplate | { why: string; warning: boolean } {
  const [only] = workers;
  if (workers.length === 1 && only !== undefined) return only;
  if (workers.length === 0)
    return {
      why: 'the slot config names no Worker (resources.workers), so the preview has no address of its own',
      warning: false,
    };
  const bound = workers.filter((worker) => worker.binding !== undefined);
  const [chosen] = bound;
  if (bound.length === 1 && chosen !== undefined) return chosen;
  return {
    why: `the slot config names ${workers.length} Workers and ${bound.length === 0 ? 'none' : bound.length} with a binding, so which one the deploy's URL is cannot be told; give the deployed one binding: <its name in the wrangler config>`,
    warning: false,
  };
}

/** Why the subdomain read failed, one sentence with its fix. */
function subdomainReadProblem(error: unknown): string {
  return error instanceof CloudflareCallError && error.codes.includes(10007)
    ? 'the account has no workers.dev subdomain (Cloudflare error 10007): register one in the dashboard (Workers & Pages) to give previews an address'
    : error instanceof CloudflareCallError && error.status === 403
      ? "the token may not read the account's workers.dev subdomain (403): give it Workers Scripts Read or Edit"
      : `the account's workers.dev subdomain could not be read (${oneLineError(error)})`;
}

/** The preview's address after the deploy: the route pattern's host, else the Worker's workers.dev one. */
export async function previewUrl(request: PreviewUrlRequest): Promise<PreviewUrlAnswer> {
  if (request.routePattern !== undefined) {
    const problem = routePatternProblem(request.routePattern);
    const url = problem === undefined ? routeUrl(request.routePattern, request.slug) : { why: problem };
    return 'url' in url ? url : { why: url.why, warning: true };
  }
  const worker = deployedWorker(request.workers);
  if ('why' in worker) return worker;
  // Checked before the read: a name workers.dev cannot serve costs no request.
  if (!HOST_LABEL.test(worker.name))
    return {
      why: `the Worker's name ${quoted(worker.name)} is not a hostname label (a-z, 0-9 and - only, 63 at most), so workers.dev cannot serve it by that name; rename the template`,
      warning: true,
    };
  let subdomain: string;
  try {
    subdomain = await readWorkersSubdomain(await request.api());
  } catch (error) {
    return { why: subdomainReadProblem(error), warning: true };
  }
  if (!HOST_LABEL.test(subdomain))
    return {
      why: `Cloudflare answered the workers.dev subdomain ${quoted(subdomain)}, which is not a hostname label`,
      warning: true,
    };
  return { url: `https://${worker.name}.${subdomain}.workers.dev` };
}

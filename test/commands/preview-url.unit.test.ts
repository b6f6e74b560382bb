// The preview's address (acquire's `url`): the slot Worker on the account's workers.dev subdomain,
// read once through the paced client from the twin, or a preview route pattern's host; never a URL
// from unchecked parts.
import { describe, expect, it } from 'vitest';
import { type PreviewUrlRequest, previewUrl, routePatternProblem } from '../../src/commands/preview-url.ts';
import { inProcessTwin, newRun, routesServed } from '../cloudflare/in-process-twin.ts';

const SUBDOMAIN_ROUTE = 'GET /accounts/:account/workers/subdomain';

function setUp(answer?: (request: Request) => Response | undefined) {
  const env = inProcessTwin();
  const served: typeof fetch = async (input, init) => {
    const own = answer?.(new Request(input, init));
    return own ?? env.fetch(input, init);
  };
  const run = newRun({ ...env, fetch: served });
  const request = (fields: Partial<PreviewUrlRequest> = {}): PreviewUrlRequest => ({
    slug: 'preview-3',
    workers: [{ name: 'shop-preview-3', durableObjects: 'park', crons: 'drop' }],
    api: async () => run.api,
    ...fields,
  });
  return { env, run, request };
}

/** The twin's envelope with a subdomain of our choosing, for an answer the twin would never give. */
const answering = (subdomain: string) => (request: Request) =>
  request.url.endsWith('/workers/subdomain')
    ? Response.json({ success: true, errors: [], messages: [], result: { subdomain } })
    : undefined;

describe('previewUrl on workers.dev', () => {
  it("is the slot Worker's name on the account's subdomain, read with one request", async () => {
    const { env, run, request } = setUp();
    env.twin.resetRequests();
    expect(await previewUrl(request())).toEqual({
      url: 'https://shop-preview-3.preview-gc-twin.workers.dev',
    });
    expect(routesServed(env)).toEqual([`${SUBDOMAIN_ROUTE} -> 200`]);
    expect(run.pacer.usage().requests).toBe(1);
  });

  it('takes, of several Workers, the one with a binding (the one the wrangler config deploys as)', async () => {
    const { request } = setUp();
    const workers = [
      { name: 'jobs-preview-3', durableObjects: 'park' as const, crons: 'drop' as const },
      { name: 'shop-preview-3', durableObjects: 'park' as const, crons: 'drop' as const, binding: 'shop' },
    ];
    expect(await previewUrl(request({ workers }))).toEqual({
      url: 'https://shop-preview-3.preview-gc-twin.workers.dev',
    });
  });

  it('has none, plainly and with no request, when the slot config names no Worker or cannot tell which', async () => {
    const { env, request } = setUp();
    env.twin.resetRequests();
    expect(await previewUrl(request({ workers: [] }))).toEqual({
      why: 'the slot config names no Worker (resources.workers), so the preview has no address of its own',
      warning: false,
    });
    const two = [
      { name: 'a-preview-3', durableObjects: 'park' as const, crons: 'drop' as const },
      { name: 'b-preview-3', durableObjects: 'park' as const, crons: 'drop' as const },
    ];
    expect(await previewUrl(request({ workers: two }))).toMatchObject({
      why: expect.stringMatching(/^the slot config names 2 Workers and none with a binding/),
      warning: false,
    });
    expect(routesServed(env)).toEqual([]);
  });

  it('has none when the account has no workers.dev subdomain (10007) or the token may not read it (403)', async () => {
    const { env, request } = setUp();
    env.twin.faults.add({
      route: SUBDOMAIN_ROUTE,
      status: 404,
      code: 10007,
      message: 'This subdomain does not exist',
      times: 1,
    });
    expect(await previewUrl(request())).toEqual({
      why: 'the account has no workers.dev subdomain (Cloudflare error 10007): register one in the dashboard (Workers & Pages) to give previews an address',
      warning: true,
    });
    env.twin.faults.add({ route: SUBDOMAIN_ROUTE, status: 403, code: 10000, times: 1 });
    expect(await previewUrl(request())).toEqual({
      why: "the token may not read the account's workers.dev subdomain (403): give it Workers Scripts Read or Edit",
      warning: true,
    });
  });

  it('builds no URL from a subdomain that is not a hostname label, and shows it quoted', async () => {
    for (const subdomain of ['evil.com/x?', 'UPPER', '-dash', 'a'.repeat(64), 'x\n::error::y']) {
      const { request } = setUp(answering(subdomain));
      const answer = await previewUrl(request());
      expect(answer).toMatchObject({ warning: true, why: expect.stringContaining('not a hostname label') });
      expect(JSON.stringify(answer)).not.toContain('workers.dev"');
      expect('why' in answer && answer.why).not.toContain('\n');
    }
  });

  it("builds no URL from a Worker name workers.dev cannot serve (an '_'), and asks nothing", async () => {
    const { env, request } = setUp();
    env.twin.resetRequests();
    const answer = await previewUrl(
      request({ workers: [{ name: 'shop_preview-3', durableObjects: 'park', crons: 'drop' }] }),
    );
    expect(answer).toEqual({
      why: `the Worker's name "shop_preview-3" is not a hostname label (a-z, 0-9 and - only, 63 at most), so workers.dev cannot serve it by that name; rename the template`,
      warning: true,
    });
    expect(routesServed(env)).toEqual([]);
  });
});

describe('previewUrl with a preview route pattern', () => {
  it("is https:// and the pattern's host for the slot, its trailing /* dropped, with no request", async () => {
    const { env, request } = setUp();
    env.twin.resetRequests();
    expect(await previewUrl(request({ routePattern: '{slot}.preview.example.com/*' }))).toEqual({
      url: 'https://preview-3.preview.example.com',
    });
    expect(await previewUrl(request({ routePattern: 'shop-{slot}.example.com/app/*' }))).toEqual({
      url: 'https://shop-preview-3.example.com/app',
    });
    expect(await previewUrl(request({ routePattern: 'shop-{n}.preview.example.com/*' }))).toEqual({
      url: 'https://shop-3.preview.example.com',
    });
    // The Workers do not matter: the route gives the address.
    expect(await previewUrl(request({ workers: [], routePattern: '{slot}.example.com' }))).toEqual({
      url: 'https://preview-3.example.com',
    });
    expect(routesServed(env)).toEqual([]);
  });

  it('refuses a pattern whose host is not a plain hostname, or that gives every slot one address', async () => {
    const refused = [
      '*.{slot}.example.com/*',
      'https://{slot}.example.com/*',
      '{slot}.example.com:8443/*',
      '{slot}_x.example.com/*',
      '{slot}',
      '{slot}.{x}.example.com/*',
      '{slot}.exa mple.com/*',
      '{slot}.example.com/a*b/*',
      '{slot}.example.com/?q=1',
    ];
    for (const pattern of refused) {
      expect(routePatternProblem(pattern), pattern).toMatch(
        /is not a plain hostname|may hold only|must hold {slot} or {n}/,
      );
      const { request } = setUp();
      expect(await previewUrl(request({ routePattern: pattern })), pattern).toMatchObject({ warning: true });
    }
    for (const pattern of ['preview.example.com/*', 'preview.example.com/{slot}/*'])
      expect(routePatternProblem(pattern)).toBe(
        `route pattern "${pattern}" must hold {slot} or {n} in its host, so that every slot has its own address`,
      );
    const { request } = setUp();
    expect(await previewUrl(request({ slug: 'staging', routePattern: 'app-{n}.example.com/*' }))).toEqual({
      why: `route pattern "app-{n}.example.com/*" uses {n}, but the slot 'staging' has no number in it`,
      warning: true,
    });
    expect(routePatternProblem('{slot}.preview.example.com/*')).toBeUndefined();
    expect(routePatternProblem('{slot}.Example.com/*')).toMatch(/is not a plain hostname/);
  });
});

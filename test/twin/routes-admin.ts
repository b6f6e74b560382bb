// Admin routes under /__twin/: no token, not rate limited, not logged.
import { type HttpHandler, HttpResponse, http } from 'msw';
import { z } from 'zod';
import type { TwinAccount } from './account.ts';
import { faultRuleSchema } from './faults.ts';
import { describeIssues, twinSeedSchema } from './schema.ts';

export const ADMIN_PREFIX = '/__twin';

const rateLimitSchema = z.strictObject({
  requests: z.number().int().positive(),
  windowMs: z.number().int().positive(),
});

async function parseBody<T>(request: Request, schema: z.ZodType<T>, where: string): Promise<T | Response> {
  let json: unknown;
  try {
    json = await request.json();
  } catch {
    return HttpResponse.json({ error: `${where}: the body is not JSON` }, { status: 400 });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    return HttpResponse.json({ error: describeIssues(parsed.error, where) }, { status: 400 });
  return parsed.data;
}

const asArray = (value: unknown) => (Array.isArray(value) ? value : [value]);

export function countsByRoute(account: TwinAccount): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of account.requests()) counts[r.route] = (counts[r.route] ?? 0) + 1;
  return counts;
}

export function adminRoutes(account: TwinAccount): HttpHandler[] {
  const path = (p: string) => `*${ADMIN_PREFIX}${p}`;
  return [
    http.get(path('/state'), () => HttpResponse.json(account.state())),
    http.get(path('/requests'), () =>
      HttpResponse.json({ requests: account.requests(), counts: countsByRoute(account) }),
    ),
    http.delete(path('/requests'), () => {
      account.resetRequests();
      return HttpResponse.json({ ok: true });
    }),
    http.get(path('/faults'), () => HttpResponse.json({ faults: account.faults.list() })),
    http.post(path('/faults'), async ({ request }) => {
      // One rule or an array of rules; parsed as an array so errors name the rule's index and field.
      const rules = await parseBody(request, z.preprocess(asArray, z.array(faultRuleSchema)), 'fault rules');
      if (rules instanceof Response) return rules;
      for (const rule of rules) account.faults.add(rule);
      return HttpResponse.json({ faults: account.faults.list() });
    }),
    http.delete(path('/faults'), () => {
      account.faults.clear();
      return HttpResponse.json({ faults: [] });
    }),
    http.post(path('/seed'), async ({ request }) => {
      const seed = await parseBody(request, twinSeedSchema, 'seed');
      if (seed instanceof Response) return seed;
      try {
        account.seed(seed);
      } catch (error) {
        return HttpResponse.json({ error: `seed: ${(error as Error).message}` }, { status: 400 });
      }
      return HttpResponse.json(account.state());
    }),
    http.put(path('/rate-limit'), async ({ request }) => {
      const limit = await parseBody(request, rateLimitSchema, 'rate limit');
      if (limit instanceof Response) return limit;
      account.limiter.configure(limit);
      return HttpResponse.json({ rateLimit: account.limiter.state() });
    }),
    http.delete(path('/rate-limit'), () => {
      account.limiter.reset();
      return HttpResponse.json({ rateLimit: account.limiter.state() });
    }),
  ];
}

// acquire's `url` through the bundled action, against the real semaphore (workerd), the Cloudflare
// twin and the GitHub double: the slot Worker's workers.dev address for the e2e job, shown in the
// summary and the sticky comment; and, when the account's subdomain cannot be read, an acquire that
// still hands the slot over with the url empty and the reason in the summary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { type ActionStack, actionInputs, expectNoLeaks, startActionStack } from '../support/action-stack.ts';
import { slotSeed } from '../support/twin-slot.ts';

const TOKENS = {
  semaphore: 'sem-url-6b1f0d93c2',
  cloudflare: 'cf-url-0a7e5c21d4',
  github: 'ghs-url-93d2b7e40f',
};
const SUBDOMAIN_ROUTE = 'GET /accounts/:account/workers/subdomain';

let stack: ActionStack;

beforeAll(async () => {
  stack = await startActionStack(TOKENS);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

async function acquire(pool: string, pr: number): Promise<ActionRunResult> {
  const result = await runAction(
    actionInputs(stack, pool, {
      command: 'acquire',
      'pull-request': String(pr),
      comment: 'true',
      'github-token': TOKENS.github,
    }),
    { env: { GITHUB_API_URL: stack.github.url } },
  );
  expectNoLeaks(result, Object.values(TOKENS));
  return result;
}

async function addSlot(pool: string, slug: string): Promise<void> {
  stack.twin.seed(slotSeed(stack.config, [slug], [slug]));
  await stack.client.add({ type: pool, slug });
}

const reportOf = (result: ActionRunResult): RunReport => JSON.parse(result.outputs.report ?? '{}');

describe('acquire: the url output', () => {
  it("is the slot Worker on the account's workers.dev subdomain, linked in the summary and the comment", async () => {
    const pool = 'url-ok';
    await addSlot(pool, 'url-1');
    stack.twin.resetRequests();

    const run = await acquire(pool, 301);
    expect(run.exitCode, run.stdout).toBe(0);
    const subdomain = stack.twin.account.workers.subdomain;
    const url = `https://rel-url-1.${subdomain}.workers.dev`;
    expect(run.outputs.url).toBe(url);
    expect(reportOf(run).acquired?.url).toBe(url);
    const link = `[\`${url}\`](${url})`;
    expect(run.summary).toContain(`| Preview (\`url\`) | ${link} once the deploy is done |`);
    expect(stack.github.comments.get(301)?.[0]?.body).toContain(
      `Once deployed, the preview answers at ${link}.`,
    );
    // One read of the subdomain, and nothing written for it.
    const reads = stack.twin.requests().filter((request) => request.route === SUBDOMAIN_ROUTE);
    expect(reads.map((request) => `${request.method} ${request.status}`)).toEqual(['GET 200']);
  });

  it('is empty when the subdomain read is refused or finds none; the slot is handed over all the same', async () => {
    const pool = 'url-refused';
    await addSlot(pool, 'url-2');
    await addSlot(pool, 'url-3');
    try {
      stack.twin.faults.add({
        route: SUBDOMAIN_ROUTE,
        status: 403,
        code: 10000,
        message: 'Authentication error',
      });
      const refused = await acquire(pool, 302);
      expect(refused.exitCode, refused.stdout).toBe(0);
      const slug = refused.outputs.slot ?? '';
      expect(['url-2', 'url-3']).toContain(slug);
      expect(refused.outputs.url).toBe('');
      expect((await stack.client.find(pool, slug)).holder).toBe('pr-302');
      const why =
        "the token may not read the account's workers.dev subdomain (403): give it Workers Scripts Read or Edit";
      expect(refused.summary).toContain(`| Preview (\`url\`) | none: ${why} |`);
      expect(refused.stdout).toContain(
        `::warning title=preview-gc::The preview has no url: ${why}. The slot is handed over all the same.`,
      );
      expect(stack.github.comments.get(302)?.[0]?.body).not.toContain('preview answers');

      stack.twin.faults.clear();
      stack.twin.faults.add({
        route: SUBDOMAIN_ROUTE,
        status: 404,
        code: 10007,
        message: 'This subdomain does not exist',
      });
      const none = await acquire(pool, 303);
      expect(none.exitCode, none.stdout).toBe(0);
      expect(none.outputs.slot).not.toBe(slug);
      expect(none.outputs.url).toBe('');
      expect(none.summary).toContain(
        '| Preview (`url`) | none: the account has no workers.dev subdomain (Cloudflare error 10007): register one in the dashboard (Workers &amp; Pages) to give previews an address |',
      );
    } finally {
      stack.twin.faults.clear();
    }
  });
});

// A pull request's token against the fair queue (issue 31, found by an attacker's read): it may not
// name a freed slot (acquire-specific) to take it ahead of the first in line, and a waiter that asks
// only for a slot that is never free (allowedSlugs) does not keep a free one from the waiters behind.
// The real Worker in workerd, with a loopback OIDC issuer for two repositories sharing the pools.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { type OidcIssuer, type PullRequestClaims, startOidcIssuer } from '../support/oidc-issuer.ts';
import { raw } from './helpers.ts';

const AUDIENCE = 'preview-gc';
const HOUR = 3_600_000;
const SHOP_6: PullRequestClaims = { repository: 'acme/shop', pullRequest: 6 };
const BLOG_6: PullRequestClaims = { repository: 'acme/blog', pullRequest: 6 };
const holderOf = (job: PullRequestClaims) => `${job.repository}/pr-${job.pullRequest}`;

let semaphore: LocalSemaphore;
let issuer: OidcIssuer;
let admin: SemaphoreClient;

beforeAll(async () => {
  issuer = await startOidcIssuer();
  semaphore = await startLocalSemaphore({
    oidc: { issuer: issuer.url, repositories: ['acme/shop', 'acme/blog'] },
    tenancy: { SEMAPHORE_POOL_REPOSITORIES: 'jump=acme/shop,acme/blog;hol=acme/shop,acme/blog' },
  });
  admin = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
}, 60_000);

afterAll(async () => {
  await semaphore?.stop();
  await issuer?.close();
});

async function asJob(job: PullRequestClaims, method: string, path: string, body?: unknown) {
  const token = await issuer.token(job, AUDIENCE);
  return raw(semaphore, method, path, {
    authorization: `Bearer ${token}`,
    ...(body === undefined ? {} : { body }),
  });
}

describe("a pull request's token and the queue", () => {
  it('cannot take a freed slot ahead of a waiter with acquire-specific', async () => {
    await admin.add({ type: 'jump', slug: 'jump-1' });
    const held: Lease = await admin.acquire({ type: 'jump', holder: 'pr-1', leaseMs: HOUR });
    const waiting = await asJob(BLOG_6, 'POST', '/api/resources/acquire', {
      type: 'jump',
      holder: holderOf(BLOG_6),
      leaseMs: HOUR,
      wait: true,
    });
    expect(waiting.status).toBe(409);
    await admin.release({ type: 'jump', slug: held.slug, leaseId: held.leaseId, clean: true });
    const cut = await asJob(SHOP_6, 'POST', '/api/resources/acquire-specific', {
      type: 'jump',
      slug: 'jump-1',
      holder: holderOf(SHOP_6),
      leaseMs: HOUR,
    });
    // The first in line is acme/blog/pr-6: acme/shop/pr-6 must not get the slot.
    expect((cut.body as Lease | null)?.holder).not.toBe(holderOf(SHOP_6));
  });

  it('cannot hold the whole pool by waiting first for a slot that is never free (allowedSlugs)', async () => {
    await admin.add({ type: 'hol', slug: 'hol-1' });
    await admin.add({ type: 'hol', slug: 'hol-2' });
    await admin.acquire({ type: 'hol', holder: 'pr-1', leaseMs: HOUR, allowedSlugs: ['hol-1'] });
    const squatter = await asJob(SHOP_6, 'POST', '/api/resources/acquire', {
      type: 'hol',
      holder: holderOf(SHOP_6),
      leaseMs: HOUR,
      wait: true,
      allowedSlugs: ['hol-1'],
    });
    expect(squatter.status).toBe(409);
    // hol-2 is free: the next waiter, and gc, should get it.
    const next = await asJob(BLOG_6, 'POST', '/api/resources/acquire', {
      type: 'hol',
      holder: holderOf(BLOG_6),
      leaseMs: HOUR,
      wait: true,
    });
    expect({ status: next.status, body: next.body }).toMatchObject({ status: 200 });
  });
});

// Tenants are isolated at the lease, through the real Worker's HTTP routes in workerd, with OIDC tokens
// of two repositories from a loopback issuer: a pull request cannot say its own slot is clean, cannot
// reach another repository's pull request of the same number (by reuseHeld, requestId, renew, release or
// a re-created repository of the same name), leases only in the pools its repository is listed for, and
// is held to the operator's lease length and count. Each refusal names the limit and how to change it.
// Nor can it pass the fair queue: not by naming a freed slot (acquire-specific), nor by waiting first
// for a slot that is never free (allowedSlugs) to keep a free one from the waiters behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { type OidcIssuer, type PullRequestClaims, startOidcIssuer } from '../support/oidc-issuer.ts';
import { expectError, raw } from './helpers.ts';

const AUDIENCE = 'preview-gc';
const HOUR = 3_600_000;
const SHOP_6: PullRequestClaims = { repository: 'acme/shop', pullRequest: 6 };
const BLOG_6: PullRequestClaims = { repository: 'acme/blog', pullRequest: 6 };

let semaphore: LocalSemaphore;
let issuer: OidcIssuer;
let admin: SemaphoreClient;

beforeAll(async () => {
  issuer = await startOidcIssuer();
  semaphore = await startLocalSemaphore({
    oidc: { issuer: issuer.url, repositories: ['acme/shop', 'acme/blog'] },
    tenancy: {
      SEMAPHORE_POOL_REPOSITORIES:
        'clean=acme/shop;cross=acme/shop,acme/blog;shop-only=acme/shop;limits=acme/shop;recreated=acme/shop;waiting=acme/shop,acme/blog;jump=acme/shop,acme/blog;hol=acme/shop,acme/blog',
      SEMAPHORE_PR_LEASE_MAX_MINUTES: '120',
    },
  });
  admin = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
}, 60_000);

afterAll(async () => {
  await semaphore?.stop();
  await issuer?.close();
});

/** A pool of free slots `<pool>-1` … `<pool>-<count>`. */
async function poolOf(type: string, count: number): Promise<void> {
  for (let n = 1; n <= count; n += 1) await admin.add({ type, slug: `${type}-${n}` });
}

/** A call as `job`'s deploy job, signed in with its OIDC token. */
async function asJob(job: PullRequestClaims, method: string, path: string, body?: unknown) {
  const token = await issuer.token(job, AUDIENCE);
  return raw(semaphore, method, path, {
    authorization: `Bearer ${token}`,
    ...(body === undefined ? {} : { body }),
  });
}

const holderOf = (job: PullRequestClaims) => `${job.repository}/pr-${job.pullRequest}`;

describe("a pull request's deploy job", () => {
  it('may not release its slot clean: refused (403) saying only an erase may, and the slot stays dirty', async () => {
    await poolOf('clean', 1);
    const acquired = await asJob(SHOP_6, 'POST', '/api/resources/acquire', {
      type: 'clean',
      holder: holderOf(SHOP_6),
      leaseMs: HOUR,
    });
    const lease = acquired.body as Lease;
    const release = { type: 'clean', slug: lease.slug, leaseId: lease.leaseId };
    const refused = expectError(
      await asJob(SHOP_6, 'POST', '/api/resources/release', { ...release, clean: true }),
      403,
      'forbidden',
    );
    expect(refused.message).toContain('may not release a slot clean: only an erase');
    expect(await admin.find('clean', lease.slug)).toMatchObject({ holder: 'acme/shop/pr-6', dirty: true });
    expect((await asJob(SHOP_6, 'POST', '/api/resources/release', release)).body).toMatchObject({
      released: true,
      dirty: true,
    });
    expect(await admin.find('clean', lease.slug)).toMatchObject({ leaseState: 'available', dirty: true });
  });

  it("of acme/blog never reaches acme/shop's pull request with the same number", async () => {
    await poolOf('cross', 2);
    const shop = (
      await asJob(SHOP_6, 'POST', '/api/resources/acquire', {
        type: 'cross',
        holder: holderOf(SHOP_6),
        leaseMs: HOUR,
        requestId: 'shop-6-deploy-1',
      })
    ).body as Lease;
    expect(shop.holder).toBe('acme/shop/pr-6');
    // Its token leases only as acme/blog/pr-6: the shop's holder is refused outright.
    expectError(
      await asJob(BLOG_6, 'POST', '/api/resources/acquire', {
        type: 'cross',
        holder: holderOf(SHOP_6),
        leaseMs: HOUR,
        reuseHeld: true,
      }),
      403,
      'forbidden',
    );
    // The same requestId from the other repository learns nothing of the shop's lease.
    const sameId = await asJob(BLOG_6, 'POST', '/api/resources/acquire', {
      type: 'cross',
      holder: holderOf(BLOG_6),
      leaseMs: HOUR,
      requestId: 'shop-6-deploy-1',
    });
    expectError(sameId, 409, 'request_id_taken');
    expect(JSON.stringify(sameId.body)).not.toContain(shop.leaseId);
    // reuseHeld gives the blog its own slot, never the shop's.
    const blog = (
      await asJob(BLOG_6, 'POST', '/api/resources/acquire', {
        type: 'cross',
        holder: holderOf(BLOG_6),
        leaseMs: HOUR,
        reuseHeld: true,
      })
    ).body as Lease;
    expect(blog).toMatchObject({ holder: 'acme/blog/pr-6', reused: false });
    expect(blog.slug).not.toBe(shop.slug);
    const onShop = { type: 'cross', slug: shop.slug, leaseId: shop.leaseId };
    expectError(await asJob(BLOG_6, 'POST', '/api/resources/release', onShop), 403, 'forbidden');
    expectError(
      await asJob(BLOG_6, 'POST', '/api/resources/renew', { ...onShop, leaseMs: HOUR }),
      403,
      'forbidden',
    );
    expect(await admin.find('cross', shop.slug)).toMatchObject({ holder: 'acme/shop/pr-6', leaseVersion: 1 });
  });

  it('of a repository created again under the same name (another repository_id) is another tenant', async () => {
    await poolOf('recreated', 2);
    const first = (
      await asJob(SHOP_6, 'POST', '/api/resources/acquire', {
        type: 'recreated',
        holder: holderOf(SHOP_6),
        leaseMs: HOUR,
      })
    ).body as Lease;
    const reborn: PullRequestClaims = { ...SHOP_6, repositoryId: '999' };
    const onFirst = { type: 'recreated', slug: first.slug, leaseId: first.leaseId };
    expectError(await asJob(reborn, 'POST', '/api/resources/release', onFirst), 403, 'forbidden');
    const reuse = await asJob(reborn, 'POST', '/api/resources/acquire', {
      type: 'recreated',
      holder: holderOf(SHOP_6),
      leaseMs: HOUR,
      reuseHeld: true,
    });
    // Never the first tenant's lease: the one-slot limit of the holder name refuses a second one instead.
    expectError(reuse, 409, 'limit_reached');
    expect(await admin.find('recreated', first.slug)).toMatchObject({
      holder: 'acme/shop/pr-6',
      leaseVersion: 1,
    });
  });

  it('leaves only its own place in the queue: not another holder, not its name reborn in another repository', async () => {
    await poolOf('waiting', 1);
    await admin.acquire({ type: 'waiting', holder: 'pr-1', leaseMs: HOUR });
    const wait = { type: 'waiting', holder: holderOf(SHOP_6), leaseMs: HOUR, wait: true };
    expectError(await asJob(SHOP_6, 'POST', '/api/resources/acquire', wait), 409, 'none_available');
    const leave = { type: 'waiting', holder: holderOf(SHOP_6) };
    expectError(await asJob(BLOG_6, 'POST', '/api/queue/leave', leave), 403, 'forbidden');
    const reborn: PullRequestClaims = { ...SHOP_6, repositoryId: '999' };
    const other = expectError(await asJob(reborn, 'POST', '/api/queue/leave', leave), 403, 'forbidden');
    expect(other.message).toContain('joined for another repository');
    expect((await admin.list('waiting')).queue?.waiters.map((waiter) => waiter.holder)).toEqual([
      'acme/shop/pr-6',
    ]);
    expect((await asJob(SHOP_6, 'POST', '/api/queue/leave', leave)).body).toEqual({ left: true });
    expect((await admin.list('waiting')).queue?.length).toBe(0);
  });

  it('of a repository a pool does not list may not lease there, told which setting lists it', async () => {
    await poolOf('shop-only', 1);
    const refused = expectError(
      await asJob(BLOG_6, 'POST', '/api/resources/acquire', {
        type: 'shop-only',
        holder: holderOf(BLOG_6),
        leaseMs: HOUR,
      }),
      403,
      'forbidden',
    );
    expect(refused.message).toContain('SEMAPHORE_POOL_REPOSITORIES does not list acme/blog');
    // A pool the setting does not name takes no pull request's lease at all.
    await poolOf('unlisted', 1);
    expectError(
      await asJob(SHOP_6, 'POST', '/api/resources/acquire', {
        type: 'unlisted',
        holder: holderOf(SHOP_6),
        leaseMs: HOUR,
      }),
      403,
      'forbidden',
    );
    expect(await admin.find('shop-only', 'shop-only-1')).toMatchObject({ holder: null, generation: 0 });
  });

  it('is held to one lease per pool and to the longest lease, each refusal naming its setting', async () => {
    await poolOf('limits', 3);
    const tooLong = expectError(
      await asJob(SHOP_6, 'POST', '/api/resources/acquire', {
        type: 'limits',
        holder: holderOf(SHOP_6),
        leaseMs: 3 * HOUR,
      }),
      403,
      'forbidden',
    );
    expect(tooLong.message).toContain('at most 120 minutes (SEMAPHORE_PR_LEASE_MAX_MINUTES');
    const lease = (
      await asJob(SHOP_6, 'POST', '/api/resources/acquire', {
        type: 'limits',
        holder: holderOf(SHOP_6),
        leaseMs: HOUR,
      })
    ).body as Lease;
    const second = expectError(
      await asJob(SHOP_6, 'POST', '/api/resources/acquire-specific', {
        type: 'limits',
        slug: 'limits-3',
        holder: holderOf(SHOP_6),
        leaseMs: HOUR,
      }),
      409,
      'limit_reached',
    );
    expect(second.message).toContain('SEMAPHORE_PR_LEASES_PER_POOL');
    const renewTooLong = await asJob(SHOP_6, 'POST', '/api/resources/renew', {
      type: 'limits',
      slug: lease.slug,
      leaseId: lease.leaseId,
      leaseMs: 3 * HOUR,
    });
    expectError(renewTooLong, 403, 'forbidden');
    const slots = await admin.list('limits');
    expect(slots.resources.filter((slot) => slot.holder === 'acme/shop/pr-6')).toHaveLength(1);
    expect(await admin.find('limits', lease.slug)).toMatchObject({ leaseVersion: 1 });
  });
});

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

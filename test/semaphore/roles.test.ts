// Every token has the least role that works, against the real Worker in workerd: the read token
// changes nothing, the gc token leases only as gc and forces only on the full condition of what it
// read, and a deploy job's OIDC token (from a loopback issuer with its own keys) acts only as its own
// pull request. Each refusal says who was refused and what that role may do (403), or which check a
// token failed (401).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { type OidcIssuer, startOidcIssuer, type TokenOptions } from '../support/oidc-issuer.ts';
import { expectError, freshPool, type RawAnswer, raw } from './helpers.ts';

const GC_TOKEN = 'roles-gc-token-3b71d0';
const READ_TOKEN = 'roles-read-token-94ce2a';
const REPOSITORY = 'acme/shop';
const AUDIENCE = 'preview-gc';
const HOUR = 3_600_000;

let semaphore: LocalSemaphore;
let issuer: OidcIssuer;
let admin: SemaphoreClient;

beforeAll(async () => {
  issuer = await startOidcIssuer();
  semaphore = await startLocalSemaphore({
    gcToken: GC_TOKEN,
    readToken: READ_TOKEN,
    oidc: { issuer: issuer.url, repositories: [REPOSITORY, 'acme/blog'] },
  });
  admin = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
}, 60_000);

afterAll(async () => {
  await semaphore?.stop();
  await issuer?.close();
});

const as = (token: string) => ({ authorization: `Bearer ${token}` });

/** A pool with two slots: preview-1 held by pr-8 (its lease id returned), preview-2 free. */
async function poolWithLeaseOfPr8(
  name: string,
): Promise<{ type: string; leaseId: string; generation: number }> {
  const type = freshPool(name);
  await admin.add({ type, slug: 'preview-1' });
  await admin.add({ type, slug: 'preview-2' });
  const lease = await admin.acquireSpecific({ type, slug: 'preview-1', holder: 'pr-8', leaseMs: HOUR });
  if (lease === null) throw new Error('preview-1 could not be leased');
  return { type, leaseId: lease.leaseId, generation: lease.generation };
}

/** gc's keep of pr-8's lease on preview-1 (poolWithLeaseOfPr8), on the full condition. */
const extendOf = (type: string, generation: number) => ({
  type,
  slug: 'preview-1',
  ifHolder: 'pr-8',
  ifGeneration: generation,
  ifLeaseVersion: 1,
  leaseMs: HOUR,
  maxHeldMs: 72 * HOUR,
});

/** Every write a role might try, on the pool of poolWithLeaseOfPr8. */
function writes(type: string, leaseId: string, generation: number): [string, string, unknown][] {
  return [
    ['POST', '/api/resources', { type, slug: 'preview-3' }],
    ['DELETE', `/api/resources/${type}/preview-2?ifGeneration=0`, undefined],
    ['POST', '/api/resources/acquire', { type, holder: 'pr-8', leaseMs: HOUR, reuseHeld: true }],
    ['POST', '/api/resources/acquire-specific', { type, slug: 'preview-2', holder: 'gc', leaseMs: HOUR }],
    ['POST', '/api/resources/renew', { type, slug: 'preview-1', leaseId, leaseMs: HOUR }],
    ['POST', '/api/resources/release', { type, slug: 'preview-1', leaseId }],
    [
      'POST',
      '/api/resources/release',
      { type, slug: 'preview-1', force: true, ifHolder: 'pr-8', ifGeneration: generation, ifLeaseVersion: 1 },
    ],
    ['POST', '/api/resources/mark-dirty', { type, slug: 'preview-2' }],
    ['POST', '/api/resources/activity', { type, slots: [{ slug: 'preview-1', activity: {}, alert: true }] }],
    ['POST', '/api/resources/extend', extendOf(type, generation)],
  ];
}

async function send(token: string, [method, path, body]: [string, string, unknown]): Promise<RawAnswer> {
  return raw(semaphore, method, path, {
    authorization: `Bearer ${token}`,
    ...(body === undefined ? {} : { body }),
  });
}

describe('the read token', () => {
  it('reads everything and is refused every write (403), saying what it may do; nothing changes', async () => {
    const { type, leaseId, generation } = await poolWithLeaseOfPr8('read');
    const before = await admin.list(type);
    for (const path of ['/api/pools', `/api/resources?type=${type}`, `/api/resources/${type}/preview-1`]) {
      expect((await raw(semaphore, 'GET', path, { authorization: `Bearer ${READ_TOKEN}` })).status).toBe(200);
    }
    expect(
      (await raw(semaphore, 'GET', '/api/whoami', { authorization: `Bearer ${READ_TOKEN}` })).body,
    ).toEqual({
      role: 'read',
      holder: null,
      may: 'read the pools, the slots and their history; it may change nothing',
      actions: { forceRelease: false, markDirty: false, addSlot: false, removeSlot: false },
    });
    for (const write of writes(type, leaseId, generation)) {
      const error = expectError(await send(READ_TOKEN, write), 403, 'forbidden');
      expect(error.message).toBe(
        'the read role may not change anything. It may read the pools, the slots and their history; it may change nothing',
      );
    }
    expect(await admin.list(type)).toEqual({ ...before, now: expect.any(Number) });
  });
});

describe('the gc token', () => {
  it('may not add, remove or mark slots dirty, lease for another holder, reuse a held lease, or force without the full condition', async () => {
    const { type, leaseId, generation } = await poolWithLeaseOfPr8('gc-refused');
    const refused: [[string, string, unknown], string][] = [
      [['POST', '/api/resources', { type, slug: 'preview-3' }], 'add or remove slots'],
      [['DELETE', `/api/resources/${type}/preview-2?ifGeneration=0`, undefined], 'add or remove slots'],
      [['POST', '/api/resources/mark-dirty', { type, slug: 'preview-2' }], 'mark slots dirty'],
      [
        ['POST', '/api/resources/acquire', { type, holder: 'pr-8', leaseMs: HOUR }],
        'acquire for holder "pr-8"',
      ],
      [
        ['POST', '/api/resources/acquire', { type, holder: 'gc', leaseMs: HOUR, reuseHeld: true }],
        'acquire with reuseHeld',
      ],
      [
        ['POST', '/api/resources/release', { type, slug: 'preview-1', force: true, ifHolder: 'pr-8' }],
        'force without ifGeneration and ifLeaseVersion',
      ],
      [
        [
          'POST',
          '/api/resources/acquire-specific',
          { type, slug: 'preview-1', holder: 'gc', leaseMs: HOUR, force: true },
        ],
        'force without ifHolder and ifGeneration and ifLeaseVersion',
      ],
    ];
    for (const [write, what] of refused) {
      const error = expectError(await send(GC_TOKEN, write), 403, 'forbidden');
      expect(error.message).toMatch(
        new RegExp(
          `^the gc role may not ${what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. It may read, acquire as holder 'gc'`,
        ),
      );
    }
    expect((await admin.find(type, 'preview-1')).leaseVersion).toBe(1);
    expect(await admin.find(type, 'preview-1')).toMatchObject({ holder: 'pr-8', generation });
    expect(
      (
        await send(GC_TOKEN, [
          'POST',
          '/api/resources/renew',
          { type, slug: 'preview-1', leaseId, leaseMs: HOUR },
        ])
      ).status,
    ).toBe(200);
  });

  it('leases as gc, renews and releases its own lease, and forces on the full condition of what it read', async () => {
    const { type } = await poolWithLeaseOfPr8('gc-allowed');
    const gc = new SemaphoreClient({ baseUrl: semaphore.url, token: GC_TOKEN });
    expect(await gc.whoami()).toMatchObject({ role: 'gc', actions: { forceRelease: true, addSlot: false } });
    const lease = await gc.acquireSpecific({ type, slug: 'preview-2', holder: 'gc', leaseMs: HOUR });
    expect(
      await gc.renew({ type, slug: 'preview-2', leaseId: lease?.leaseId ?? '', leaseMs: HOUR }),
    ).toMatchObject({
      leaseVersion: 2,
    });
    expect(
      await gc.release({ type, slug: 'preview-2', leaseId: lease?.leaseId ?? '', clean: true }),
    ).toMatchObject({
      released: true,
    });
    const read = await gc.find(type, 'preview-1');
    const answer = await gc.release({
      type,
      slug: 'preview-1',
      force: true,
      ifHolder: read.holder ?? '',
      ifGeneration: read.generation,
      ifLeaseVersion: read.leaseVersion ?? 0,
    });
    expect(answer).toMatchObject({ released: true, holder: 'pr-8' });
  });

  it("keeps a pull request's lease on the full condition of what it read, and learns no lease id", async () => {
    const { type, generation } = await poolWithLeaseOfPr8('gc-extend');
    const gc = new SemaphoreClient({ baseUrl: semaphore.url, token: GC_TOKEN });
    const answer = await gc.extend({ ...extendOf(type, generation), leaseMs: 2 * HOUR });
    expect(answer).toEqual({
      extended: true,
      holder: 'pr-8',
      generation,
      leaseVersion: 2,
      leasedUntil: expect.any(Number),
      conditionFailed: false,
      queue: { length: 0, oldestWaitMs: 0 },
    });
    expect(JSON.stringify(answer)).not.toMatch(/leaseId/);
  });
});

describe("a deploy job's OIDC token", () => {
  const pr7 = { repository: REPOSITORY, pullRequest: 7 };
  const tokenOf = (options?: TokenOptions, job = pr7) => issuer.token(job, AUDIENCE, options);

  it('acquires, renews, marks and releases as its own pull request, and the semaphore says who it is', async () => {
    const type = freshPool('oidc-own');
    await admin.add({ type, slug: 'preview-1' });
    const job = new SemaphoreClient({ baseUrl: semaphore.url, token: () => tokenOf() });
    expect(await job.whoami()).toEqual({
      role: 'pull-request',
      holder: 'acme/shop/pr-7',
      may: expect.stringContaining("only its own pull request's lease"),
      actions: { forceRelease: false, markDirty: false, addSlot: false, removeSlot: false },
    });
    const lease = await job.acquire({ type, holder: 'acme/shop/pr-7', leaseMs: HOUR, reuseHeld: true });
    expect(lease).toMatchObject({ holder: 'acme/shop/pr-7', slug: 'preview-1' });
    expect(
      await job.acquire({ type, holder: 'acme/shop/pr-7', leaseMs: HOUR, reuseHeld: true }),
    ).toMatchObject({
      reused: true,
      leaseVersion: 2,
    });
    expect(await job.renew({ type, slug: 'preview-1', leaseId: lease.leaseId, leaseMs: HOUR })).toMatchObject(
      {
        leaseVersion: 3,
      },
    );
    await job.markDirty({ type, slug: 'preview-1', note: 'erased before acme/shop/pr-7 deploys into it' });
    expect(await job.release({ type, slug: 'preview-1', leaseId: lease.leaseId })).toMatchObject({
      released: true,
      holder: 'acme/shop/pr-7',
    });
  });

  it("is refused (403) another pull request's holder and lease, any force, and the slots", async () => {
    const { type, leaseId, generation } = await poolWithLeaseOfPr8('oidc-refused');
    const token = await tokenOf();
    const before = await admin.list(type);
    const refused: [[string, string, unknown], string][] = [
      [
        ['POST', '/api/resources/acquire', { type, holder: 'pr-8', leaseMs: HOUR, reuseHeld: true }],
        'acquire for holder "pr-8"',
      ],
      [
        [
          'POST',
          '/api/resources/acquire-specific',
          { type, slug: 'preview-2', holder: 'pr-8', leaseMs: HOUR },
        ],
        'acquire for holder "pr-8"',
      ],
      [
        [
          'POST',
          '/api/resources/acquire-specific',
          { type, slug: 'preview-1', holder: 'acme/shop/pr-7', leaseMs: HOUR, force: true },
        ],
        'force a slot',
      ],
      [
        [
          'POST',
          '/api/resources/release',
          {
            type,
            slug: 'preview-1',
            force: true,
            ifHolder: 'pr-8',
            ifGeneration: generation,
            ifLeaseVersion: 1,
          },
        ],
        'force a release',
      ],
      [
        ['POST', '/api/resources/renew', { type, slug: 'preview-1', leaseId, leaseMs: HOUR }],
        'renew the lease on slot preview-1',
      ],
      [
        ['POST', '/api/resources/release', { type, slug: 'preview-1', leaseId }],
        'release the lease on slot preview-1',
      ],
      [['POST', '/api/resources/mark-dirty', { type, slug: 'preview-1' }], 'mark dirty slot preview-1'],
      [
        [
          'POST',
          '/api/resources/activity',
          { type, slots: [{ slug: 'preview-1', activity: {}, alert: true }] },
        ],
        "record the slots' activity",
      ],
      [['POST', '/api/resources', { type, slug: 'preview-3' }], 'add or remove slots'],
      [['DELETE', `/api/resources/${type}/preview-2?ifGeneration=0`, undefined], 'add or remove slots'],
      [
        ['POST', '/api/resources/extend', extendOf(type, generation)],
        'extend a lease it does not hold (only gc keeps a lease)',
      ],
    ];
    for (const [write, what] of refused) {
      const error = expectError(await send(token, write), 403, 'forbidden');
      expect(error.message).toContain(`the pull-request role (acme/shop/pr-7) may not ${what}`);
      expect(error.message).toContain("only its own pull request's lease");
    }
    expect(await admin.list(type)).toEqual({ ...before, now: expect.any(Number) });
  });

  it('is refused (401) with the check it failed: expiry, nbf, audience, issuer, algorithm, key, repository, event', async () => {
    const type = freshPool('oidc-401');
    await admin.add({ type, slug: 'preview-1' });
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Promise<string>, string][] = [
      // Beyond the 60 s the Worker allows for clock skew.
      ['expired', tokenOf({ claims: { exp: now - 90, iat: now - 400 } }), 'it expired (exp)'],
      ['not yet valid', tokenOf({ claims: { nbf: now + 600 } }), 'it is not valid yet (nbf)'],
      [
        'another audience',
        issuer.token(pr7, 'sts.amazonaws.com'),
        "it is for another audience than 'preview-gc'",
      ],
      [
        'another issuer',
        tokenOf({ claims: { iss: 'https://token.actions.githubusercontent.com' } }),
        'it was issued by another issuer',
      ],
      ['HS256', tokenOf({ alg: 'HS256' }), 'it is signed with "HS256"; only RS256 is accepted'],
      ['PS256', tokenOf({ alg: 'PS256' }), 'it is signed with "PS256"; only RS256 is accepted'],
      [
        'an unknown key',
        tokenOf({ kid: 'someone-elses-key' }),
        'it is signed with a key (kid "someone-elses-key") the issuer does not publish',
      ],
      [
        'another repository',
        tokenOf({}, { repository: 'evil/fork', pullRequest: 7 }),
        'it is for a repository this semaphore does not serve',
      ],
      [
        'a push',
        tokenOf({ claims: { event_name: 'push', ref: 'refs/heads/main' } }),
        "it is not a pull_request job's",
      ],
      [
        'a pull_request_target',
        tokenOf({ claims: { event_name: 'pull_request_target', ref: 'refs/heads/main' } }),
        "it is not a pull_request job's",
      ],
    ];
    for (const [what, token, why] of cases) {
      const answer = await raw(semaphore, 'POST', '/api/resources/acquire', {
        ...as(await token),
        body: { type, holder: 'pr-7', leaseMs: HOUR },
      });
      const error = expectError(answer, 401, 'unauthorized');
      expect({ what, message: error.message }).toEqual({
        what,
        message: expect.stringContaining(`the OIDC token was refused: ${why}`),
      });
      expect(answer.text).not.toContain(await token);
    }
    // A forged signature: the payload of another pull request under pr-7's signature.
    const [header, , signature] = (await tokenOf()).split('.');
    const [, payload] = (await tokenOf({}, { repository: REPOSITORY, pullRequest: 8 })).split('.');
    const forged = expectError(
      await raw(semaphore, 'GET', '/api/whoami', as(`${header}.${payload}.${signature}`)),
      401,
      'unauthorized',
    );
    expect(forged.message).toContain('its signature does not verify');
    expect((await admin.find(type, 'preview-1')).holder).toBeNull();
  });

  it("reads the issuer's discovery document and keys once, not for every call", async () => {
    const before = issuer.requests.filter((path) => path.startsWith('/.well-known/')).length;
    for (let call = 0; call < 5; call += 1) {
      expect((await raw(semaphore, 'GET', '/api/whoami', as(await tokenOf()))).status).toBe(200);
    }
    expect(issuer.requests.filter((path) => path.startsWith('/.well-known/')).length).toBe(before);
    expect(issuer.requests.filter((path) => path === '/.well-known/openid-configuration')).toHaveLength(1);
  });

  it('is refused when the semaphore takes no OIDC token, saying how to turn it on', async () => {
    const plain = await startLocalSemaphore();
    try {
      const answer = await raw(plain, 'GET', '/api/whoami', as(await tokenOf()));
      const error = expectError(answer, 401, 'unauthorized');
      expect(error.message).toContain('set SEMAPHORE_OIDC_REPOSITORIES on the Worker');
    } finally {
      await plain.stop();
    }
  });
});

describe('tokens in writes', () => {
  it('stores no token of the semaphore: notes are redacted, a holder carrying one is refused', async () => {
    const type = freshPool('no-echo');
    await admin.add({ type, slug: 'preview-1', note: `set up with ${GC_TOKEN} by mistake` });
    const [added] = await admin.events(type, 'preview-1', 1);
    expect(added?.detail).toEqual({ dirty: false, note: 'set up with *** by mistake' });
    const refused = expectError(
      await raw(semaphore, 'POST', '/api/resources/acquire', {
        body: { type, holder: `x${READ_TOKEN}`, leaseMs: HOUR },
      }),
      400,
      'invalid_request',
    );
    expect(refused.message).toBe(
      'invalid request body: holder must not contain a token of this semaphore; nothing was changed',
    );
    const echoed = await raw(semaphore, 'POST', '/api/resources/renew', { body: { [semaphore.token]: 1 } });
    expect(echoed.status).toBe(400);
    expect(echoed.text).not.toContain(semaphore.token);
  });
});

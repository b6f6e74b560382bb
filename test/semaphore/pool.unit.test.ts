// The pool rules (worker/pool.ts) over a node:sqlite store, without workerd: each command runs in a
// transaction as the Durable Object runs it, on a clock the test sets.
import { describe, expect, it } from 'vitest';
import {
  type Lease,
  MAX_SLOTS_PER_POOL,
  type ReleaseAnswer,
  type Slot,
} from '../../src/semaphore/protocol.ts';
import {
  applyPoolCommand,
  type PoolCommand,
  type PoolOutcome,
  type TenantLimits,
} from '../../src/semaphore/worker/pool.ts';
import { migrate, POOL_MIGRATIONS } from '../../src/semaphore/worker/schema.ts';
import {
  DELETED_SLUGS_WITH_EVENTS,
  EVENTS_KEPT_PER_SLOT,
  PoolStore,
} from '../../src/semaphore/worker/store.ts';
import { openTestDatabase } from './sqlite-database.ts';

const T0 = 1_784_000_000_000;
const TYPE = 'pool';

/** A migrated in-memory pool; `run` runs one command in a transaction at `now`. */
function openPool() {
  const db = openTestDatabase();
  db.transaction(() => migrate(db, POOL_MIGRATIONS));
  const store = new PoolStore(db);
  const run = (command: PoolCommand, now = T0): PoolOutcome =>
    db.transaction(() => applyPoolCommand(store, command, now));
  return { db, store, run };
}

function body<T>(outcome: PoolOutcome): T {
  if (!outcome.ok) throw new Error(`expected an answer, got ${outcome.code}: ${outcome.message}`);
  return outcome.body as T;
}

const MINUTE = 60_000;

const add = (slug: string) => ({ op: 'add', request: { type: TYPE, slug } }) as const;
/** Removes the slot at `ifGeneration` (0: never leased), dirty or not. */
const remove = (slug: string, ifGeneration = 0) =>
  ({ op: 'remove', type: TYPE, slug, ifGeneration, allowDirty: true }) as const;

describe('event log bounds', () => {
  it(`keeps the newest ${EVENTS_KEPT_PER_SLOT} events of a slug`, () => {
    const { run, store } = openPool();
    run(add('preview-1'));
    for (let round = 0; round < EVENTS_KEPT_PER_SLOT; round += 1) {
      run({ op: 'mark-dirty', request: { type: TYPE, slug: 'preview-1', note: `round ${round}` } });
    }
    const events = store.events('preview-1', EVENTS_KEPT_PER_SLOT + 10);
    expect(events).toHaveLength(EVENTS_KEPT_PER_SLOT);
    expect(events[0]?.detail).toMatchObject({ note: `round ${EVENTS_KEPT_PER_SLOT - 1}` });
    expect(events.at(-1)?.detail).toMatchObject({ note: 'round 0' });
  });

  it(`keeps the events of the ${DELETED_SLUGS_WITH_EVENTS} most recently deleted slugs, and every live slot's`, () => {
    const { run, store } = openPool();
    run(add('live-1'));
    const deleted = Array.from({ length: DELETED_SLUGS_WITH_EVENTS + 5 }, (_, index) => `gone-${index}`);
    for (const slug of deleted) {
      run(add(slug));
      run(remove(slug));
    }
    const kept = deleted.filter((slug) => store.events(slug, 10).length > 0);
    expect(kept).toEqual(deleted.slice(5));
    expect(store.events('gone-5', 10).map((event) => event.event)).toEqual(['deleted', 'added']);
    expect(store.events('live-1', 10).map((event) => event.event)).toEqual(['added']);
  });
});

/** A pool with the given slots, and shorthands for the commands the rules tests use. */
function poolWith(...slugs: string[]) {
  const pool = openPool();
  for (const slug of slugs) pool.run(add(slug));
  const find = (slug: string, now = T0) => body<Slot>(pool.run({ op: 'find', type: TYPE, slug }, now));
  /** `limits`: a pull request's deploy job (its holder and tenant, and its lease count limit). */
  const take = (
    slug: string,
    holder: string,
    now = T0,
    extra: Record<string, unknown> = {},
    limits: TenantLimits = {},
  ) =>
    body<Lease | null>(
      pool.run(
        {
          op: 'acquire-specific',
          request: { type: TYPE, slug, holder, leaseMs: MINUTE, ...extra },
          ...limits,
        },
        now,
      ),
    );
  const acquire = (
    holder: string,
    now = T0,
    extra: Record<string, unknown> = {},
    limits: TenantLimits | undefined = {},
  ) =>
    pool.run(
      { op: 'acquire', request: { type: TYPE, holder, leaseMs: MINUTE, ...extra }, ...(limits ?? {}) },
      now,
    );
  const release = (slug: string, fields: Record<string, unknown>, now = T0) =>
    body<ReleaseAnswer>(pool.run({ op: 'release', request: { type: TYPE, slug, ...fields } }, now));
  return { ...pool, find, take, acquire, release };
}

const SHOP = 'github:101:11';
const BLOG = 'github:202:11';
/** A pull request's deploy job of a repository (its tenant), as the router hands it to the pool. */
const prOf = (holder: string, tenant = SHOP) => ({ holder, tenant });
/** The same job acquiring: its holder and tenant, and (when given) its lease count limit. */
const asPr = (holder: string, tenant = SHOP, leasesPerHolder?: number): TenantLimits => ({
  owner: prOf(holder, tenant),
  ...(leasesPerHolder === undefined ? {} : { leasesPerHolder }),
});

describe("a pull request's deploy job (owner)", () => {
  it('renews, releases and marks dirty only its own lease, and is told so (403)', () => {
    const { run, take } = poolWith('preview-1', 'preview-2');
    const own = take('preview-1', 'pr-7', T0, {}, asPr('pr-7'));
    const other = take('preview-2', 'pr-8', T0, {}, asPr('pr-8'));
    const renew = (lease: Lease | null, holder: string) =>
      run({
        op: 'renew',
        request: { type: TYPE, slug: lease?.slug ?? '', leaseId: lease?.leaseId ?? '', leaseMs: MINUTE },
        owner: prOf(holder),
      });
    expect(renew(own, 'pr-7')).toMatchObject({ ok: true });
    expect(renew(other, 'pr-7')).toMatchObject({ ok: false, status: 403, code: 'forbidden' });
    const release = (lease: Lease | null) =>
      run({
        op: 'release',
        request: { type: TYPE, slug: lease?.slug ?? '', leaseId: lease?.leaseId ?? '' },
        owner: prOf('pr-7'),
      });
    expect(release(other)).toMatchObject({ ok: false, status: 403, code: 'forbidden' });
    const mark = (slug: string) =>
      run({ op: 'mark-dirty', request: { type: TYPE, slug, note: 'erased' }, owner: prOf('pr-7') });
    expect(mark('preview-2')).toMatchObject({ ok: false, status: 403 });
    expect(mark('preview-1')).toMatchObject({ ok: true });
    expect(release(own)).toMatchObject({ ok: true, body: { released: true } });
  });

  // Holders are compared exactly: a mutation that matched by prefix or with case folded would let one
  // pull request act on another's lease.
  it.each([
    ['pr-7', 'pr-70'],
    ['pr-70', 'pr-7'],
    ['acme/shop/pr-6', 'ACME/shop/pr-6'],
    ['acme/shop/pr-6', 'acme/shop/pr-60'],
    ['acme/shop/pr-6', 'acme/sho/pr-6'],
  ])("the lease of %s is never %s's: not by reuseHeld, renew, release or mark", (held, other) => {
    const { run, take, acquire, find } = poolWith('preview-1', 'preview-2');
    const lease = take('preview-1', held, T0, {}, asPr(held));
    const reused = body<Lease>(acquire(other, T0, { reuseHeld: true }, asPr(other)));
    expect(reused).toMatchObject({ slug: 'preview-2', reused: false, holder: other });
    const onLease = { type: TYPE, slug: 'preview-1', leaseId: lease?.leaseId ?? '' };
    expect(run({ op: 'renew', request: { ...onLease, leaseMs: MINUTE }, owner: prOf(other) })).toMatchObject({
      status: 403,
    });
    expect(run({ op: 'release', request: onLease, owner: prOf(other) })).toMatchObject({ status: 403 });
    expect(
      run({ op: 'mark-dirty', request: { type: TYPE, slug: 'preview-1' }, owner: prOf(other) }),
    ).toMatchObject({ status: 403 });
    expect(find('preview-1')).toMatchObject({ holder: held, leaseVersion: 1 });
  });

  it("another repository's pull request of the same holder name (a re-created repository) never gets the lease", () => {
    const { run, take, acquire, find } = poolWith('preview-1', 'preview-2');
    const lease = take('preview-1', 'acme/shop/pr-6', T0, {}, asPr('acme/shop/pr-6', SHOP, 1));
    const stranger = prOf('acme/shop/pr-6', BLOG);
    const reused = acquire('acme/shop/pr-6', T0, { reuseHeld: true }, asPr('acme/shop/pr-6', BLOG, 1));
    // One holder, one slot: the second tenant of the same name is refused a second slot, never given the first.
    expect(reused).toMatchObject({ ok: false, status: 409, code: 'limit_reached' });
    const onLease = { type: TYPE, slug: 'preview-1', leaseId: lease?.leaseId ?? '' };
    expect(run({ op: 'release', request: onLease, owner: stranger })).toMatchObject({ status: 403 });
    expect(find('preview-1')).toMatchObject({ holder: 'acme/shop/pr-6', leaseState: 'leased' });
  });

  it('a requestId belongs to the holder and tenant that made it: anyone else gets 409 and nothing of the lease', () => {
    const { acquire } = poolWith('preview-1', 'preview-2');
    const first = body<Lease>(acquire('acme/shop/pr-6', T0, { requestId: 'req-1' }, asPr('acme/shop/pr-6')));
    const retry = body<Lease>(acquire('acme/shop/pr-6', T0, { requestId: 'req-1' }, asPr('acme/shop/pr-6')));
    expect(retry.leaseId).toBe(first.leaseId);
    for (const [holder, tenant] of [
      ['acme/blog/pr-6', BLOG],
      ['acme/shop/pr-6', BLOG],
      ['pr-6', null],
    ] as const) {
      const owner = tenant === null ? undefined : asPr(holder, tenant);
      const outcome = acquire(holder, T0, { requestId: 'req-1' }, owner);
      expect(outcome).toMatchObject({ ok: false, status: 409, code: 'request_id_taken' });
      expect(JSON.stringify(outcome)).not.toContain(first.leaseId);
    }
  });

  it('holds a holder to its lease count in the pool: a second slot is refused, naming the limit', () => {
    const { take, acquire } = poolWith('preview-1', 'preview-2', 'preview-3');
    const owner = asPr('acme/shop/pr-6', SHOP, 1);
    expect(body<Lease>(acquire('acme/shop/pr-6', T0, {}, owner)).slug).toBe('preview-1');
    const second = acquire('acme/shop/pr-6', T0, {}, owner);
    expect(second).toMatchObject({ ok: false, status: 409, code: 'limit_reached' });
    expect(second.ok ? '' : second.message).toContain('SEMAPHORE_PR_LEASES_PER_POOL');
    expect(() => take('preview-3', 'acme/shop/pr-6', T0, {}, owner)).toThrow(/limit_reached/);
    // reuseHeld extends the one it has; once that lease ends, a new one may be taken.
    expect(body<Lease>(acquire('acme/shop/pr-6', T0, { reuseHeld: true }, owner))).toMatchObject({
      reused: true,
    });
    expect(body<Lease>(acquire('acme/shop/pr-6', T0 + 2 * MINUTE, {}, owner)).holder).toBe('acme/shop/pr-6');
  });
});

describe('slots', () => {
  it('adds a slot once, finds it, and answers 404 for one it does not have', () => {
    const { run, find } = poolWith('preview-1');
    expect(find('preview-1')).toMatchObject({
      slug: 'preview-1',
      generation: 0,
      dirty: false,
      leaseState: 'available',
    });
    expect(run(add('preview-1'))).toMatchObject({ ok: false, status: 409, code: 'already_exists' });
    expect(run({ op: 'find', type: TYPE, slug: 'preview-9' })).toMatchObject({ ok: false, status: 404 });
  });

  it(`refuses slot ${MAX_SLOTS_PER_POOL + 1} of a pool`, () => {
    const { run } = openPool();
    for (let n = 1; n <= MAX_SLOTS_PER_POOL; n += 1) expect(run(add(`preview-${n}`)).ok).toBe(true);
    expect(run(add('one-more'))).toMatchObject({ ok: false, status: 409, code: 'limit_reached' });
  });

  // Found by a hostile read: the page showed the slot free and clean, a pull request took it and its
  // lease lapsed while the dialog was open, and the removal went through, the tenant's data left in it.
  it('removes a slot only at the generation the caller saw, and a dirty one only when allowed', () => {
    const { run, take } = poolWith('preview-1');
    const seen = { op: 'remove', type: TYPE, slug: 'preview-1', ifGeneration: 0, allowDirty: false } as const;
    take('preview-1', 'pr-9');
    expect(run(seen, T0 + MINUTE)).toMatchObject({ ok: false, status: 409, code: 'condition_failed' });
    expect(run({ ...seen, ifGeneration: 1 }, T0 + MINUTE)).toMatchObject({
      ok: false,
      status: 409,
      code: 'dirty',
    });
    expect(run({ ...seen, ifGeneration: 1, allowDirty: true }, T0 + MINUTE)).toMatchObject({ ok: true });
  });

  it('refuses to delete a slot under a live lease, deletes it once expired, and continues its generation', () => {
    const { run, take, find } = poolWith('preview-1');
    take('preview-1', 'pr-1');
    expect(run(remove('preview-1', 1))).toMatchObject({ ok: false, code: 'leased' });
    expect(run(remove('preview-1', 1), T0 + MINUTE)).toMatchObject({ ok: true });
    run(add('preview-1'));
    expect(find('preview-1').generation).toBe(1);
  });
});

describe('acquire-specific', () => {
  it('answers null while a live lease holds the slot, takes an expired one, and evicts only by force', () => {
    const { take, find } = poolWith('preview-1');
    const first = take('preview-1', 'pr-1');
    expect(first).toMatchObject({ generation: 1, wasDirty: false, tookExpired: false });
    expect(take('preview-1', 'pr-2', T0 + MINUTE - 1)).toBeNull();
    const expired = take('preview-1', 'gc', T0 + MINUTE);
    expect(expired).toMatchObject({
      generation: 2,
      wasDirty: true,
      tookExpired: true,
      previousHolder: 'pr-1',
    });
    const forced = take('preview-1', 'ana', T0 + MINUTE, { force: true });
    expect(forced).toMatchObject({ generation: 3, tookExpired: false, previousHolder: 'gc' });
    expect(find('preview-1', T0 + MINUTE)).toMatchObject({ holder: 'ana', lastHolder: 'gc' });
  });

  it('refuses a conditional force whose holder or generation moved on, naming the current ones', () => {
    const { run, take, find } = poolWith('preview-1');
    take('preview-1', 'pr-8');
    const before = find('preview-1');
    const outcome = run({
      op: 'acquire-specific',
      request: {
        type: TYPE,
        slug: 'preview-1',
        holder: 'gc',
        leaseMs: MINUTE,
        force: true,
        ifHolder: 'pr-7',
      },
    });
    expect(outcome).toMatchObject({ ok: false, status: 409, code: 'condition_failed' });
    expect(outcome.ok ? '' : outcome.message).toContain('"pr-8" at generation 1');
    expect(find('preview-1')).toEqual(before);
  });
});

describe('acquire', () => {
  it('takes clean before dirty before expired, and answers none_available when nothing is free', () => {
    const { take, release, acquire } = poolWith('expired', 'dirty', 'clean');
    take('expired', 'pr-1');
    const dirty = take('dirty', 'pr-2');
    release('dirty', { leaseId: dirty?.leaseId });
    const picks = ['a', 'b', 'c'].map((holder) => body<Lease>(acquire(holder, T0 + MINUTE)).slug);
    expect(picks).toEqual(['clean', 'dirty', 'expired']);
    expect(acquire('d', T0 + MINUTE)).toMatchObject({ ok: false, code: 'none_available' });
  });

  it('with reuseHeld extends the live lease of the holder, and otherwise acquires', () => {
    const { acquire, find } = poolWith('preview-1', 'preview-2');
    const first = body<Lease>(acquire('pr-4', T0, { reuseHeld: true }));
    const again = body<Lease>(acquire('pr-4', T0 + 1_000, { reuseHeld: true }));
    expect(again).toEqual({ ...first, expiresAt: T0 + 1_000 + MINUTE, leaseVersion: 2, reused: true });
    expect(find('preview-2').leaseState).toBe('available');
    const afterExpiry = body<Lease>(acquire('pr-4', T0 + 2 * MINUTE, { reuseHeld: true }));
    expect(afterExpiry).toMatchObject({ reused: false });
    expect(afterExpiry.leaseId).not.toBe(first.leaseId);
  });

  it('keeps one request id for a lease reused by many calls, and a retry of an older one still reuses it', () => {
    const { acquire, db } = poolWith('preview-1', 'preview-2');
    const first = body<Lease>(acquire('pr-4', T0, { reuseHeld: true, requestId: 'push-1' }));
    for (const push of ['push-2', 'push-3', 'push-4'])
      acquire('pr-4', T0, { reuseHeld: true, requestId: push });
    const ids = db.exec<{ request_id: string }>('SELECT request_id FROM request_ids').toArray();
    expect(ids.map((row) => row.request_id)).toEqual(['push-4']);
    const retried = body<Lease>(acquire('pr-4', T0 + 5, { reuseHeld: true, requestId: 'push-1' }));
    expect(retried).toMatchObject({ leaseId: first.leaseId, slug: first.slug });
  });

  it('answers a retry with the same request id with the same lease and flags', () => {
    const { acquire, take } = poolWith('preview-1');
    take('preview-1', 'pr-1');
    const taken = body<Lease>(acquire('gc', T0 + MINUTE, { requestId: 'r-1' }));
    expect(taken).toMatchObject({ tookExpired: true });
    expect(body<Lease>(acquire('gc', T0 + MINUTE + 5, { requestId: 'r-1' }))).toEqual(taken);
  });
});

describe('release', () => {
  it('releases only the current lease, keeps the slot dirty unless clean, and counts erase failures', () => {
    const { take, release, find } = poolWith('preview-1');
    const lease = take('preview-1', 'gc');
    const failure = { step: 'd1:app-db', message: 'timed out' };
    expect(release('preview-1', { leaseId: lease?.leaseId, eraseFailure: failure })).toEqual({
      released: true,
      dirty: true,
      holder: 'gc',
      generation: 1,
      leaseVersion: 1,
      conditionFailed: false,
    });
    expect(find('preview-1')).toMatchObject({ eraseFailures: 1, lastEraseFailure: { ...failure, at: T0 } });
    expect(release('preview-1', { leaseId: lease?.leaseId, clean: true })).toMatchObject({
      released: false,
      dirty: true,
    });
    const next = take('preview-1', 'gc');
    release('preview-1', { leaseId: next?.leaseId, clean: true });
    expect(find('preview-1')).toMatchObject({ dirty: false, eraseFailures: 0, lastEraseFailure: null });
  });

  it('releases by force only while the condition holds', () => {
    const { take, release } = poolWith('preview-1');
    take('preview-1', 'pr-8');
    expect(release('preview-1', { force: true, ifHolder: 'pr-7' })).toEqual({
      released: false,
      dirty: true,
      holder: 'pr-8',
      generation: 1,
      leaseVersion: 1,
      conditionFailed: true,
    });
    expect(release('preview-1', { force: true, ifHolder: 'pr-8', ifGeneration: 1 })).toMatchObject({
      released: true,
    });
  });

  // Found by a hostile read: a renew changed nothing a force could pin, so gc's reconcile ended the
  // lease a reopened pull request had just extended (acquired pr-7 g1, renewed pr-7 g1, force-released).
  it('releases by force nothing of a lease renewed since the read, whether by renew or by reuseHeld', () => {
    const { run, acquire, release, find } = poolWith('preview-1');
    const lease = body<Lease>(acquire('pr-7', T0, { reuseHeld: true }));
    const read = find('preview-1');
    expect(read).toMatchObject({ holder: 'pr-7', generation: 1, leaseVersion: 1 });
    const pinned = { force: true, ifHolder: 'pr-7', ifGeneration: 1, ifLeaseVersion: 1 } as const;
    body<Lease>(acquire('pr-7', T0 + 1_000, { reuseHeld: true }));
    expect(release('preview-1', pinned)).toMatchObject({
      released: false,
      conditionFailed: true,
      leaseVersion: 2,
    });
    run({ op: 'renew', request: { type: TYPE, slug: 'preview-1', leaseId: lease.leaseId, leaseMs: MINUTE } });
    expect(find('preview-1')).toMatchObject({ holder: 'pr-7', generation: 1, leaseVersion: 3 });
    expect(release('preview-1', { ...pinned, ifLeaseVersion: 2 })).toMatchObject({
      released: false,
      conditionFailed: true,
    });
    expect(release('preview-1', { ...pinned, ifLeaseVersion: 3 })).toMatchObject({
      released: true,
      leaseVersion: 3,
    });
  });
});

describe('mark-dirty', () => {
  it('marks a clean slot dirty and writes the event with the note', () => {
    const { run, find, store } = poolWith('preview-1');
    run({ op: 'mark-dirty', request: { type: TYPE, slug: 'preview-1', note: 'restored by hand' } }, T0 + 5);
    expect(find('preview-1')).toMatchObject({ dirty: true, updatedAt: T0 + 5 });
    expect(store.events('preview-1', 1)).toMatchObject([
      { event: 'marked-dirty', detail: { wasDirty: false, note: 'restored by hand' } },
    ]);
  });
});

describe('summary', () => {
  it('counts slots, leased (expired included), expired and dirty on the pool clock', () => {
    const { run, take } = poolWith('a-1', 'a-2', 'a-3');
    take('a-1', 'pr-1');
    take('a-2', 'pr-2', T0 + MINUTE);
    expect(body(run({ op: 'summary', type: TYPE }, T0 + MINUTE))).toEqual({
      type: TYPE,
      slots: 3,
      leased: 2,
      expired: 1,
      dirty: 2,
    });
  });
});

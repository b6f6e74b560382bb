// The lease rules of the protocol, through the typed client, against the real Worker in workerd.
// Every test has its own pool, so they run concurrently: the waits for leases to expire overlap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SemaphoreClient, SemaphoreError } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { clientFor, freshPool, raw, removeAsItIs, waitForExpiry, waitForServerTimeAfter } from './helpers.ts';

let semaphore: LocalSemaphore;
let client: SemaphoreClient;

beforeAll(async () => {
  semaphore = await startLocalSemaphore();
  client = clientFor(semaphore);
});

afterAll(async () => {
  await semaphore?.stop();
});

const HOUR = 3_600_000;

async function pool(name: string, ...slugs: string[]): Promise<string> {
  const type = freshPool(name);
  for (const slug of slugs) await client.add({ type, slug });
  return type;
}

function present(lease: Lease | null): Lease {
  if (lease === null) throw new Error('expected a lease, got null');
  return lease;
}

async function mustAcquire(type: string, slug: string, holder: string, leaseMs = HOUR): Promise<Lease> {
  return present(await client.acquireSpecific({ type, slug, holder, leaseMs }));
}

/** Acquires and releases a slot (dirty unless `clean`), and waits until the server clock moved on. */
async function cycle(type: string, slug: string, holder: string, clean = false): Promise<void> {
  const lease = await mustAcquire(type, slug, holder);
  await client.release({ type, slug, leaseId: lease.leaseId, clean });
  const { lastReleasedAt } = await client.find(type, slug);
  await waitForServerTimeAfter(client, type, lastReleasedAt ?? 0);
}

describe.concurrent('acquire-specific', () => {
  it('gives exactly one lease to 50 concurrent non-force acquires of one free slot', async () => {
    const type = await pool('race', 'preview-1');
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        client.acquireSpecific({ type, slug: 'preview-1', holder: `pr-${index}`, leaseMs: HOUR }),
      ),
    );
    const leases = answers.filter((answer) => answer !== null);
    expect(leases).toHaveLength(1);
    const slot = await client.find(type, 'preview-1');
    expect(slot).toMatchObject({ leaseState: 'leased', holder: leases[0]?.holder, generation: 1 });
    const events = await client.events(type, 'preview-1');
    expect(events.filter((event) => event.event === 'acquired')).toHaveLength(1);
  });

  it('sets holder, expiry, generation, dirty and lastAcquiredAt, and answers null to anyone while live', async () => {
    const type = await pool('live', 'preview-1');
    const lease = await mustAcquire(type, 'preview-1', 'pr-7');
    expect(lease).toMatchObject({ type, slug: 'preview-1', holder: 'pr-7', generation: 1, wasDirty: false });
    expect(lease.previousHolder).toBeNull();
    const slot = await client.find(type, 'preview-1');
    expect(slot).toMatchObject({
      leaseState: 'leased',
      holder: 'pr-7',
      leasedUntil: lease.expiresAt,
      expired: false,
      dirty: true,
      lastAcquiredAt: slot.updatedAt,
    });
    expect(lease.expiresAt - (slot.lastAcquiredAt ?? 0)).toBe(HOUR);
    expect(
      await client.acquireSpecific({ type, slug: 'preview-1', holder: 'pr-8', leaseMs: HOUR }),
    ).toBeNull();
    expect(
      await client.acquireSpecific({ type, slug: 'preview-1', holder: 'pr-7', leaseMs: HOUR }),
    ).toBeNull();
    expect(await client.find(type, 'preview-1')).toEqual(slot);
  });

  it('keeps an expired lease visible as leased and expired until a non-force acquire takes it over', async () => {
    const type = await pool('expiry', 'preview-1');
    await mustAcquire(type, 'preview-1', 'pr-1', 1_000);
    await waitForExpiry(client, type, 'preview-1');
    const { now, resources } = await client.list(type);
    expect(resources[0]).toMatchObject({ leaseState: 'leased', holder: 'pr-1', expired: true, dirty: true });
    expect(resources[0]?.leasedUntil).toBeLessThanOrEqual(now);

    const taken = await mustAcquire(type, 'preview-1', 'gc');
    expect(taken).toMatchObject({ holder: 'gc', generation: 2, wasDirty: true, previousHolder: 'pr-1' });
    const [event] = await client.events(type, 'preview-1', 1);
    expect(event).toMatchObject({
      event: 'took-expired',
      holder: 'gc',
      generation: 2,
      detail: { previousHolder: 'pr-1' },
    });
    expect(await client.find(type, 'preview-1')).toMatchObject({
      holder: 'gc',
      lastHolder: 'pr-1',
      expired: false,
    });
  });

  it('evicts a live lease only with force, and the old leaseId can then neither renew nor release', async () => {
    const type = await pool('force', 'preview-1');
    const first = await mustAcquire(type, 'preview-1', 'pr-1');
    const forced = await client.acquireSpecific({
      type,
      slug: 'preview-1',
      holder: 'manual-ana',
      leaseMs: HOUR,
      force: true,
    });
    expect(forced).toMatchObject({
      holder: 'manual-ana',
      generation: 2,
      previousHolder: 'pr-1',
      wasDirty: true,
    });
    expect(forced?.leaseId).not.toBe(first.leaseId);
    const [evicted] = await client.events(type, 'preview-1', 1);
    expect(evicted).toMatchObject({
      event: 'evicted',
      holder: 'manual-ana',
      detail: { previousHolder: 'pr-1' },
    });

    expect(await client.renew({ type, slug: 'preview-1', leaseId: first.leaseId, leaseMs: HOUR })).toBeNull();
    expect(await client.release({ type, slug: 'preview-1', leaseId: first.leaseId, clean: true })).toEqual({
      released: false,
      dirty: true,
      holder: 'manual-ana',
      generation: 2,
      leaseVersion: 1,
      conditionFailed: false,
    });
    expect(await client.find(type, 'preview-1')).toMatchObject({
      holder: 'manual-ana',
      dirty: true,
      generation: 2,
    });
  });

  it('answers the same lease to a retry with the same requestId while that lease is current', async () => {
    const type = await pool('retry', 'preview-1', 'preview-2');
    const input = { type, slug: 'preview-1', holder: 'gc', leaseMs: HOUR, requestId: 'sweep-42:preview-1' };
    const first = present(await client.acquireSpecific(input));
    const renewed = await client.renew({
      type,
      slug: 'preview-1',
      leaseId: first.leaseId,
      leaseMs: 2 * HOUR,
    });
    const retried = await client.acquireSpecific(input);
    expect(retried).toEqual(renewed);
    expect(retried).toMatchObject({ leaseId: first.leaseId, generation: 1, wasDirty: false });
    // The request id is scoped by slug: the same id on another slot is another acquire.
    const other = present(await client.acquireSpecific({ ...input, slug: 'preview-2' }));
    expect(other).toMatchObject({ slug: 'preview-2', generation: 1 });
    expect(other.leaseId).not.toBe(first.leaseId);
    // Once the lease is released, the request id no longer answers it: the slot is free to take again.
    await client.release({ type, slug: 'preview-1', leaseId: first.leaseId });
    const again = present(await client.acquireSpecific(input));
    expect(again).toMatchObject({ generation: 2, previousHolder: 'gc' });
    expect(again.leaseId).not.toBe(first.leaseId);
  });

  it('answers a retry with the current state of an expired lease nobody took over', async () => {
    const type = await pool('retry-expired', 'preview-1');
    const input = { type, slug: 'preview-1', holder: 'gc', leaseMs: 1_000, requestId: 'r-1' };
    const first = await client.acquireSpecific(input);
    await waitForExpiry(client, type, 'preview-1');
    expect(await client.acquireSpecific(input)).toEqual(first);
  });
});

describe.concurrent('acquire', () => {
  it('picks clean before dirty (least recently released first), then the longest expired lease', async () => {
    // Created in the opposite order of the expected picks, so the createdAt tie-break cannot explain them.
    const type = await pool(
      'order',
      'expired-soon',
      'expired-first',
      'dirty-old',
      'clean-new',
      'clean-old',
      'never-a',
    );
    const expiresFirst = await mustAcquire(type, 'expired-first', 'pr-4', 1_000);
    await waitForServerTimeAfter(client, type, expiresFirst.expiresAt - 1_000);
    await mustAcquire(type, 'expired-soon', 'pr-5', 1_000);
    await cycle(type, 'dirty-old', 'pr-1');
    await cycle(type, 'clean-old', 'pr-2', true);
    await cycle(type, 'clean-new', 'pr-3', true);
    // From here on both leases are expired for good, so every pick below is decided by the rules alone.
    await waitForExpiry(client, type, 'expired-soon');

    const picks: Lease[] = [];
    for (let round = 0; round < 6; round += 1) {
      picks.push(await client.acquire({ type, holder: `agent-${round}`, leaseMs: HOUR }));
    }
    // never-a was never released (counts as released at 0), so it goes before the released clean ones;
    // never-a was created last, so only the release times explain this order.
    expect(picks.map((lease) => lease.slug)).toEqual([
      'never-a',
      'clean-old',
      'clean-new',
      'dirty-old',
      'expired-first',
      'expired-soon',
    ]);
    expect(picks[4]).toMatchObject({ previousHolder: 'pr-4', wasDirty: true });
    expect(picks[5]).toMatchObject({ previousHolder: 'pr-5', wasDirty: true });
    await expect(client.acquire({ type, holder: 'agent-x', leaseMs: HOUR })).rejects.toMatchObject({
      status: 409,
      code: 'none_available',
    });
    const [event] = await client.events(type, 'expired-soon', 1);
    expect(event).toMatchObject({ event: 'took-expired', holder: 'agent-5' });
  });

  it('breaks ties by createdAt, then slug, and narrows to allowedSlugs (unknown ones ignored)', async () => {
    const type = await pool('ties', 'b-slot', 'a-slot', 'c-slot');
    const first = await client.acquire({
      type,
      holder: 'x',
      leaseMs: HOUR,
      allowedSlugs: ['c-slot', 'a-slot', 'zz'],
    });
    const { resources } = await client.list(type);
    const created = new Map(resources.map((slot) => [slot.slug, slot.createdAt]));
    const expected = ['a-slot', 'c-slot'].sort(
      (a, b) => (created.get(a) ?? 0) - (created.get(b) ?? 0) || a.localeCompare(b),
    )[0];
    expect(first.slug).toBe(expected);
    expect(first.previousHolder).toBeNull();
  });

  it('answers the same lease to a retry with the same requestId, even outside allowedSlugs', async () => {
    const type = await pool('acquire-retry', 'preview-1', 'preview-2');
    const first = await client.acquire({ type, holder: 'pr-9', leaseMs: HOUR, requestId: 'pr-9-run-1' });
    const retried = await client.acquire({
      type,
      holder: 'pr-9',
      leaseMs: HOUR,
      requestId: 'pr-9-run-1',
      allowedSlugs: [first.slug === 'preview-1' ? 'preview-2' : 'preview-1'],
    });
    expect(retried).toEqual(first);
    expect((await client.list(type)).resources.filter((slot) => slot.leaseState === 'leased')).toHaveLength(
      1,
    );
  });
});

describe.concurrent('renew', () => {
  it('extends the current lease (even expired) and keeps leaseId, generation, wasDirty and previousHolder', async () => {
    const type = await pool('renew', 'preview-1');
    await cycle(type, 'preview-1', 'pr-1');
    const lease = await mustAcquire(type, 'preview-1', 'pr-2', 1_000);
    await waitForExpiry(client, type, 'preview-1');
    const renewed = await client.renew({ type, slug: 'preview-1', leaseId: lease.leaseId, leaseMs: HOUR });
    expect(renewed).toEqual({ ...lease, expiresAt: renewed?.expiresAt, leaseVersion: 2 });
    expect(renewed?.expiresAt).toBeGreaterThan(lease.expiresAt);
    expect(renewed).toMatchObject({ previousHolder: 'pr-1', wasDirty: true, generation: 2 });
    expect(await client.find(type, 'preview-1')).toMatchObject({
      expired: false,
      leasedUntil: renewed?.expiresAt,
    });
    const [event] = await client.events(type, 'preview-1', 1);
    expect(event).toMatchObject({
      event: 'renewed',
      holder: 'pr-2',
      generation: 2,
      detail: { leaseVersion: 2 },
    });
  });

  // Found by an adopter: a lease fence renewing every few minutes filled the slot's history with
  // renews, pushing out the acquires and releases an operator looks for.
  it("folds a lease's renews into one event, counted; another lease's renew is an event of its own", async () => {
    const type = await pool('renew-fold', 'preview-1');
    const lease = await mustAcquire(type, 'preview-1', 'pr-3');
    for (let renew = 0; renew < 5; renew++)
      await client.renew({ type, slug: 'preview-1', leaseId: lease.leaseId, leaseMs: HOUR });
    const events = await client.events(type, 'preview-1', 10);
    expect(events.map((event) => event.event)).toEqual(['renewed', 'acquired', 'added']);
    const [folded] = events;
    expect(folded?.detail).toMatchObject({ leaseVersion: 6, renews: 5 });
    expect(folded?.detail.firstAt).toBeLessThanOrEqual(folded?.at ?? 0);
    await client.release({ type, slug: 'preview-1', leaseId: lease.leaseId });
    const next = await mustAcquire(type, 'preview-1', 'pr-3');
    await client.renew({ type, slug: 'preview-1', leaseId: next.leaseId, leaseMs: HOUR });
    const after = await client.events(type, 'preview-1', 10);
    expect(after.map((event) => event.event)).toEqual([
      'renewed',
      'acquired',
      'released',
      'renewed',
      'acquired',
      'added',
    ]);
    expect(after[0]?.detail).not.toHaveProperty('renews');
  });

  it('answers null for a lease that is not the current one', async () => {
    const type = await pool('renew-gone', 'preview-1');
    const lease = await mustAcquire(type, 'preview-1', 'pr-1');
    await client.release({ type, slug: 'preview-1', leaseId: lease.leaseId });
    expect(await client.renew({ type, slug: 'preview-1', leaseId: lease.leaseId, leaseMs: HOUR })).toBeNull();
    const unknown = '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10';
    expect(await client.renew({ type, slug: 'preview-1', leaseId: unknown, leaseMs: HOUR })).toBeNull();
  });
});

describe.concurrent('release and dirty', () => {
  it('keeps dirty through releases without clean and cleans only with clean: true', async () => {
    const type = await pool('dirty', 'preview-1');
    const first = await mustAcquire(type, 'preview-1', 'pr-1');
    expect(first.wasDirty).toBe(false);
    expect(await client.release({ type, slug: 'preview-1', leaseId: first.leaseId })).toEqual({
      released: true,
      dirty: true,
      holder: 'pr-1',
      generation: 1,
      leaseVersion: 1,
      conditionFailed: false,
    });
    const slot = await client.find(type, 'preview-1');
    expect(slot).toMatchObject({
      leaseState: 'available',
      holder: null,
      leasedUntil: null,
      expired: false,
      dirty: true,
      lastHolder: 'pr-1',
      lastReleasedAt: slot.updatedAt,
    });
    const second = await mustAcquire(type, 'preview-1', 'gc');
    expect(second).toMatchObject({ wasDirty: true, previousHolder: 'pr-1' });
    expect(await client.release({ type, slug: 'preview-1', leaseId: second.leaseId, clean: true })).toEqual({
      released: true,
      dirty: false,
      holder: 'gc',
      generation: 2,
      leaseVersion: 1,
      conditionFailed: false,
    });
    const third = await mustAcquire(type, 'preview-1', 'pr-2');
    expect(third).toMatchObject({ wasDirty: false, previousHolder: 'gc' });
  });

  it('is idempotent: releasing a gone lease answers released false and changes nothing, clean included', async () => {
    const type = await pool('idempotent', 'preview-1');
    const lease = await mustAcquire(type, 'preview-1', 'pr-1');
    await client.release({ type, slug: 'preview-1', leaseId: lease.leaseId });
    const before = await client.find(type, 'preview-1');
    const eventsBefore = await client.events(type, 'preview-1');
    const nothing = {
      released: false,
      dirty: true,
      holder: null,
      generation: 1,
      leaseVersion: null,
      conditionFailed: false,
    };
    expect(await client.release({ type, slug: 'preview-1', leaseId: lease.leaseId, clean: true })).toEqual(
      nothing,
    );
    expect(await client.release({ type, slug: 'preview-1', force: true, clean: true })).toEqual(nothing);
    expect(await client.find(type, 'preview-1')).toEqual(before);
    expect(await client.events(type, 'preview-1')).toEqual(eventsBefore);
  });

  it('force-releases whatever lease is there, live or expired', async () => {
    const type = await pool('force-release', 'preview-1');
    await mustAcquire(type, 'preview-1', 'pr-1');
    expect(await client.release({ type, slug: 'preview-1', force: true, clean: true })).toEqual({
      released: true,
      dirty: false,
      holder: 'pr-1',
      generation: 1,
      leaseVersion: 1,
      conditionFailed: false,
    });
    const [event] = await client.events(type, 'preview-1', 1);
    expect(event).toMatchObject({ event: 'force-released', holder: 'pr-1', generation: 1 });
    expect(await client.find(type, 'preview-1')).toMatchObject({
      leaseState: 'available',
      lastHolder: 'pr-1',
    });
  });

  it('deletes a slot whose lease expired, and the client reports 409 leased and 404 as SemaphoreErrors', async () => {
    const type = await pool('delete-expired', 'preview-1', 'preview-2');
    await mustAcquire(type, 'preview-1', 'pr-1', 1_000);
    await mustAcquire(type, 'preview-2', 'pr-2');
    await expect(removeAsItIs(client, type, 'preview-2')).rejects.toMatchObject({
      status: 409,
      code: 'leased',
    });
    await waitForExpiry(client, type, 'preview-1');
    await removeAsItIs(client, type, 'preview-1');
    const error = await client.find(type, 'preview-1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SemaphoreError);
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe.concurrent('records never reveal a lease id', () => {
  it('holds no leaseId in slot records, listings or events after every kind of event', async () => {
    const type = await pool('secret', 'preview-1');
    const leaseIds: string[] = [];
    const first = await mustAcquire(type, 'preview-1', 'pr-1', 1_000);
    leaseIds.push(first.leaseId);
    await client.renew({ type, slug: 'preview-1', leaseId: first.leaseId, leaseMs: 1_000 });
    await waitForExpiry(client, type, 'preview-1');
    const second = await mustAcquire(type, 'preview-1', 'gc');
    const forced = present(
      await client.acquireSpecific({ type, slug: 'preview-1', holder: 'ana', leaseMs: HOUR, force: true }),
    );
    leaseIds.push(second.leaseId, forced.leaseId);
    await client.release({ type, slug: 'preview-1', force: true });
    const third = await mustAcquire(type, 'preview-1', 'pr-2');
    leaseIds.push(third.leaseId);

    const texts = [
      (await raw(semaphore, 'GET', `/api/resources?type=${type}`)).text,
      (await raw(semaphore, 'GET', `/api/resources/${type}/preview-1`)).text,
      (await raw(semaphore, 'GET', `/api/resources/${type}/preview-1/events?limit=500`)).text,
    ];
    const kinds = (await client.events(type, 'preview-1', 500)).map((event) => event.event);
    expect(new Set(kinds)).toEqual(
      new Set(['added', 'acquired', 'renewed', 'took-expired', 'evicted', 'force-released']),
    );
    for (const text of texts) {
      expect(text).not.toMatch(/leaseId/i);
      for (const leaseId of leaseIds) expect(text).not.toContain(leaseId);
    }
  });
});

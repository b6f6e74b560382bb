// reuseHeld, tookExpired, dirty adoption, mark-dirty, erase failures and operator notes, through the
// typed client against the real Worker in workerd (with the test clock, so leases expire at once).
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { advanceClock } from '../support/test-clock.ts';
import { expectError, freshPool, raw, removeAsItIs, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile({ testClock: true });

const HOUR = 3_600_000;

async function pool(name: string, ...slugs: string[]): Promise<string> {
  const type = freshPool(name);
  for (const slug of slugs) await local.client.add({ type, slug });
  return type;
}

async function take(type: string, slug: string, holder: string, leaseMs = HOUR): Promise<Lease> {
  const lease = await local.client.acquireSpecific({ type, slug, holder, leaseMs });
  if (lease === null) throw new Error(`${holder} could not take ${slug}`);
  return lease;
}

async function latestEvent(type: string, slug: string) {
  const [event] = await local.client.events(type, slug, 1);
  return event;
}

describe.concurrent('acquire with reuseHeld', () => {
  it("extends the holder's live lease and answers it again: same slot, leaseId and generation", async () => {
    const type = await pool('reuse', 'preview-1', 'preview-2');
    const first = await local.client.acquire({ type, holder: 'pr-7', leaseMs: HOUR, reuseHeld: true });
    expect(first).toMatchObject({ reused: false, tookExpired: false });
    await advanceClock(local.semaphore, type, 60_000);
    const second = await local.client.acquire({ type, holder: 'pr-7', leaseMs: HOUR, reuseHeld: true });
    // An extend is a renew: the lease's version moves on, so a force that read the first one misses.
    expect(second).toEqual({ ...first, expiresAt: second.expiresAt, leaseVersion: 2, reused: true });
    expect(second.expiresAt).toBeGreaterThanOrEqual(first.expiresAt + 60_000);
    const { resources } = await local.client.list(type);
    expect(resources.filter((slot) => slot.leaseState === 'leased')).toHaveLength(1);
    expect(await latestEvent(type, first.slug)).toMatchObject({
      event: 'renewed',
      holder: 'pr-7',
      generation: first.generation,
      detail: { reused: true, leasedUntil: second.expiresAt, leaseVersion: 2 },
    });
    // Without reuseHeld the same holder gets a second slot, as before.
    const other = await local.client.acquire({ type, holder: 'pr-7', leaseMs: HOUR });
    expect(other.slug).not.toBe(first.slug);
  });

  it('gives ten racing acquires of one holder one slot between them', async () => {
    const type = await pool('reuse-race', 'preview-1', 'preview-2', 'preview-3');
    const leases = await Promise.all(
      Array.from({ length: 10 }, () =>
        local.client.acquire({ type, holder: 'pr-9', leaseMs: HOUR, reuseHeld: true }),
      ),
    );
    expect(new Set(leases.map((lease) => lease.leaseId)).size).toBe(1);
    expect(leases.filter((lease) => !lease.reused)).toHaveLength(1);
    const { resources } = await local.client.list(type);
    expect(resources.filter((slot) => slot.leaseState === 'leased')).toHaveLength(1);
  });

  it('reuses the held slot even outside allowedSlugs, and answers a retry the same way', async () => {
    const type = await pool('reuse-allowed', 'preview-1', 'preview-2');
    const held = await take(type, 'preview-1', 'pr-4');
    const input = {
      type,
      holder: 'pr-4',
      leaseMs: HOUR,
      reuseHeld: true,
      allowedSlugs: ['preview-2'],
      requestId: 'deploy-1',
    };
    const reused = await local.client.acquire(input);
    expect(reused).toMatchObject({ slug: 'preview-1', leaseId: held.leaseId, reused: true });
    expect(await local.client.acquire(input)).toEqual(reused);
  });

  it('runs a normal acquire when the held lease expired, and says it took an expired lease', async () => {
    const type = await pool('reuse-expired', 'preview-1');
    const old = await take(type, 'preview-1', 'pr-3', 1_000);
    await advanceClock(local.semaphore, type, 2_000);
    const lease = await local.client.acquire({ type, holder: 'pr-3', leaseMs: HOUR, reuseHeld: true });
    expect(lease).toMatchObject({
      slug: 'preview-1',
      reused: false,
      tookExpired: true,
      wasDirty: true,
      previousHolder: 'pr-3',
      generation: old.generation + 1,
    });
    expect(lease.leaseId).not.toBe(old.leaseId);
  });
});

describe.concurrent('tookExpired', () => {
  it('is true only when the acquire ended an expired lease, not a free slot or a forced eviction', async () => {
    const type = await pool('took-expired', 'preview-1');
    expect(await take(type, 'preview-1', 'pr-1', 1_000)).toMatchObject({ tookExpired: false });
    await advanceClock(local.semaphore, type, 2_000);
    const retryInput = { type, slug: 'preview-1', holder: 'gc', leaseMs: HOUR, requestId: 'sweep-1' };
    const taken = await local.client.acquireSpecific(retryInput);
    expect(taken).toMatchObject({ tookExpired: true, reused: false, previousHolder: 'pr-1' });
    expect(await local.client.acquireSpecific(retryInput)).toEqual(taken);
    const forced = await local.client.acquireSpecific({ ...retryInput, requestId: 'x', force: true });
    expect(forced).toMatchObject({ tookExpired: false, previousHolder: 'gc' });
  });
});

describe.concurrent('dirty adoption and mark-dirty', () => {
  it('adds a slot dirty, so its first acquirer is told to erase it', async () => {
    const type = freshPool('adopt');
    const slot = await local.client.add({
      type,
      slug: 'preview-1',
      dirty: true,
      note: 'held data before adoption',
    });
    expect(slot).toMatchObject({ dirty: true, leaseState: 'available', generation: 0 });
    expect(await latestEvent(type, 'preview-1')).toMatchObject({
      event: 'added',
      detail: { dirty: true, note: 'held data before adoption' },
    });
    expect(await take(type, 'preview-1', 'gc')).toMatchObject({ wasDirty: true });
  });

  it('marks a free clean slot dirty, which acquire then takes after clean ones', async () => {
    const type = await pool('mark', 'preview-1', 'preview-2');
    const before = await local.client.find(type, 'preview-1');
    const marked = await local.client.markDirty({
      type,
      slug: 'preview-1',
      note: 'restored a backup by hand',
    });
    expect(marked).toMatchObject({ ...before, dirty: true, updatedAt: expect.any(Number) });
    expect(await latestEvent(type, 'preview-1')).toMatchObject({
      event: 'marked-dirty',
      holder: null,
      detail: { wasDirty: false, note: 'restored a backup by hand' },
    });
    const lease = await local.client.acquire({ type, holder: 'pr-1', leaseMs: HOUR });
    expect(lease.slug).toBe('preview-2');
  });

  it('marks a leased slot (already dirty) without touching its lease, and records who held it', async () => {
    const type = await pool('mark-leased', 'preview-1');
    const lease = await take(type, 'preview-1', 'pr-2');
    const before = await local.client.find(type, 'preview-1');
    expect(await local.client.markDirty({ type, slug: 'preview-1' })).toEqual(before);
    expect(await latestEvent(type, 'preview-1')).toMatchObject({
      event: 'marked-dirty',
      holder: 'pr-2',
      generation: lease.generation,
      detail: { wasDirty: true },
    });
  });

  it('answers 404 for a slot that does not exist', async () => {
    const type = await pool('mark-missing', 'preview-1');
    await expect(local.client.markDirty({ type, slug: 'preview-9' })).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});

describe.concurrent('erase failures', () => {
  const failure = {
    step: 'd1:app-preview-1-db',
    message: 'Cloudflare answered 403: the token lacks D1 edit',
  };

  it('counts failed erases in a row, keeps the last, and resets on a clean release', async () => {
    const type = await pool('erase-fail', 'preview-1');
    const first = await take(type, 'preview-1', 'gc');
    await local.client.release({ type, slug: 'preview-1', leaseId: first.leaseId, eraseFailure: failure });
    const once = await local.client.find(type, 'preview-1');
    expect(once).toMatchObject({
      dirty: true,
      eraseFailures: 1,
      lastEraseFailure: { ...failure, at: once.lastReleasedAt },
    });
    expect(await latestEvent(type, 'preview-1')).toMatchObject({
      event: 'released',
      detail: { clean: false, dirty: true, eraseFailure: failure },
    });

    // A dirty release that reports no failure (a deploy ending its lease) leaves the count alone.
    const deploy = await take(type, 'preview-1', 'pr-5');
    await local.client.release({ type, slug: 'preview-1', leaseId: deploy.leaseId });
    expect(await local.client.find(type, 'preview-1')).toMatchObject({ eraseFailures: 1 });

    const second = await take(type, 'preview-1', 'gc');
    const other = { step: 'kv:app-preview-1-cache', message: 'timed out' };
    await local.client.release({ type, slug: 'preview-1', force: true, eraseFailure: other });
    const twice = await local.client.find(type, 'preview-1');
    expect(twice).toMatchObject({
      eraseFailures: 2,
      lastEraseFailure: { ...other, at: twice.lastReleasedAt },
    });
    expect(second.generation).toBe(3);

    const third = await take(type, 'preview-1', 'gc');
    await local.client.release({ type, slug: 'preview-1', leaseId: third.leaseId, clean: true });
    expect(await local.client.find(type, 'preview-1')).toMatchObject({
      dirty: false,
      eraseFailures: 0,
      lastEraseFailure: null,
    });
  });

  it('records nothing when the release released nothing', async () => {
    const type = await pool('erase-gone', 'preview-1');
    const lease = await take(type, 'preview-1', 'gc');
    await local.client.release({ type, slug: 'preview-1', leaseId: lease.leaseId, clean: true });
    const answer = await local.client.release({
      type,
      slug: 'preview-1',
      leaseId: lease.leaseId,
      eraseFailure: failure,
    });
    expect(answer).toMatchObject({ released: false });
    expect(await local.client.find(type, 'preview-1')).toMatchObject({ eraseFailures: 0 });
  });
});

describe.concurrent('operator notes', () => {
  it('keeps the note of a release and of a delete in their events', async () => {
    const type = await pool('notes', 'preview-1');
    await take(type, 'preview-1', 'pr-1601');
    await local.client.release({ type, slug: 'preview-1', force: true, note: 'stuck since Friday — ana' });
    expect(await latestEvent(type, 'preview-1')).toMatchObject({
      event: 'force-released',
      detail: { note: 'stuck since Friday — ana' },
    });
    await removeAsItIs(local.client, type, 'preview-1', { note: 'pool shrinks to 3 & more' });
    await local.client.add({ type, slug: 'preview-1' });
    const [, deleted] = await local.client.events(type, 'preview-1', 2);
    expect(deleted).toMatchObject({ event: 'deleted', detail: { note: 'pool shrinks to 3 & more' } });
  });
});

describe('validation of the additions', () => {
  it('refuses bad notes, bad erase failures and an erase failure with clean: true', async () => {
    const type = await pool('additions-rules', 'preview-1');
    const leaseId = '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10';
    const release = { type, slug: 'preview-1', leaseId };
    const cases: [string, Record<string, unknown>, string][] = [
      ['/api/resources/release', { ...release, note: '' }, 'note'],
      ['/api/resources/release', { ...release, note: 'x'.repeat(201) }, 'note'],
      ['/api/resources/release', { ...release, note: 'line\n::warning::x' }, 'note'],
      ['/api/resources/mark-dirty', { type, slug: 'preview-1', note: 'a\u0007b' }, 'note'],
      ['/api/resources', { type, slug: 'preview-2', note: 'x'.repeat(201) }, 'note'],
      ['/api/resources', { type, slug: 'preview-2', dirty: 'yes' }, 'dirty'],
      ['/api/resources/acquire', { type, holder: 'pr-1', leaseMs: HOUR, reuseHeld: 1 }, 'reuseHeld'],
      [
        '/api/resources/release',
        { ...release, eraseFailure: { step: 'd1', message: 'x' }, clean: true },
        'eraseFailure',
      ],
      [
        '/api/resources/release',
        { ...release, eraseFailure: { step: 'x'.repeat(101), message: 'x' } },
        'step',
      ],
      [
        '/api/resources/release',
        { ...release, eraseFailure: { step: 'd1', message: 'x'.repeat(501) } },
        'message',
      ],
      ['/api/resources/release', { ...release, eraseFailure: { step: 'd1', message: 'a\rb' } }, 'message'],
      ['/api/resources/release', { ...release, eraseFailure: { step: 'd1' } }, 'message'],
      ['/api/resources/release', { ...release, eraseFailure: { step: 'd1', message: 'x', at: 1 } }, 'at'],
    ];
    for (const [path, body, field] of cases) {
      const error = expectError(await raw(local.semaphore, 'POST', path, { body }), 400, 'invalid_request');
      expect(error.message).toContain(field);
    }
    const deleteAnswer = await raw(local.semaphore, 'DELETE', `/api/resources/${type}/preview-1?note=%0A`);
    expect(expectError(deleteAnswer, 400, 'invalid_request').message).toContain('note');
    expect((await local.client.find(type, 'preview-1')).leaseState).toBe('available');
  });
});

// Conditional force (compare-and-release): a force that names the holder and/or generation it read
// changes nothing once the slot moved on. Against the real Worker in workerd.
import { describe, expect, it } from 'vitest';
import { SemaphoreError } from '../../src/semaphore/client.ts';
import type { Lease } from '../../src/semaphore/protocol.ts';
import { expectError, freshPool, raw, semaphoreForFile } from './helpers.ts';

const local = semaphoreForFile();

const HOUR = 3_600_000;

async function slotOfNewPool(name: string): Promise<string> {
  const type = freshPool(name);
  await local.client.add({ type, slug: 'preview-1' });
  return type;
}

async function take(type: string, holder: string): Promise<Lease> {
  const lease = await local.client.acquireSpecific({ type, slug: 'preview-1', holder, leaseMs: HOUR });
  if (lease === null) throw new Error(`${holder} could not take preview-1`);
  return lease;
}

/** A forced acquire of preview-1 by `holder` under a condition. */
function forceTake(type: string, holder: string, condition: { ifHolder?: string; ifGeneration?: number }) {
  return local.client.acquireSpecific({
    type,
    slug: 'preview-1',
    holder,
    leaseMs: HOUR,
    force: true,
    ...condition,
  });
}

/** The slot and its history, to show a call changed nothing. */
async function snapshot(type: string) {
  return {
    slot: await local.client.find(type, 'preview-1'),
    events: await local.client.events(type, 'preview-1'),
  };
}

describe.concurrent('conditional force release', () => {
  it("does nothing when the lease it read (pr-7's) was replaced by pr-8's in between", async () => {
    const type = await slotOfNewPool('cas-release');
    const seen = await take(type, 'pr-7');
    // pr-7's lease ends and pr-8 takes the slot between the caller's read and its force.
    await local.client.release({ type, slug: 'preview-1', leaseId: seen.leaseId });
    const current = await take(type, 'pr-8');
    const before = await snapshot(type);

    for (const condition of [
      { ifHolder: 'pr-7' },
      { ifGeneration: seen.generation },
      { ifHolder: 'pr-7', ifGeneration: seen.generation },
      { ifHolder: 'pr-8', ifGeneration: seen.generation },
    ]) {
      const answer = await local.client.release({
        type,
        slug: 'preview-1',
        force: true,
        clean: true,
        ...condition,
      });
      expect(answer).toEqual({
        released: false,
        dirty: true,
        conditionFailed: true,
        holder: 'pr-8',
        generation: current.generation,
        leaseVersion: 1,
      });
    }
    expect(await snapshot(type)).toEqual(before);
  });

  it('releases when the holder and generation still match, and names the holder it released', async () => {
    const type = await slotOfNewPool('cas-match');
    const lease = await take(type, 'pr-7');
    const answer = await local.client.release({
      type,
      slug: 'preview-1',
      force: true,
      ifHolder: 'pr-7',
      ifGeneration: lease.generation,
    });
    expect(answer).toEqual({
      released: true,
      dirty: true,
      conditionFailed: false,
      holder: 'pr-7',
      generation: lease.generation,
      leaseVersion: 1,
    });
    const [event] = await local.client.events(type, 'preview-1', 1);
    expect(event).toMatchObject({ event: 'force-released', holder: 'pr-7', generation: lease.generation });
  });

  it('treats each condition on its own: the same holder at a newer generation is another lease', async () => {
    const type = await slotOfNewPool('cas-same-holder');
    const old = await take(type, 'pr-7');
    await local.client.release({ type, slug: 'preview-1', leaseId: old.leaseId });
    const again = await take(type, 'pr-7');
    const stale = await local.client.release({
      type,
      slug: 'preview-1',
      force: true,
      ifGeneration: old.generation,
    });
    expect(stale).toMatchObject({ released: false, conditionFailed: true, generation: again.generation });
    const byHolder = await local.client.release({ type, slug: 'preview-1', force: true, ifHolder: 'pr-7' });
    expect(byHolder).toMatchObject({ released: true, holder: 'pr-7', generation: again.generation });
  });

  it('reports a free slot as a failed holder condition, with no holder', async () => {
    const type = await slotOfNewPool('cas-free');
    const answer = await local.client.release({ type, slug: 'preview-1', force: true, ifHolder: 'pr-7' });
    expect(answer).toEqual({
      released: false,
      dirty: false,
      conditionFailed: true,
      holder: null,
      generation: 0,
      leaseVersion: null,
    });
  });
});

describe.concurrent('conditional force acquire', () => {
  it('answers 409 condition_failed naming the current holder and generation, and changes nothing', async () => {
    const type = await slotOfNewPool('cas-acquire');
    const seen = await take(type, 'pr-7');
    await local.client.release({ type, slug: 'preview-1', leaseId: seen.leaseId });
    const current = await take(type, 'pr-8');
    const before = await snapshot(type);

    const error = await forceTake(type, 'gc', { ifHolder: 'pr-7', ifGeneration: seen.generation }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SemaphoreError);
    expect(error).toMatchObject({ status: 409, code: 'condition_failed' });
    expect((error as Error).message).toContain(`"pr-8" at generation ${current.generation}`);
    expect((error as Error).message).toContain('nothing was changed');
    expect(await snapshot(type)).toEqual(before);
  });

  it('evicts when the condition matches', async () => {
    const type = await slotOfNewPool('cas-evict');
    const seen = await take(type, 'pr-7');
    const forced = await forceTake(type, 'gc', { ifHolder: 'pr-7', ifGeneration: seen.generation });
    expect(forced).toMatchObject({ holder: 'gc', previousHolder: 'pr-7', generation: seen.generation + 1 });
  });

  it('lets exactly one of 20 concurrent forces pinned to the same generation through', async () => {
    const type = await slotOfNewPool('cas-race');
    const seen = await take(type, 'pr-7');
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        forceTake(type, `operator-${index}`, { ifGeneration: seen.generation }).then(
          () => 'took',
          (error: unknown) => (error instanceof SemaphoreError ? error.code : 'other'),
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'took')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'condition_failed')).toHaveLength(19);
    expect(await local.client.find(type, 'preview-1')).toMatchObject({ generation: seen.generation + 1 });
  });
});

describe('conditions over raw HTTP', () => {
  it('refuses a condition without force: true, and a generation that is not a non-negative integer', async () => {
    const type = await slotOfNewPool('cas-rules');
    const leaseId = '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10';
    const acquire = { type, slug: 'preview-1', holder: 'gc', leaseMs: HOUR };
    const cases: [string, Record<string, unknown>, string][] = [
      ['/api/resources/release', { type, slug: 'preview-1', leaseId, ifHolder: 'pr-7' }, 'ifHolder'],
      ['/api/resources/release', { type, slug: 'preview-1', leaseId, ifGeneration: 1 }, 'ifGeneration'],
      ['/api/resources/acquire-specific', { ...acquire, ifGeneration: 1 }, 'ifGeneration'],
      ['/api/resources/acquire-specific', { ...acquire, force: false, ifHolder: 'pr-7' }, 'ifHolder'],
      ['/api/resources/release', { type, slug: 'preview-1', force: true, ifGeneration: -1 }, 'ifGeneration'],
      ['/api/resources/release', { type, slug: 'preview-1', force: true, ifGeneration: 1.5 }, 'ifGeneration'],
      ['/api/resources/release', { type, slug: 'preview-1', force: true, ifHolder: 'a\nb' }, 'ifHolder'],
    ];
    for (const [path, body, field] of cases) {
      const error = expectError(await raw(local.semaphore, 'POST', path, { body }), 400, 'invalid_request');
      expect(error.message).toContain(field);
    }
  });
});

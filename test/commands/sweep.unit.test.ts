// The sweep (src/commands/sweep.ts) over injected clients: what it asks the semaphore, what it erases, and
// what it reports, slot by slot. Every slot it takes is given back, whatever happened to the others.
import { describe, expect, it } from 'vitest';
import { type GcOptions, runGc } from '../../src/commands/sweep.ts';
import {
  commandContext,
  expiredSlot,
  HOUR,
  MINUTE,
  NOW,
  releaseAnswer,
  ScriptedSemaphore,
  scriptedEraser,
  slotRecord,
} from './scripted-clients.ts';
import { scriptedSpend, spendContext } from './spend-clients.ts';

const OPTIONS: GcOptions = {
  dryRun: false,
  reclaimDirty: true,
  maxSlots: 20,
  leaseMs: 30 * MINUTE,
  deadlineAt: NOW + HOUR,
};

function semaphoreWith(...slots: ReturnType<typeof slotRecord>[]): ScriptedSemaphore {
  const semaphore = new ScriptedSemaphore();
  semaphore.listing = { now: NOW, resources: slots };
  return semaphore;
}

const live = slotRecord('preview-9', {
  leaseState: 'leased',
  holder: 'pr-42',
  leasedUntil: NOW + HOUR,
  dirty: true,
});

describe('runGc', () => {
  it("makes one listing, one write of the live lease's hour and one analytics read when nothing expired, nothing is dirty and nothing runs", async () => {
    const semaphore = semaphoreWith(slotRecord('preview-1'), live);
    const eraser = scriptedEraser();
    const spend = scriptedSpend();
    const report = await runGc(commandContext(semaphore, eraser, { spend: spendContext(spend) }), OPTIONS);

    // The live lease's quiet hour is kept: its cost so far counts every hour a read covered.
    expect(semaphore.trace()).toEqual(['list', 'record-activity preview-9']);
    expect(spend.reads).toEqual([['preview-1', 'preview-9']]);
    expect(eraser.requests).toEqual([]);
    expect(report.slots).toEqual([]);
    expect(report.semaphoreRequests).toBe(2);
  });

  it('on a dry run writes nothing: no acquire, renew or release, and every step only described', async () => {
    const dirty = slotRecord('preview-2', { dirty: true, lastReleasedAt: NOW - HOUR, lastHolder: 'pr-11' });
    const semaphore = semaphoreWith(expiredSlot('preview-1'), dirty, live);
    const eraser = scriptedEraser();
    const report = await runGc(commandContext(semaphore, eraser), { ...OPTIONS, dryRun: true });

    expect(semaphore.trace()).toEqual(['list']);
    expect(eraser.changed).toEqual([]);
    expect(eraser.requests.map((request) => [request.slug, request.dryRun])).toEqual([
      ['preview-1', true],
      ['preview-2', true],
    ]);
    expect(report.slots.map((slot) => [slot.slug, slot.outcome])).toEqual([
      ['preview-1', 'would-reclaim'],
      ['preview-2', 'would-reclaim'],
    ]);
    expect(report.slots[0]?.erase?.steps.every((step) => step.status === 'would-change')).toBe(true);
  });

  it('reports a slot forced away mid-erase as skipped, stops erasing it, and goes on with the next', async () => {
    const semaphore = semaphoreWith(expiredSlot('preview-1', 3 * HOUR), expiredSlot('preview-2', HOUR));
    let forcedAway = false;
    semaphore.answerRenew = async (request) =>
      request.slug === 'preview-1' && forcedAway
        ? null
        : semaphore.answerAcquire({ ...request, holder: 'gc' });
    semaphore.answerRelease = async (request) =>
      releaseAnswer(!(request.slug === 'preview-1' && forcedAway), request.clean !== true);
    semaphore.answerFind = async (slug) =>
      slotRecord(slug, { leaseState: 'leased', holder: 'alice', generation: 9 });
    const eraser = scriptedEraser([
      {
        kind: 'compute',
        run: (slug) => {
          if (slug === 'preview-1') forcedAway = true;
        },
      },
      { kind: 'd1' },
    ]);
    const report = await runGc(commandContext(semaphore, eraser), OPTIONS);

    expect(eraser.changed).toEqual(['preview-1 compute', 'preview-2 compute', 'preview-2 d1']);
    expect(report.slots.map((slot) => [slot.slug, slot.outcome])).toEqual([
      ['preview-1', 'skipped'],
      ['preview-2', 'reclaimed'],
    ]);
    expect(report.slots[0]?.problem).toMatch(/forced away by someone during the erase/);
  });

  it('releases a slot whose erase throws, dirty, reports it erase-failed, and goes on with the next', async () => {
    const semaphore = semaphoreWith(expiredSlot('preview-1', 3 * HOUR), expiredSlot('preview-2', HOUR));
    const eraser = scriptedEraser([
      {
        kind: 'kv',
        run: (slug) => {
          if (slug === 'preview-1') throw new Error('kv.bulkDelete: HTTP 500');
        },
      },
    ]);
    const report = await runGc(commandContext(semaphore, eraser), OPTIONS);

    expect(semaphore.trace()).toEqual([
      'list',
      'acquire-specific preview-1',
      'release preview-1 dirty',
      'acquire-specific preview-2',
      'release preview-2 clean',
      'list',
    ]);
    expect(report.slots.map((slot) => [slot.slug, slot.outcome])).toEqual([
      ['preview-1', 'erase-failed'],
      ['preview-2', 'reclaimed'],
    ]);
    expect(report.slots[0]?.problem).toMatch(/HTTP 500/);
  });

  it('never touches a slot someone leased since the listing', async () => {
    const semaphore = semaphoreWith(expiredSlot('preview-1'));
    semaphore.answerAcquire = async () => null;
    const eraser = scriptedEraser();
    const report = await runGc(commandContext(semaphore, eraser), OPTIONS);

    expect(semaphore.trace()).toEqual(['list', 'acquire-specific preview-1']);
    expect(eraser.requests).toEqual([]);
    expect(report.slots[0]).toMatchObject({ outcome: 'skipped', problem: 're-leased since the listing' });
  });

  it('acquires as gc without force, with a request id, for the GC lease', async () => {
    const semaphore = semaphoreWith(expiredSlot('preview-1'));
    await runGc(commandContext(semaphore, scriptedEraser()), OPTIONS);

    const acquire = semaphore.calls.find((call) => call.op === 'acquire-specific');
    expect(acquire?.op === 'acquire-specific' && acquire.request).toMatchObject({
      slug: 'preview-1',
      holder: 'gc',
      leaseMs: 30 * MINUTE,
      requestId: expect.any(String),
    });
    expect(acquire?.op === 'acquire-specific' && acquire.request.force).toBeUndefined();
  });

  it('leaves a slot untouched when the acquire fails, and says how to check the semaphore', async () => {
    const semaphore = semaphoreWith(expiredSlot('preview-1'));
    semaphore.answerAcquire = async () => {
      throw new Error('could not reach the semaphore (ECONNREFUSED)');
    };
    const eraser = scriptedEraser();
    const report = await runGc(commandContext(semaphore, eraser), OPTIONS);

    expect(eraser.requests).toEqual([]);
    expect(report.slots[0]).toMatchObject({
      outcome: 'acquire-failed',
      nextStep: expect.stringMatching(/status/),
    });
  });

  it('starts no slot after the deadline and refuses a protected one before any call', async () => {
    const semaphore = semaphoreWith(expiredSlot('preview-1'));
    const late = await runGc(commandContext(semaphore, scriptedEraser()), { ...OPTIONS, deadlineAt: NOW });
    expect(late.slots[0]?.outcome).toBe('deferred');

    const refused = semaphoreWith(expiredSlot('preview-1'));
    const protectedSlot = scriptedEraser(undefined, {
      'preview-1': "'app-preview-1' matches protect '*-prod*'",
    });
    const report = await runGc(commandContext(refused, protectedSlot), OPTIONS);
    expect(report.slots[0]).toMatchObject({
      outcome: 'erase-failed',
      problem: expect.stringMatching(/protect/),
    });

    expect([...semaphore.trace(), ...refused.trace()]).toEqual(['list', 'list']);
  });
});

describe('runGc with parallel slots', () => {
  /** An eraser whose compute step waits until the test lets that slot go on, counting slots in flight. */
  function gatedEraser() {
    const gates = new Map<string, (failure?: Error) => void>();
    const started: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const eraser = scriptedEraser([
      {
        kind: 'compute',
        run: (slug) => {
          started.push(slug);
          inFlight++;
          mostInFlight = Math.max(mostInFlight, inFlight);
          return new Promise<void>((resolve, reject) =>
            gates.set(slug, (failure?: Error) => {
              inFlight--;
              if (failure === undefined) resolve();
              else reject(failure);
            }),
          );
        },
      },
    ]);
    /** Resolves once `count` slots are waiting at their gate. */
    const waiting = async (count: number) => {
      while (gates.size < count) await new Promise((resolve) => setImmediate(resolve));
    };
    /** Lets the slot's step go on, or fail with `failure` (as a call the signal aborted does). */
    const open = (slug: string, failure?: Error) => gates.get(slug)?.(failure);
    return { eraser, started, waiting, open, mostInFlight: () => mostInFlight };
  }

  it('erases three slots at once, each under its own lease, and reports them in the order of the listing', async () => {
    const slots = ['preview-1', 'preview-2', 'preview-3', 'preview-4', 'preview-5'];
    const semaphore = semaphoreWith(...slots.map((slug, index) => expiredSlot(slug, (9 - index) * HOUR)));
    const gated = gatedEraser();
    const running = runGc(commandContext(semaphore, gated.eraser, { parallelSlots: 3 }), OPTIONS);

    await gated.waiting(3);
    expect(gated.started).toEqual(['preview-1', 'preview-2', 'preview-3']);
    // The later slots finish first; each freed lane takes the next slot of the listing.
    gated.open('preview-3');
    await gated.waiting(4);
    gated.open('preview-2');
    await gated.waiting(5);
    for (const slug of ['preview-5', 'preview-4', 'preview-1']) gated.open(slug);
    const report = await running;

    expect(gated.mostInFlight()).toBe(3);
    expect(report.slots.map((slot) => [slot.slug, slot.outcome])).toEqual(
      slots.map((slug) => [slug, 'reclaimed']),
    );
    const released = semaphore.trace().filter((call) => call.startsWith('release'));
    expect(released.sort()).toEqual(slots.map((slug) => `release ${slug} clean`));
  });

  it('on a signal stops every slot in flight, releases each, and starts no other', async () => {
    const slots = ['preview-1', 'preview-2', 'preview-3', 'preview-4'];
    const semaphore = semaphoreWith(...slots.map((slug) => expiredSlot(slug)));
    const controller = new AbortController();
    const gated = gatedEraser();
    const running = runGc(
      commandContext(semaphore, gated.eraser, { parallelSlots: 3, signal: controller.signal }),
      OPTIONS,
    );

    await gated.waiting(3);
    controller.abort('SIGTERM');
    // The call in flight in each slot fails, as the pacer fails a call the signal aborted.
    for (const slug of ['preview-2', 'preview-1', 'preview-3'])
      gated.open(slug, new Error('the run was stopped'));
    const report = await running;

    expect(report.slots.map((slot) => [slot.slug, slot.outcome])).toEqual(
      slots.map((slug) => [slug, 'interrupted']),
    );
    expect(report.slots[3]?.problem).toMatch(/not started/);
    expect(semaphore.trace().filter((call) => call.startsWith('acquire'))).toHaveLength(3);
    expect(
      semaphore
        .trace()
        .filter((call) => call.startsWith('release'))
        .sort(),
    ).toEqual(['release preview-1 dirty', 'release preview-2 dirty', 'release preview-3 dirty']);
  });
});

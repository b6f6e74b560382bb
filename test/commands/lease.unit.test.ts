// Holding a slot (src/commands/lease.ts): the erase runs only while the lease is ours, and the release
// always follows, clean only after a complete erase, and is reported as it really went.
import { describe, expect, it } from 'vitest';
import type { CommandContext, SlotEraser } from '../../src/commands/context.ts';
import { eraseThenRelease, type OutcomeOfErase, type ReportBase } from '../../src/commands/lease.ts';
import {
  commandContext,
  leaseFor,
  MINUTE,
  POOL,
  releaseAnswer,
  ScriptedSemaphore,
  type ScriptedStep,
  scriptedEraser,
  slotRecord,
} from './scripted-clients.ts';

const LEASE_MS = 30 * MINUTE;
const LEASE = leaseFor({ type: POOL, slug: 'preview-1', holder: 'gc', leaseMs: LEASE_MS });
const BASE: ReportBase = {
  slug: 'preview-1',
  previousHolder: 'pr-10',
  reason: 'expired',
  waitingMs: 0,
  erase: null,
};
const outcomeOf: OutcomeOfErase = (erase) =>
  erase.status === 'complete'
    ? { outcome: 'reclaimed' }
    : { outcome: 'erase-failed', ...(erase.problem === undefined ? {} : { problem: erase.problem }) };

/** Holds preview-1's lease through an erase and the release that follows, as gc and cleanup do. */
function holdLease(
  semaphore: ScriptedSemaphore,
  eraser: SlotEraser = scriptedEraser(),
  fields: Partial<CommandContext> = {},
) {
  return eraseThenRelease(commandContext(semaphore, eraser, fields), BASE, LEASE, LEASE_MS, outcomeOf);
}

/** A person takes the slot by force while the erase runs its `stepKind` step. */
function forcedAwayDuring(semaphore: ScriptedSemaphore, stepKind: ScriptedStep['kind']) {
  let forced = false;
  semaphore.answerRenew = async () => (forced ? null : LEASE);
  semaphore.answerRelease = async () => releaseAnswer(!forced, true);
  semaphore.answerFind = async (slug) =>
    slotRecord(slug, { leaseState: 'leased', holder: 'alice', generation: LEASE.generation + 1 });
  return scriptedEraser(
    (['compute', 'd1', 'kv', 'r2'] as const).map((kind) => ({
      kind,
      run: () => {
        if (kind === stepKind) forced = true;
      },
    })),
  );
}

describe('eraseThenRelease', () => {
  it('renews the lease before every step but the first, then releases clean after a complete erase', async () => {
    const semaphore = new ScriptedSemaphore();
    const eraser = scriptedEraser();
    const report = await holdLease(semaphore, eraser);

    expect(semaphore.trace()).toEqual([
      'renew preview-1',
      'renew preview-1',
      'renew preview-1',
      'release preview-1 clean',
    ]);
    expect(eraser.changed).toEqual(['preview-1 compute', 'preview-1 d1', 'preview-1 kv', 'preview-1 r2']);
    expect(report).toMatchObject({ outcome: 'reclaimed', generation: LEASE.generation });
    expect(report.erase?.status).toBe('complete');
  });

  it('stops the erase when the lease is lost mid-erase, and reports the slot as taken, not reclaimed', async () => {
    const semaphore = new ScriptedSemaphore();
    const eraser = forcedAwayDuring(semaphore, 'd1');
    const report = await holdLease(semaphore, eraser);

    // Nothing after the step in flight is touched once the renew says the lease is gone.
    expect(eraser.changed).toEqual(['preview-1 compute', 'preview-1 d1']);
    expect(semaphore.trace()).toEqual(['renew preview-1', 'renew preview-1', 'release preview-1 dirty']);
    // The erase says it was fenced, so the command's own outcome names the takeover (gc's: skipped,
    // in sweep.unit.test.ts); the release asks nothing more of the slot.
    expect(report.erase?.status).toBe('fenced');
  });

  it('stops the erase when the lease cannot be renewed, and reports a failure rather than a takeover', async () => {
    const semaphore = new ScriptedSemaphore();
    semaphore.answerRenew = async () => {
      throw new Error('the semaphore gave no answer in 10 s');
    };
    const eraser = scriptedEraser();
    const report = await holdLease(semaphore, eraser);

    expect(eraser.changed).toEqual(['preview-1 compute']);
    expect(semaphore.trace().at(-1)).toBe('release preview-1 dirty');
    expect(report.outcome).toBe('erase-failed');
    expect(report.problem).toMatch(/could not renew the lease before the next step.*no answer in 10 s/);
  });

  it('releases the lease, dirty, even when the erase throws, and says why', async () => {
    const semaphore = new ScriptedSemaphore();
    const eraser = scriptedEraser([
      { kind: 'compute' },
      {
        kind: 'd1',
        run: () => {
          throw new TypeError("Cannot read properties of undefined (reading 'uuid')");
        },
      },
    ]);
    const report = await holdLease(semaphore, eraser);

    expect(semaphore.trace().at(-1)).toBe('release preview-1 dirty');
    expect(report.outcome).toBe('erase-failed');
    expect(report.problem).toMatch(/the erase stopped: Cannot read properties of undefined/);
  });

  it('still releases after a signal stopped the erase, and reports the erase as aborted', async () => {
    const semaphore = new ScriptedSemaphore();
    const stop = new AbortController();
    const eraser = scriptedEraser([
      {
        kind: 'kv',
        run: () => {
          stop.abort('SIGTERM');
          throw new Error('kv.keys.list: the run was stopped');
        },
      },
    ]);
    const report = await holdLease(semaphore, eraser, { signal: stop.signal });

    expect(semaphore.trace()).toEqual(['release preview-1 dirty']);
    expect(report.erase?.status).toBe('aborted');
  });

  it('gives the exact command that finishes a release that failed', async () => {
    const semaphore = new ScriptedSemaphore();
    semaphore.answerRelease = async () => {
      throw new Error('could not reach the semaphore (ECONNRESET)');
    };
    const report = await holdLease(semaphore);

    expect(report.outcome).toBe('release-failed');
    expect(report.problem).toMatch(/ECONNRESET.*expires by itself/);
    expect(report.nextStep).toBe(`preview-gc release --slot preview-1 --lease-id ${LEASE.leaseId}`);
  });

  it('counts a release whose answer was lost as done when the slot shows it: same generation, free and clean', async () => {
    const semaphore = new ScriptedSemaphore();
    semaphore.answerRelease = async () => releaseAnswer(false, false);
    semaphore.answerFind = async (slug) =>
      slotRecord(slug, { generation: LEASE.generation, lastHolder: 'gc' });
    const report = await holdLease(semaphore);

    expect(report.outcome).toBe('reclaimed');
  });

  it('never claims a clean release it cannot prove: an unreadable slot counts as taken', async () => {
    const semaphore = new ScriptedSemaphore();
    semaphore.answerRelease = async () => releaseAnswer(false, true);
    semaphore.answerFind = async () => {
      throw new Error('the semaphore gave no answer in 10 s');
    };
    const report = await holdLease(semaphore);

    expect(report.outcome).toBe('skipped');
  });
});

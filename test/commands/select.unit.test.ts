import { describe, expect, it } from 'vitest';
import { selectSlots } from '../../src/commands/select.ts';
import { HOUR, NOW, slotRecord as slot } from './scripted-clients.ts';

const leased = (slug: string, holder: string, leasedUntil: number) =>
  slot(slug, { leaseState: 'leased', holder, leasedUntil, expired: leasedUntil <= NOW, dirty: true });

const pool = [
  leased('preview-1', 'pr-10', NOW - 2 * HOUR),
  leased('preview-2', 'pr-11', NOW + 2 * HOUR),
  slot('preview-3', { dirty: true, lastReleasedAt: NOW - 5 * HOUR, lastHolder: 'pr-12' }),
  slot('preview-4', {}),
  leased('preview-5', 'pr-13', NOW - 9 * HOUR),
  leased('preview-6', 'pr-14', NOW),
];

describe('selectSlots', () => {
  it('takes expired leases and dirty available slots, longest waiting first, never a live lease', () => {
    const selection = selectSlots({ now: NOW, resources: pool }, { reclaimDirty: true, maxSlots: 20 });
    expect(selection.selected.map((s) => [s.slot.slug, s.reason, s.waitingMs])).toEqual([
      ['preview-5', 'expired', 9 * HOUR],
      ['preview-3', 'dirty', 5 * HOUR],
      ['preview-1', 'expired', 2 * HOUR],
      ['preview-6', 'expired', 0],
    ]);
    expect(selection.expiredCount).toBe(3);
    expect(selection.leftForNextRun).toBe(0);
  });

  it('leaves dirty available slots alone when reclaim-dirty is off', () => {
    const selection = selectSlots({ now: NOW, resources: pool }, { reclaimDirty: false, maxSlots: 20 });
    expect(selection.selected.map((s) => s.slot.slug)).toEqual(['preview-5', 'preview-1', 'preview-6']);
  });

  it('caps the run at max-slots and counts what waits for the next run', () => {
    const selection = selectSlots({ now: NOW, resources: pool }, { reclaimDirty: true, maxSlots: 2 });
    expect(selection.selected.map((s) => s.slot.slug)).toEqual(['preview-5', 'preview-3']);
    expect(selection.leftForNextRun).toBe(2);
    expect(selection.expiredCount).toBe(3);
  });

  it('selects nothing in a healthy pool', () => {
    const healthy = [leased('preview-2', 'pr-11', NOW + HOUR), slot('preview-4', {})];
    expect(
      selectSlots({ now: NOW, resources: healthy }, { reclaimDirty: true, maxSlots: 20 }).selected,
    ).toEqual([]);
  });
});

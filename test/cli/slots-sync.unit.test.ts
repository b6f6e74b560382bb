// What `slots sync` plans from a listing: the rules that decide which slots it may add and remove.
import { describe, expect, it } from 'vitest';
import { planSync, wantedSlugs } from '../../src/cli/slots-sync.ts';
import type { Slot } from '../../src/semaphore/protocol.ts';
import { newSlotRecord } from '../semaphore/helpers.ts';

function slot(slug: string, fields: Partial<Slot> = {}): Slot {
  return { ...newSlotRecord('preview-slot', slug, 1), generation: 3, ...fields };
}

const pool = [
  slot('preview-1'),
  slot('preview-2', { leaseState: 'leased', holder: 'pr-7', leasedUntil: 99, expired: false }),
  slot('preview-3', { leaseState: 'leased', holder: 'pr-8', leasedUntil: 9, expired: true }),
  slot('preview-4', { dirty: true }),
  slot('preview-5'),
];

describe('planSync', () => {
  it('adds what is missing and only points at extras without --prune', () => {
    expect(
      planSync(pool, ['preview-1', 'preview-6'], false).map(({ slug, action }) => [slug, action]),
    ).toEqual([
      ['preview-1', 'unchanged'],
      ['preview-6', 'add'],
      ['preview-2', 'keep'],
      ['preview-3', 'keep'],
      ['preview-4', 'keep'],
      ['preview-5', 'keep'],
    ]);
  });

  it('with --prune removes free clean extras at the generation listed, never a leased one, expired lease included', () => {
    const plan = planSync(pool, ['preview-1'], true);
    expect(plan.map(({ slug, action, generation }) => [slug, action, generation])).toEqual([
      ['preview-1', 'unchanged', undefined],
      ['preview-2', 'keep', undefined],
      ['preview-3', 'keep', undefined],
      ['preview-4', 'keep', undefined],
      ['preview-5', 'remove', 3],
    ]);
    expect(plan.find((change) => change.slug === 'preview-3')?.reason).toBe(
      'an expired lease of pr-8 holds it; run gc, or release it first: preview-gc release --slot preview-3 --force --holder pr-8 --generation 3 --note why',
    );
    expect(plan.find((change) => change.slug === 'preview-4')?.reason).toMatch(
      /^dirty: it may hold data, which no sweep erases once it leaves the pool; run gc first .*--allow-dirty$/,
    );
  });

  it('with --prune --allow-dirty removes a dirty extra too, saying its data stays', () => {
    const plan = planSync(pool, ['preview-1'], true, true);
    expect(plan.find((change) => change.slug === 'preview-4')).toEqual({
      slug: 'preview-4',
      action: 'remove',
      generation: 3,
      reason: 'not in the list (dirty: its Cloudflare resources keep their data)',
    });
  });
});

describe('wantedSlugs', () => {
  it('numbers --count into --pattern, preview-{n} by default', () => {
    expect(wantedSlugs({ count: '3' })).toEqual(['preview-1', 'preview-2', 'preview-3']);
    expect(wantedSlugs({ count: '2', pattern: 'app-pr-{n}' })).toEqual(['app-pr-1', 'app-pr-2']);
  });

  it('takes --slugs as given, each once', () => {
    expect(wantedSlugs({ slugs: 'preview-2, preview-9,preview-2' })).toEqual(['preview-2', 'preview-9']);
  });

  it('refuses a count out of range and a pattern that names no valid slot', () => {
    expect(() => wantedSlugs({ count: '0' })).toThrow('--count must be a whole number from 1 to 1000');
    expect(() => wantedSlugs({ count: '1', pattern: 'Preview_{n}' })).toThrow(
      "'Preview_1' is not a slot name",
    );
  });
});

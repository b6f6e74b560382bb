// preview-gc slots remove <slug>...: slots leave the pool, only while nobody holds them, only as they
// were listed (the semaphore checks the generation), and a dirty one only when asked for.

import { forceReleaseStep } from '../commands/lease.ts';
import type { Slot } from '../semaphore/protocol.ts';
import { visible } from '../text/log-text.ts';
import { SEMAPHORE_ENV, SEMAPHORE_OPTIONS } from './inputs.ts';
import { connectPool } from './pool.ts';
import { applyChanges, checkedSlugs, printChanges, type SlotChange } from './slot-changes.ts';
import type { CommandSpec, OptionSpec } from './spec.ts';

/** slots remove and slots sync --prune: remove dirty slots too. */
export const ALLOW_DIRTY_OPTION: Record<string, OptionSpec> = {
  'allow-dirty': {
    type: 'boolean',
    description: 'Remove dirty slots too; their data stays in their resources, and no sweep erases it.',
  },
};

/**
 * Why a slot in the pool may not be removed now, or null. A lease, even an expired one, keeps it; so
 * does dirt, unless allowed: a dirty slot may hold a tenant's data, and no sweep erases a slot that
 * left the pool.
 */
export function removalBlocker(slot: Slot, allowDirty: boolean): string | null {
  if (slot.leaseState === 'leased') {
    const lease = slot.expired ? 'an expired lease' : 'a live lease';
    return `${lease} of ${visible(slot.holder ?? '?')} holds it; run gc, or release it first: ${forceReleaseStep(slot)}`;
  }
  if (slot.dirty && !allowDirty)
    return 'dirty: it may hold data, which no sweep erases once it leaves the pool; run gc first (it erases it), or give --allow-dirty';
  return null;
}

/** What removing a slot leaves behind, said once so nobody expects the resources to go. */
export function removalReason(slot: Slot, why: string): string {
  return slot.dirty ? `${why} (dirty: its Cloudflare resources keep their data)` : why;
}

/** The removal of a listed slot, pinned to the generation the listing showed. */
export function removal(slot: Slot, why: string): SlotChange {
  return { slug: slot.slug, action: 'remove', reason: removalReason(slot, why), generation: slot.generation };
}

export const slotsRemoveCommand: CommandSpec = {
  name: 'slots remove',
  summary: 'remove slots from the pool',
  usage: ['slots remove <slug>... [options]'],
  description: [
    'Removes each slot from the pool, so nobody leases it again. A slot with a lease, even an expired',
    'one, is kept: run gc or release it first. A dirty slot is kept too, unless --allow-dirty: its',
    'data would stay in its resources for good, since no sweep erases a slot outside the pool. The',
    'semaphore removes a slot only as the listing showed it (the same generation, clean unless',
    'allowed), so one leased in between is kept. It deletes no Cloudflare resource: the slot',
    'leaves the pool, its Worker, D1, KV and R2 stay as they are.',
  ].join('\n'),
  options: { ...ALLOW_DIRTY_OPTION, ...SEMAPHORE_OPTIONS },
  positionals: '<slug>...',
  env: SEMAPHORE_ENV,
  examples: ['slots remove preview-10', 'slots remove preview-10 --allow-dirty'],
  async run(parsed, io) {
    const slugs = checkedSlugs(parsed.positionals, 'preview-gc slots remove <slug>...');
    const allowDirty = parsed.values['allow-dirty'] === true;
    const { pool, semaphore } = await connectPool(slotsRemoveCommand, parsed, io);
    const listing = await semaphore.list(pool);
    const planned = slugs.map((slug): SlotChange => {
      const slot = listing.resources.find((candidate) => candidate.slug === slug);
      if (slot === undefined) return { slug, action: 'unchanged', reason: 'not in the pool' };
      const blocker = removalBlocker(slot, allowDirty);
      return blocker === null ? removal(slot, 'asked for') : { slug, action: 'keep', reason: blocker };
    });
    const changes = await applyChanges(semaphore, pool, planned, { dirty: false, allowDirty });
    const status = printChanges(io, { pool, dryRun: false, changes, json: parsed.values.json === true });
    // Asked to remove a slot that had to stay: the user's intent was not carried out.
    return changes.some((change) => change.action === 'keep') ? 1 : status;
  },
};

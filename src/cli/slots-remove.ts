// preview-gc slots remove <slug>...: slots leave the pool, only while nobody holds them.

import type { Slot } from '../semaphore/protocol.ts';
import { shellCommand } from '../text/shell.ts';
import { SEMAPHORE_ENV, SEMAPHORE_OPTIONS } from './inputs.ts';
import { connectPool } from './pool.ts';
import { applyChanges, checkedSlugs, printChanges, type SlotChange } from './slot-changes.ts';
import type { CommandSpec } from './spec.ts';

/** Why a slot in the pool may not be removed now, or null. A lease, even an expired one, keeps it. */
export function removalBlocker(slot: Slot): string | null {
  if (slot.leaseState !== 'leased') return null;
  const lease = slot.expired ? 'an expired lease' : 'a live lease';
  const release = shellCommand(['preview-gc', 'release', '--slot', slot.slug, '--force']);
  return `${lease} of ${slot.holder ?? '?'} holds it; run gc, or release it first${release === null ? ' (preview-gc release --force)' : `: ${release}`}`;
}

/** What removing a slot leaves behind, said once so nobody expects the resources to go. */
export function removalReason(slot: Slot, why: string): string {
  return slot.dirty ? `${why} (dirty: its Cloudflare resources keep their data)` : why;
}

export const slotsRemoveCommand: CommandSpec = {
  name: 'slots remove',
  summary: 'remove slots from the pool',
  usage: ['slots remove <slug>... [options]'],
  description: [
    'Removes each slot from the pool, so nobody leases it again. A slot with a lease, even an expired',
    'one, is kept: run gc or release it first. Cloudflare resources are never deleted: the slot',
    'leaves the pool, its Worker, D1, KV and R2 stay as they are.',
  ].join('\n'),
  options: SEMAPHORE_OPTIONS,
  positionals: '<slug>...',
  env: SEMAPHORE_ENV,
  examples: ['slots remove preview-10'],
  async run(parsed, io) {
    const slugs = checkedSlugs(parsed.positionals, 'preview-gc slots remove <slug>...');
    const { pool, semaphore } = await connectPool(slotsRemoveCommand, parsed, io);
    const listing = await semaphore.list(pool);
    const planned = slugs.map((slug): SlotChange => {
      const slot = listing.resources.find((candidate) => candidate.slug === slug);
      if (slot === undefined) return { slug, action: 'unchanged', reason: 'not in the pool' };
      const blocker = removalBlocker(slot);
      return blocker === null
        ? { slug, action: 'remove', reason: removalReason(slot, 'asked for') }
        : { slug, action: 'keep', reason: blocker };
    });
    const changes = await applyChanges(semaphore, pool, planned);
    const status = printChanges(io, { pool, dryRun: false, changes, json: parsed.values.json === true });
    // Asked to remove a slot that had to stay: the user's intent was not carried out.
    return changes.some((change) => change.action === 'keep') ? 1 : status;
  },
};

// preview-gc slots list: the pool's inventory.
import { formatDuration } from '../report/format.ts';
import type { Slot } from '../semaphore/protocol.ts';
import { visible } from '../text/log-text.ts';
import { plural } from '../text/words.ts';
import { SEMAPHORE_ENV, SEMAPHORE_OPTIONS } from './inputs.ts';
import { connectPool } from './pool.ts';
import type { CommandSpec } from './spec.ts';
import { holderCell, paint, renderTable } from './style.ts';

function stateOf(slot: Slot): string {
  if (slot.leaseState === 'available') return 'available';
  return slot.expired ? 'leased (expired)' : 'leased';
}

export const slotsListCommand: CommandSpec = {
  name: 'slots list',
  summary: 'list the slots in the pool',
  usage: ['slots list [options]'],
  description:
    'The inventory of the pool: every slot, its state, the last holder and when it joined the pool.\nFor leases and expiry times, see preview-gc status.',
  options: SEMAPHORE_OPTIONS,
  env: SEMAPHORE_ENV,
  examples: ['slots list', 'slots list --json'],
  async run(parsed, io) {
    const { pool, semaphore } = await connectPool(slotsListCommand, parsed, io);
    const listing = await semaphore.list(pool);
    if (parsed.values.json === true) {
      io.out(JSON.stringify({ pool, now: listing.now, slots: listing.resources }, null, 2));
      return 0;
    }
    const style = io.outStyle;
    const slots = listing.resources;
    const leased = slots.filter((slot) => slot.leaseState === 'leased').length;
    const dirty = slots.filter((slot) => slot.dirty).length;
    io.out(
      `${paint(style, 'bold', `Pool ${visible(pool)}`)}: ${plural(slots.length, 'slot')}, ${leased} leased, ${slots.length - leased} available, ${dirty} dirty`,
    );
    if (slots.length === 0) {
      io.out('  Add slots with: preview-gc slots add <slug>... or preview-gc slots sync --count <n>');
      return 0;
    }
    const rows = slots.map((slot) => [
      visible(slot.slug),
      stateOf(slot),
      holderCell(slot.holder),
      slot.dirty ? paint(style, 'yellow', 'yes') : 'no',
      String(slot.generation),
      holderCell(slot.lastHolder),
      `${formatDuration(listing.now - slot.createdAt)} ago`,
    ]);
    for (const line of renderTable(
      ['SLOT', 'STATE', 'HOLDER', 'DIRTY', 'GENERATION', 'LAST HOLDER', 'ADDED'],
      rows,
      style,
    ))
      io.out(line);
    return 0;
  },
};

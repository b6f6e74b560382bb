// The pieces of a slot both the pool table and the slot page show: its state, dirt and actions.
import { actionsFor, forceRelease, markDirty, removeSlot } from '../actions.js';
import { instant, leaseEnd } from '../clock.js';
import { button, h, visible } from '../dom.js';

/** @typedef {import('../answers.js').Slot} Slot */
/** @typedef {import('./view.js').Context} Context */

/** @param {Slot} slot */
export function stateBadge(slot) {
  const state = slot.holder === null ? 'free' : slot.expired ? 'expired' : 'leased';
  return h('span', { class: `badge ${state}` }, state);
}

/**
 * The lease's end, and whether gc keeps it (the pull request's keep label) and at most until when.
 * @param {Slot} slot
 */
export function leaseEndView(slot) {
  if (slot.leasedUntil === null) return h('span', { class: 'muted' }, '—');
  if (slot.keptUntil === null) return leaseEnd(slot.leasedUntil);
  const kept = h(
    'span',
    {
      class: 'badge kept',
      title: `kept by gc for the pull request's keep label, at most until ${instant(slot.keptUntil)}`,
    },
    'kept',
  );
  return h('span', {}, leaseEnd(slot.leasedUntil), ' ', kept);
}

/** @param {Slot} slot */
export function dirtView(slot) {
  const failures =
    slot.eraseFailures > 0
      ? h(
          'span',
          {
            class: 'badge failed',
            // A title cannot be isolated: spell hidden characters out.
            title:
              slot.lastEraseFailure === null
                ? ''
                : visible(`${slot.lastEraseFailure.step}: ${slot.lastEraseFailure.message}`),
          },
          `erase failed ×${slot.eraseFailures}`,
        )
      : null;
  return h(
    'span',
    {},
    h('span', { class: `badge ${slot.dirty ? 'dirty' : 'clean'}` }, slot.dirty ? 'dirty' : 'clean'),
    ' ',
    failures,
  );
}

/**
 * The buttons of the actions this slot offers to the signed-in role.
 * @param {Slot} slot
 * @param {Context} context
 */
export function slotActions(slot, { api, act, may }) {
  const offered = actionsFor(slot, may);
  return h(
    'span',
    { class: 'actions' },
    offered.release ? button('Force-release…', () => act(() => forceRelease(api, slot)), 'danger') : null,
    offered.markDirty ? button('Mark dirty…', () => act(() => markDirty(api, slot))) : null,
    offered.remove ? button('Remove…', () => act(() => removeSlot(api, slot))) : null,
  );
}

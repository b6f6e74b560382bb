// The operator's actions: each confirmed (its facts apart from its fixed sentences), with a note, on
// the semaphore's own check of what the page showed; offered as the signed-in role may.
import { isIdentifier } from './answers.js';
import { confirmAction } from './confirm.js';
import { dataText, h } from './dom.js';
import { holderView } from './links.js';

/** @typedef {import('./api.js').Api} Api */
/** @typedef {import('./answers.js').Slot} Slot */
/** @typedef {import('./answers.js').Whoami} Whoami */
/** @typedef {(Node | string)[]} Outcome */

/** @param {string} slug */
const slugText = (slug) => dataText(slug, 'slug');
/** @param {number | null} n */
const num = (n) => h('span', {}, String(n ?? '—'));

/** @param {Slot} slot @param {Whoami['actions']} may */
export function actionsFor(slot, may) {
  const liveLease = slot.holder !== null && !slot.expired;
  return {
    release: may.forceRelease && slot.holder !== null,
    markDirty: may.markDirty && !slot.dirty,
    remove: may.removeSlot && !liveLease,
  };
}

/** @param {Slot} slot @returns {[string, Node][]} */
function leaseFacts(slot) {
  return [
    ['Slot', slugText(slot.slug)],
    ['Holder', holderView(slot.holder)],
    ['Lease', h('span', {}, slot.expired ? 'expired' : 'live')],
    ['Generation', num(slot.generation)],
    ['Lease version', num(slot.leaseVersion)],
  ];
}

/**
 * @param {Api} api
 * @param {Slot} slot
 * @returns {Promise<Outcome | null>} null when the operator cancelled
 */
export async function forceRelease(api, slot) {
  const { type, slug, holder, generation, leaseVersion } = slot;
  if (holder === null) return null;
  const note = await confirmAction({
    title: 'Force-release this lease?',
    facts: leaseFacts(slot),
    consequence: [
      'This ends the lease above now.',
      ...(slot.expired ? [] : ['Its holder is not told: its next renew fails.']),
      'The slot stays dirty, so the next gc erases it before anyone uses it.',
      'Only while the slot has this very lease (not renewed since): otherwise nothing is released.',
    ],
    confirmLabel: 'Force-release',
  });
  if (note === null) return null;
  const answer = await api.forceRelease({ type, slug, holder, generation, leaseVersion, note });
  if (answer.released) {
    return [
      'Released ',
      slugText(slug),
      ' from ',
      holderView(holder),
      ` (generation ${generation}); it is dirty until the next gc erases it.`,
    ];
  }
  if (answer.conditionFailed) {
    /** @param {number | null} g @param {number | null} v */
    const at = (g, v) => ` (generation ${g ?? '?'}, lease version ${v ?? '—'})`;
    return [
      'Nothing was released: ',
      slugText(slug),
      ...(answer.holder === null ? [' has no holder now'] : [' is now held by ', holderView(answer.holder)]),
      `${at(answer.generation, answer.leaseVersion)}, not by `,
      holderView(holder),
      `${at(generation, leaseVersion)} as the page showed. The page now shows the current state.`,
    ];
  }
  return ['Nothing was released: ', slugText(slug), ' had no lease any more.'];
}

/**
 * @param {Api} api
 * @param {Slot} slot
 * @returns {Promise<Outcome | null>}
 */
export async function markDirty(api, slot) {
  const { type, slug, holder } = slot;
  const note = await confirmAction({
    title: 'Mark this slot dirty?',
    facts: [
      ['Slot', slugText(slug)],
      ['Holder', holderView(holder)],
    ],
    consequence: [
      'The next gc erases its data before anyone uses it again.',
      ...(holder === null ? [] : ['Its lease stays.']),
    ],
    confirmLabel: 'Mark dirty',
  });
  if (note === null) return null;
  await api.markDirty({ type, slug, note });
  return ['Marked ', slugText(slug), ' dirty.'];
}

/**
 * Remove, only as the page shows the slot; a dirty one only when the operator says so.
 * @param {Api} api
 * @param {Slot} slot
 * @returns {Promise<Outcome | null>}
 */
export async function removeSlot(api, slot) {
  const { type, slug, generation, dirty } = slot;
  const withData = h('input', { id: 'remove-dirty', type: 'checkbox' });
  const note = await confirmAction({
    title: `Remove this slot from ${type}?`,
    facts: [
      ['Slot', slugText(slug)],
      ['Dirty', h('span', {}, dirty ? 'dirty' : 'clean')],
      ['Generation', num(generation)],
    ],
    consequence: [
      'The slot leaves the pool until it is added again. Its history stays.',
      'Only while it is as shown here (not leased since): otherwise nothing is removed.',
    ],
    fields: dirty
      ? [h('label', { class: 'check' }, withData, ' Remove it with its data (never erased then)')]
      : [],
    check: () =>
      dirty && !withData.checked ? 'The slot is dirty: tick the box, or let gc erase it first.' : null,
    confirmLabel: 'Remove slot',
  });
  if (note === null) return null;
  await api.remove({ type, slug, generation, allowDirty: dirty && withData.checked, note });
  return ['Removed ', slugText(slug), ' from the pool.'];
}

/**
 * @param {Api} api
 * @param {string} type
 * @returns {Promise<Outcome | null>}
 */
export async function addSlot(api, type) {
  const slugInput = h('input', {
    id: 'add-slug',
    required: true,
    maxlength: 63,
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const dirtyInput = h('input', { id: 'add-dirty', type: 'checkbox' });
  const note = await confirmAction({
    title: `Add a slot to ${type}`,
    consequence: [
      'The new slot is free to acquire at once, unless it is added dirty: then the next gc erases it first.',
    ],
    fields: [
      h('label', { for: 'add-slug' }, 'Slot name (a-z, 0-9 and -)'),
      slugInput,
      h('label', { class: 'check' }, dirtyInput, ' Added dirty (it may hold data: erase it before use)'),
    ],
    check: () =>
      isIdentifier(slugInput.value.trim())
        ? null
        : 'A slot name is 1-63 of a-z, 0-9 and -, starts and ends with a letter or digit and has a letter.',
    confirmLabel: 'Add slot',
  });
  if (note === null) return null;
  const slug = slugInput.value.trim();
  await api.add({ type, slug, dirty: dirtyInput.checked, note });
  return ['Added ', slugText(slug), dirtyInput.checked ? ' (dirty).' : '.'];
}

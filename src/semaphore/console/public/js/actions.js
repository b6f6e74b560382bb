// The operator's actions on a pool: each one confirmed in words that name the slot and holder, each
// carrying the operator's note, each checked by the semaphore itself (a force-release only ends the
// lease the page showed). They answer what happened, for the status line.
import { isIdentifier } from './answers.js';
import { countdown } from './clock.js';
import { confirmAction } from './confirm.js';
import { dataText, h } from './dom.js';

/** @typedef {import('./api.js').Api} Api */
/** @typedef {import('./answers.js').Slot} Slot */
/** @typedef {(Node | string)[]} Outcome */

/** @param {string} slug */
const slugText = (slug) => dataText(slug, 'slug');
/** @param {string} holder */
const holderText = (holder) => dataText(holder, 'holder');

/** Which actions a slot offers, by what the page shows (the semaphore has the last word). */
export function actionsFor(/** @type {Slot} */ slot) {
  const liveLease = slot.holder !== null && !slot.expired;
  return { release: slot.holder !== null, markDirty: !slot.dirty, remove: !liveLease };
}

/**
 * Force-release, conditional on the holder and generation the page shows.
 * @param {Api} api
 * @param {Slot} slot
 * @returns {Promise<Outcome | null>} null when the operator cancelled
 */
export async function forceRelease(api, slot) {
  const { type, slug, holder, generation, leasedUntil } = slot;
  if (holder === null) return null;
  const lease = slot.expired ? 'expired lease' : 'live lease';
  const instead = !slot.expired && leasedUntil !== null ? ` instead of ${countdown(leasedUntil)}` : '';
  const note = await confirmAction({
    title: `Force-release ${slug}?`,
    consequence: [
      'This ends ',
      holderText(holder),
      `’s ${lease} on `,
      slugText(slug),
      ` now${instead}. `,
      ...(slot.expired ? [] : [holderText(holder), ' is not told: its next renew fails. ']),
      'The slot stays dirty, so the next gc erases it before anyone uses it. Only while ',
      holderText(holder),
      ` still holds it at generation ${generation}: if that changed since, nothing is released.`,
    ],
    confirmLabel: 'Force-release',
  });
  if (note === null) return null;
  const answer = await api.forceRelease({ type, slug, holder, generation, note });
  if (answer.released) {
    return [
      'Released ',
      slugText(slug),
      ' from ',
      holderText(holder),
      ` (generation ${generation}); it is dirty until the next gc erases it.`,
    ];
  }
  if (answer.conditionFailed) {
    const now =
      answer.holder === null ? ['has no holder now'] : ['is now held by ', holderText(answer.holder)];
    return [
      'Nothing was released: ',
      slugText(slug),
      ' ',
      ...now,
      ` (generation ${answer.generation ?? '?'}), not by `,
      holderText(holder),
      ` (generation ${generation}) as the page showed. The page now shows the current state.`,
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
    title: `Mark ${slug} dirty?`,
    consequence: [
      slugText(slug),
      ' is marked dirty: the next gc erases its data before anyone uses it again. ',
      ...(holder === null
        ? []
        : ['Its lease stays: ', holderText(holder), ' keeps the slot until the lease ends.']),
    ],
    confirmLabel: 'Mark dirty',
  });
  if (note === null) return null;
  await api.markDirty({ type, slug, note });
  return ['Marked ', slugText(slug), ' dirty.'];
}

/**
 * @param {Api} api
 * @param {Slot} slot
 * @returns {Promise<Outcome | null>}
 */
export async function removeSlot(api, slot) {
  const { type, slug } = slot;
  const note = await confirmAction({
    title: `Remove ${slug} from ${type}?`,
    consequence: [
      slugText(slug),
      ' leaves the pool: nobody can acquire it until it is added again. Its data is not erased, and its history stays.',
    ],
    confirmLabel: 'Remove slot',
  });
  if (note === null) return null;
  await api.remove({ type, slug, note });
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

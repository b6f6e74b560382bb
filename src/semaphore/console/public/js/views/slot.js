// One slot: what it is now, its actions, and its history, newest first, a page at a time.

import { lastHourView, spendView } from '../activity.js';
import { ago, instant } from '../clock.js';
import { button, dataText, factList, h, table } from '../dom.js';
import { holderView } from '../links.js';
import { dirtView, leaseEndView, slotActions, stateBadge } from './slot-parts.js';

/** @typedef {import('../answers.js').Slot} Slot */
/** @typedef {import('../answers.js').SlotEvent} SlotEvent */
/** @typedef {import('./view.js').View} View */
/** @typedef {import('./view.js').Context} Context */

export const PAGE_SIZE = 20;
/** The most events one answer may carry (the protocol's MAX_EVENTS_LIMIT). */
const MAX_EVENTS = 500;

/** @param {number | null} at */
const when = (at) =>
  at === null
    ? h('span', { class: 'muted' }, '—')
    : h('span', {}, instant(at), ' ', h('span', { class: 'muted' }, `(${ago(at)})`));

/**
 * A detail's value as text: times (`leasedUntil`, `expiredAt`) as the server's instants.
 * @param {string} name
 * @param {unknown} value
 */
function detailValue(name, value) {
  if (/(?:At|Until)$/.test(name) && Number.isSafeInteger(value))
    return instant(/** @type {number} */ (value));
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The event's note first, then any other detail as `name: value`, all as text.
 * @param {Record<string, unknown>} detail
 */
function detailView(detail) {
  const { note, ...rest } = detail;
  const parts = Object.entries(rest).map(([name, value]) =>
    h('span', { class: 'detail' }, dataText(`${name}: ${detailValue(name, value)}`)),
  );
  return h('span', {}, typeof note === 'string' ? h('q', { class: 'note' }, dataText(note)) : null, ...parts);
}

/** @param {SlotEvent} event */
function eventRow(event) {
  return h(
    'tr',
    {},
    h('td', {}, when(event.at)),
    h(
      'td',
      {},
      h(
        'span',
        { class: `event ${/^[a-z-]+$/.test(event.event) ? event.event : ''}` },
        dataText(event.event),
      ),
    ),
    h('td', {}, holderView(event.holder)),
    h('td', { class: 'number' }, String(event.generation)),
    h('td', {}, detailView(event.detail)),
  );
}

/**
 * @param {Slot} slot
 * @param {Context} context
 */
function summary(slot, context) {
  /** @type {[string, Node][]} */
  const facts = [
    ['State', stateBadge(slot)],
    ['Holder', holderView(slot.holder)],
    ['Lease ends', leaseEndView(slot)],
    ['Dirty', dirtView(slot)],
    ['Generation', h('span', {}, String(slot.generation))],
    ['Last holder', holderView(slot.lastHolder)],
    ['Last acquired', when(slot.lastAcquiredAt)],
    ['Last released', when(slot.lastReleasedAt)],
    ['Last hour', lastHourView(slot.activity, { words: true })],
    ['$/h', spendView(slot.activity, slot.leaseState === 'leased' && !slot.expired)],
  ];
  return [factList(facts), slotActions(slot, context)];
}

/**
 * @param {Context} context
 * @param {string} type
 * @param {string} slug
 * @returns {View}
 */
export function slotView(context, type, slug) {
  let page = 0;
  const now = h('div', { class: 'slot-now' });
  const body = h('tbody');
  const position = h('span', { class: 'muted' });
  const newer = button('← Newer', () => turn(-1));
  const older = button('Older →', () => turn(1));
  const element = h(
    'section',
    {},
    h('p', {}, h('a', { href: `#/pools/${encodeURIComponent(type)}` }, '← Pool ', dataText(type))),
    h('h1', {}, 'Slot ', dataText(slug, 'slug')),
    now,
    h('h2', {}, 'History'),
    table(['When', 'Event', 'Holder', 'Generation', 'Note and details'], body, 'history'),
    h('div', { class: 'pager' }, newer, position, older),
  );

  async function refresh() {
    const first = page * PAGE_SIZE;
    // One more than the page shows, to know whether an older page exists.
    const limit = Math.min(MAX_EVENTS, first + PAGE_SIZE + 1);
    const [slot, events] = await Promise.all([
      context.api.slot(type, slug),
      context.api.events(type, slug, limit),
    ]);
    now.replaceChildren(...summary(slot, context));
    const shown = events.slice(first, first + PAGE_SIZE);
    body.replaceChildren(...shown.map(eventRow));
    const capped = limit === MAX_EVENTS && events.length === MAX_EVENTS && first + PAGE_SIZE >= MAX_EVENTS;
    position.textContent =
      (shown.length === 0 ? 'no events' : `events ${first + 1}–${first + shown.length}, newest first`) +
      (capped ? ` (the semaphore serves the newest ${MAX_EVENTS})` : '');
    newer.disabled = page === 0;
    older.disabled = events.length <= first + PAGE_SIZE;
  }

  /** @param {number} step */
  function turn(step) {
    page = Math.max(0, page + step);
    context.refreshNow();
  }

  return { element, refresh };
}

// One pool: a row per slot with its state, holder, lease end (counting down by the server's clock),
// dirt, generation, last holder, its last hour at Cloudflare and what that costs, and the operator's
// actions; above it, the pool's queue (who waits for a slot, first first, and since when).
import { addSlot } from '../actions.js';
import { lastHourView, spendView } from '../activity.js';
import { ago, instant } from '../clock.js';
import { button, dataText, h, table } from '../dom.js';
import { holderView } from '../links.js';
import { dirtView, leaseEndView, slotActions, stateBadge } from './slot-parts.js';

/** @typedef {import('../answers.js').Slot} Slot */
/** @typedef {import('../answers.js').Queue} Queue */
/** @typedef {import('./view.js').View} View */
/** @typedef {import('./view.js').Context} Context */

const HEADINGS = [
  'Slot',
  'State',
  'Holder',
  'Lease ends',
  'Dirty',
  'Generation',
  'Last holder',
  'Last hour',
  '$/h',
  'Actions',
];

/**
 * @param {Slot} slot
 * @param {Context} context
 */
function row(slot, context) {
  const history = `#/pools/${encodeURIComponent(slot.type)}/${encodeURIComponent(slot.slug)}`;
  return h(
    'tr',
    { 'data-slug': slot.slug },
    h('td', {}, h('a', { href: history, title: 'history' }, dataText(slot.slug, 'slug'))),
    h('td', {}, stateBadge(slot)),
    h('td', {}, holderView(slot.holder)),
    h('td', {}, leaseEndView(slot)),
    h('td', {}, dirtView(slot)),
    h('td', { class: 'number' }, String(slot.generation)),
    h('td', {}, holderView(slot.lastHolder)),
    h('td', {}, lastHourView(slot.activity)),
    h('td', { class: 'number' }, spendView(slot.activity, slot.leaseState === 'leased' && !slot.expired)),
    h('td', {}, slotActions(slot, context)),
  );
}

/** @param {Queue} queue */
function queueView({ length, waiters }) {
  if (length === 0) return [h('p', { class: 'muted' }, 'Nobody is waiting for a slot.')];
  return [
    h('p', {}, `${length} waiting for a slot, first come, first served:`),
    h(
      'ol',
      {},
      ...waiters.map((waiter) =>
        h(
          'li',
          { value: waiter.position },
          holderView(waiter.holder),
          ` since ${instant(waiter.waitingSince)} (${ago(waiter.waitingSince)})`,
        ),
      ),
    ),
  ];
}

/**
 * @param {Context} context
 * @param {string} type
 * @returns {View}
 */
export function poolView(context, type) {
  const body = h('tbody');
  const summary = h('p', { class: 'muted' });
  const queue = h('div', { class: 'queue' });
  const element = h(
    'section',
    {},
    h('p', {}, h('a', { href: '#/' }, '← Pools')),
    h('h1', {}, 'Pool ', dataText(type)),
    h(
      'div',
      { class: 'toolbar' },
      summary,
      context.may.addSlot ? button('Add slot…', () => context.act(() => addSlot(context.api, type))) : null,
    ),
    queue,
    table(HEADINGS, body, 'slots'),
  );
  return {
    element,
    async refresh() {
      const { resources, queue: waiting } = await context.api.slots(type);
      queue.replaceChildren(...queueView(waiting));
      performance.mark('console:pool-table');
      body.replaceChildren(...resources.map((slot) => row(slot, context)));
      performance.measure('console: pool table drawn', 'console:pool-table');
      // Counted as the pools listing counts them: an expired lease is still a lease until it is taken.
      const leased = resources.filter((slot) => slot.holder !== null).length;
      const expired = resources.filter((slot) => slot.expired).length;
      const dirty = resources.filter((slot) => slot.dirty).length;
      summary.textContent = `${resources.length} slots: ${leased} leased (${expired} of them expired), ${dirty} dirty`;
    },
  };
}

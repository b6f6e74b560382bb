// The first page: every pool the semaphore has, with how many of its slots are leased, expired, dirty.
import { dataText, h, table } from '../dom.js';

/** @typedef {import('./view.js').View} View */
/** @typedef {import('./view.js').Context} Context */

/** @param {Context} context @returns {View} */
export function poolsView({ api }) {
  const body = h('tbody');
  const empty = h(
    'p',
    { class: 'muted', hidden: true },
    'The semaphore has no pool yet: a pool exists once it has a slot (docs/semaphore.md, “Seed a pool”).',
  );
  const element = h(
    'section',
    {},
    h('h1', {}, 'Pools'),
    table(['Pool', 'Slots', 'Leased', 'of them expired', 'Dirty'], body, 'pools'),
    empty,
  );
  return {
    element,
    async refresh() {
      const { pools } = await api.pools();
      empty.hidden = pools.length > 0;
      body.replaceChildren(
        ...pools.map((pool) =>
          h(
            'tr',
            {},
            h('td', {}, h('a', { href: `#/pools/${encodeURIComponent(pool.type)}` }, dataText(pool.type))),
            h('td', { class: 'number' }, String(pool.slots)),
            h('td', { class: 'number' }, String(pool.leased)),
            h('td', { class: 'number' }, String(pool.expired)),
            h('td', { class: 'number' }, String(pool.dirty)),
          ),
        ),
      );
    },
  };
}

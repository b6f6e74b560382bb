// A slot's last hour at Cloudflare, as gc read it and the semaphore keeps it (the slot's `activity`):
// a small bar chart of its twelve five-minute parts (requests, alarms in their own colour) and the
// dollars an hour. The chart is SVG built from numbers only: the one text in it, its title, is a
// Text node, and no attribute takes anything from the server but a number.
import { ago, instant } from './clock.js';
import { h } from './dom.js';

/** @typedef {import('./answers.js').Activity} Activity */

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 96;
const HEIGHT = 24;
const GAP = 1;

/**
 * An SVG element with numeric or constant attributes.
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {...Node} children
 */
function svg(tag, attributes, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/** `1,204`, without Intl's locale (the page reads the same on every computer). @param {number} n */
export function count(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** `$5.04/h`, `$312/h`, `< $0.01/h`, `$0/h`, as the job summary writes them. @param {number} usd */
export function dollarsPerHour(usd) {
  if (usd === 0) return '$0/h';
  if (usd < 0.01) return '< $0.01/h';
  if (usd < 100) return `$${usd.toFixed(2)}/h`;
  return `$${count(usd)}/h`;
}

/** `3,610 requests, 43,200 alarms, 867 object-hours`, or `quiet`. @param {Activity} activity */
export function lastHourText(activity) {
  const { workerRequests, objectRequests, alarms, activeSeconds } = activity.figures;
  const requests = workerRequests + objectRequests - alarms;
  const hours = activeSeconds / 3600;
  const parts = [
    requests > 0 ? `${count(requests)} requests` : '',
    alarms > 0 ? `${count(alarms)} alarms` : '',
    activeSeconds > 0 ? `${hours < 10 ? hours.toFixed(1) : count(hours)} object-hours` : '',
  ].filter(Boolean);
  return parts.length === 0 ? 'quiet' : parts.join(', ');
}

/**
 * The chart: one bar per part of the hour, its height the part's invocations against the hour's
 * busiest part, its alarms drawn over it in their own colour.
 * @param {Activity} activity
 */
export function activityChart(activity) {
  const buckets = activity.buckets;
  const busiest = Math.max(1, ...buckets.map((bucket) => bucket.requests));
  const width = buckets.length === 0 ? WIDTH : WIDTH / buckets.length;
  const bars = buckets.flatMap((bucket, index) => {
    const x = index * width;
    /** @param {number} value */
    const tall = (value) => (value === 0 ? 0 : Math.max(1, (value / busiest) * HEIGHT));
    const requests = tall(bucket.requests);
    const alarms = tall(Math.min(bucket.alarms, bucket.requests));
    return [
      svg('rect', { class: 'requests', x, y: HEIGHT - requests, width: width - GAP, height: requests }),
      svg('rect', { class: 'alarms', x, y: HEIGHT - alarms, width: width - GAP, height: alarms }),
    ];
  });
  // What the bars show, in words: the tooltip, and what a screen reader says (the title names the image).
  const title = svg('title', {});
  title.textContent = `The hour to ${instant(activity.until)}: ${lastHourText(activity)}, ${dollarsPerHour(activity.usdPerHour)} (read ${ago(activity.at)})`;
  return svg(
    'svg',
    { class: 'activity-chart', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, role: 'img' },
    title,
    svg('line', { class: 'baseline', x1: 0, y1: HEIGHT - 0.5, x2: WIDTH, y2: HEIGHT - 0.5 }),
    ...bars,
  );
}

/**
 * The slot's last hour: the chart (the pool table), with the hour in words beside it (the slot's
 * page) and "still running" when parking did not stop its compute; a dash before gc's first record.
 * @param {Activity | null} activity
 * @param {{ words?: boolean }} [options]
 */
export function lastHourView(activity, options = {}) {
  if (activity === null) return h('span', { class: 'muted', title: 'gc has not read this slot yet' }, '—');
  return h(
    'span',
    { class: 'last-hour' },
    activityChart(activity),
    options.words === true ? h('span', {}, lastHourText(activity)) : null,
    activity.stillRunning
      ? h('span', { class: 'badge still-running', title: 'its compute ran after its park' }, 'still running')
      : null,
  );
}

/** "about $0.42 so far", "less than a cent so far": a lease's cost as gc's reads summed it. */
function leaseCostText(/** @type {{ usd: number, missingMs: number }} */ cost) {
  const dollars = cost.usd < 0.005 ? 'less than a cent' : `about $${cost.usd.toFixed(2)}`;
  const missing = cost.missingMs > 0 ? `, ${Math.round(cost.missingMs / 60_000)} min without a read` : '';
  return `lease: ${dollars} so far${missing}`;
}

/**
 * The "$/h" cell, with a live lease's cost so far and its park for spend.
 * @param {Activity | null} activity @param {boolean} [live] whether a live lease holds the slot
 */
export function spendView(activity, live = false) {
  if (activity === null) return h('span', { class: 'muted' }, '—');
  return h(
    'span',
    { class: 'spend' },
    dollarsPerHour(activity.usdPerHour),
    live && activity.leaseCost !== null
      ? h('span', { class: 'muted' }, ` · ${leaseCostText(activity.leaseCost)}`)
      : null,
    live && activity.parkedForSpend !== null
      ? h(
          'span',
          { class: 'badge still-running', title: 'parked for spend: the next deploy brings it back' },
          'parked for spend',
        )
      : null,
  );
}

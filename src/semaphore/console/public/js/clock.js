// The semaphore's clock, not this computer's: leases end by the server's time, so every countdown is
// the server's `now` (from its last answer) carried forward by this computer's elapsed time.
import { h } from './dom.js';

let offsetMs = 0;

/**
 * Takes the server's `now` from an answer, assuming it was read halfway through the request.
 * @param {number} serverNow
 * @param {number} sentAt this computer's Date.now() when the request left
 * @param {number} receivedAt this computer's Date.now() when the answer arrived
 */
export function observeServerNow(serverNow, sentAt, receivedAt) {
  offsetMs = serverNow - (sentAt + receivedAt) / 2;
}

export function serverNow() {
  return Date.now() + offsetMs;
}

/** @param {number} ms */
function duration(ms) {
  const seconds = Math.floor(ms / 1000);
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${seconds % 60}s`;
  return `${seconds}s`;
}

/**
 * `in 3h 59m` or `expired 12s ago`, by the server's clock.
 * @param {number} until epoch milliseconds
 */
export function countdown(until) {
  const left = until - serverNow();
  return left > 0 ? `in ${duration(left)}` : `expired ${duration(-left)} ago`;
}

/** @param {number} at epoch milliseconds */
export function ago(at) {
  const since = serverNow() - at;
  return since >= 0 ? `${duration(since)} ago` : `in ${duration(-since)}`;
}

const FORMAT = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** @param {number} at epoch milliseconds */
export function instant(at) {
  return FORMAT.format(at);
}

/**
 * The lease end of a slot: the server's time, and a countdown that `tickCountdowns` keeps current.
 * @param {number} until epoch milliseconds
 */
export function leaseEnd(until) {
  return h(
    'span',
    { class: 'lease-end' },
    h('time', { datetime: new Date(until).toISOString() }, instant(until)),
    ' ',
    h('span', { class: 'countdown', 'data-until': until }, countdown(until)),
  );
}

/** Moves every countdown on the page forward; runs once a second. */
export function tickCountdowns() {
  for (const element of document.querySelectorAll('[data-until]')) {
    const until = Number(element.getAttribute('data-until'));
    element.textContent = countdown(until);
  }
}

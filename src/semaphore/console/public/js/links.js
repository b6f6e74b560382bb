// A holder is its own box, never words of a sentence; `pr-<n>` and `<REPOSITORY>/pr-<n>` (an OIDC
// deploy's) link to the Worker's REPOSITORY's pull request n, and no other repository's holder links. One outside the rule (an older semaphore's) is flagged, such characters spelt out.
import { h, spellOut } from './dom.js';

const PULL_REQUEST_HOLDER = /^(?:([^/]+\/[^/]+)\/)?pr-([1-9][0-9]{0,9})$/;
// Checked again here, whatever the Worker sent: the link is built from these two parts only.
const REPOSITORY = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;

/** @type {string | null} */
let repository = null;

/** @param {string | null} value `owner/name`, or null for no links */
export function linkHoldersTo(value) {
  repository = value !== null && REPOSITORY.test(value) && !/\/\.\.?$/.test(value) ? value : null;
}

const HOLDER = /^[A-Za-z0-9_.:@/-]{1,200}$/;

/** @param {string | null} holder */
export function holderView(holder) {
  if (holder === null) return h('span', { class: 'muted' }, '—');
  if (!HOLDER.test(holder)) {
    return h(
      'span',
      { class: 'holder flagged' },
      h('bdi', {}, spellOut(holder, /[^A-Za-z0-9_.:@/-]/gu)),
      h('span', { class: 'flag' }, '⚠ not a holder name'),
    );
  }
  const [, owner, number] = PULL_REQUEST_HOLDER.exec(holder) ?? [];
  // Exactly the Worker's repository, as holders are compared everywhere: never by case or prefix.
  const own = owner === undefined || owner === repository;
  if (repository === null || number === undefined || !own) return h('bdi', { class: 'holder' }, holder);
  const href = `https://github.com/${repository}/pull/${number}`;
  return h('a', { href, class: 'holder', rel: 'noopener noreferrer', target: '_blank' }, holder);
}

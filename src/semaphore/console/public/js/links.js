// Holders named `pr-<n>` (the convention preview deploys use) link to pull request n of the
// repository the Worker was told (its REPOSITORY var); any other holder is plain text.
import { dataText, h } from './dom.js';

const PULL_REQUEST_HOLDER = /^pr-([1-9][0-9]{0,9})$/;
// Checked again here, whatever the Worker sent: the link is built from these two parts only.
const REPOSITORY = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;

/** @type {string | null} */
let repository = null;

/** @param {string | null} value `owner/name`, or null for no links */
export function linkHoldersTo(value) {
  repository = value !== null && REPOSITORY.test(value) && !/\/\.\.?$/.test(value) ? value : null;
}

/**
 * A holder as text, linked to its pull request when there is one to link to.
 * @param {string | null} holder
 */
export function holderView(holder) {
  if (holder === null) return h('span', { class: 'muted' }, '—');
  const number = PULL_REQUEST_HOLDER.exec(holder)?.[1];
  if (repository === null || number === undefined) return dataText(holder, 'holder');
  const href = `https://github.com/${repository}/pull/${number}`;
  return h('a', { href, class: 'holder', rel: 'noopener noreferrer', target: '_blank' }, holder);
}

// The console's entry: signing in and out, the page for the address (#/, #/pools/<pool>,
// #/pools/<pool>/<slot>), the poller that keeps it current, and the status line.
import { isIdentifier } from './answers.js';
import { Api, ApiError } from './api.js';
import { instant, serverNow, tickCountdowns } from './clock.js';
import { byId, dataText, h } from './dom.js';
import { linkHoldersTo } from './links.js';
import { poolView } from './views/pool.js';
import { poolsView } from './views/pools.js';
import { slotView } from './views/slot.js';

/** @typedef {import('./views/view.js').View} View */
/** @typedef {import('./views/view.js').Context} Context */
/** @typedef {import('./views/view.js').Outcome} Outcome */

const POLL_MS = 5000;
// sessionStorage only: the token lives as long as this tab and is never written anywhere else.
const TOKEN_KEY = 'preview-gc.semaphore-token';

const signInSection = byId('sign-in', HTMLElement);
const signInForm = byId('sign-in-form', HTMLFormElement);
const tokenInput = byId('token', HTMLInputElement);
const signInError = byId('sign-in-error', HTMLElement);
const signOutButton = byId('sign-out', HTMLButtonElement);
const roleLine = byId('role', HTMLElement);
const viewSlot = byId('view', HTMLElement);
const status = byId('status', HTMLElement);
const clock = byId('server-clock', HTMLElement);

/** @type {Api | null} */
let api = null;
/** The signed-in role's actions, the only ones offered. @type {import('./answers.js').Whoami['actions']} */
let may = { forceRelease: false, markDirty: false, addSlot: false, removeSlot: false };
/** @type {View | null} */
let current = null;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let pollTimer;
let refreshing = false;
let refreshAgain = false;
/** Whether the status line shows a failed refresh, which the next good one clears. */
let showsRefreshProblem = false;

/**
 * @param {Outcome} message
 * @param {'ok' | 'error'} kind
 */
function report(message, kind) {
  status.className = kind;
  status.replaceChildren(...message);
  showsRefreshProblem = false;
}

/** @param {unknown} error */
function describe(error) {
  return error instanceof Error ? error.message : 'an unexpected error';
}

function showSignIn(/** @type {string} */ problem = '') {
  api = null;
  current = null;
  clearTimeout(pollTimer);
  viewSlot.replaceChildren();
  signOutButton.hidden = true;
  clock.textContent = '';
  roleLine.replaceChildren();
  signInSection.hidden = false;
  signInError.textContent = problem;
  tokenInput.focus();
}

/** @param {string} problem */
function signOut(problem) {
  sessionStorage.removeItem(TOKEN_KEY);
  status.replaceChildren();
  showSignIn(problem);
}

/** @param {unknown} error */
function isRefusedToken(error) {
  return error instanceof ApiError && error.code === 'unauthorized';
}

/** @param {string} token @param {string} refusal what to say when the semaphore refuses the token */
async function signIn(token, refusal) {
  const candidate = new Api(token);
  let config;
  let role;
  try {
    [config, role] = await Promise.all([candidate.config(), candidate.whoami()]);
  } catch (error) {
    if (isRefusedToken(error)) signOut(`${refusal} The semaphore said: “${describe(error)}”`);
    else showSignIn(`Could not sign in: ${describe(error)}`);
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  api = candidate;
  may = role.actions;
  roleLine.replaceChildren(
    'signed in as ',
    dataText(role.role, 'role'),
    role.role === 'read' ? ' (view only)' : '',
  );
  linkHoldersTo(config.repository);
  signInSection.hidden = true;
  signInError.textContent = '';
  tokenInput.value = '';
  signOutButton.hidden = false;
  if (config.repositoryProblem !== null) report([dataText(config.repositoryProblem)], 'error');
  show();
}

/** Moves the countdowns and the semaphore's time in the header forward. */
function tick() {
  tickCountdowns();
  if (api !== null) clock.textContent = `semaphore time ${instant(serverNow())}`;
}

/** Runs the page's refresh now, one at a time, then again every POLL_MS while the tab is visible. */
async function refreshNow() {
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  const view = current;
  if (view === null) return;
  refreshing = true;
  clearTimeout(pollTimer);
  try {
    await view.refresh();
    tick();
    if (showsRefreshProblem) report([], 'ok');
  } catch (error) {
    if (isRefusedToken(error)) signOut('The semaphore refused the token (was it rotated?). Sign in again.');
    else if (view === current) {
      report([`Could not refresh: ${describe(error)}. Trying again every ${POLL_MS / 1000} s.`], 'error');
      showsRefreshProblem = true;
    }
  }
  refreshing = false;
  if (refreshAgain) {
    refreshAgain = false;
    return refreshNow();
  }
  if (current !== null && !document.hidden) pollTimer = setTimeout(refreshNow, POLL_MS);
}

/** @param {() => Promise<Outcome | null>} action */
async function act(action) {
  try {
    const outcome = await action();
    if (outcome !== null) report(outcome, 'ok');
  } catch (error) {
    if (isRefusedToken(error))
      return signOut('The semaphore refused the token (was it rotated?). Sign in again.');
    report(['The semaphore did not do it: ', dataText(describe(error))], 'error');
  }
  await refreshNow();
}

/** @param {string} part */
function decode(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return '';
  }
}

/**
 * The page for the address after `#`.
 * @param {Context} context
 * @returns {View | null}
 */
function viewFor(context) {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decode);
  if (parts.length === 0) return poolsView(context);
  const [section, type, slug] = parts;
  if (section !== 'pools' || parts.length > 3 || !parts.slice(1).every(isIdentifier)) return null;
  if (type === undefined) return poolsView(context);
  return slug === undefined ? poolView(context, type) : slotView(context, type, slug);
}

function show() {
  if (api === null) return;
  const view = viewFor({ api, act, refreshNow, may });
  current = view;
  if (view === null) {
    viewSlot.replaceChildren(h('p', {}, 'There is no such page. ', h('a', { href: '#/' }, 'See the pools.')));
    return;
  }
  viewSlot.replaceChildren(view.element);
  refreshNow();
}

signInForm.addEventListener('submit', (event) => {
  event.preventDefault();
  signIn(
    tokenInput.value.trim(),
    'The semaphore refused this token. Check it (the Worker’s SEMAPHORE_TOKEN) and try again.',
  );
});
signOutButton.addEventListener('click', () => signOut(''));
window.addEventListener('hashchange', show);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refreshNow();
});
setInterval(tick, 1000);

const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved === null) showSignIn();
else signIn(saved, 'The semaphore refused the saved token (was it rotated?). Sign in again.');

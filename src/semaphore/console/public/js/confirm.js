// The confirmation of every operator action: what it is about, what will happen, and the note the
// semaphore keeps in the slot's history.
import { byId, factList, h } from './dom.js';

const MAX_NOTE = 200;
const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * What is wrong with a note, or null: the protocol's rule (1-200 characters, no control characters).
 * @param {string} note
 */
export function noteProblem(note) {
  const length = [...note].length;
  if (length === 0) return 'Write a note: it goes into the slot’s history with the action.';
  if (length > MAX_NOTE) return `The note is ${length} characters; keep it to ${MAX_NOTE}.`;
  if (CONTROL_CHARACTER.test(note)) return 'The note may not contain control characters.';
  return null;
}

/**
 * @typedef {object} Confirmation
 * @property {string} title fixed text, no data
 * @property {[string, Node][]} [facts] what it is about, each value its own element
 * @property {string[]} consequence fixed sentences, no data
 * @property {string} confirmLabel the button that does it
 * @property {HTMLElement[]} [fields] extra inputs
 * @property {() => string | null} [check] the extra inputs' problem, or null
 */

/**
 * Shows the dialog; answers the operator's note, or null when they cancelled.
 * @param {Confirmation} confirmation
 * @returns {Promise<string | null>}
 */
export function confirmAction({
  title,
  facts = [],
  consequence,
  confirmLabel,
  fields = [],
  check = () => null,
}) {
  const dialog = byId('confirm', HTMLDialogElement);
  const note = h('input', { id: 'confirm-note', required: true, maxlength: MAX_NOTE, autocomplete: 'off' });
  const problem = h('p', { class: 'error', role: 'alert' });
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const form = h(
    'form',
    {},
    h('h2', { id: 'confirm-title' }, title),
    facts.length > 0 && factList(facts),
    ...consequence.map((sentence) => h('p', { class: 'consequence' }, sentence)),
    ...fields,
    h('label', { for: 'confirm-note' }, 'Note for the slot’s history (who and why)'),
    note,
    problem,
    h('div', { class: 'buttons' }, cancel, h('button', { type: 'submit', class: 'danger' }, confirmLabel)),
  );
  dialog.replaceChildren(form);
  return new Promise((resolve) => {
    /** @param {string | null} answer */
    const finish = (answer) => {
      dialog.close();
      dialog.replaceChildren();
      resolve(answer);
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const trouble = check() ?? noteProblem(note.value.trim());
      if (trouble === null) finish(note.value.trim());
      else problem.textContent = trouble;
    });
    cancel.addEventListener('click', () => finish(null));
    dialog.addEventListener('cancel', () => finish(null), { once: true });
    dialog.showModal();
    (form.querySelector('input') ?? note).focus();
  });
}

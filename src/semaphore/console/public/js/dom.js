// Building the page from data without ever parsing data as markup: strings become Text nodes, and
// attributes go through one gate that refuses event handlers and links the console did not build.

/** @typedef {Node | string | null | undefined | false} Child */

/** Attributes that run or load something. */
const FORBIDDEN_ATTRIBUTE = /^(?:on|style$|srcdoc$|src$|formaction$|action$)/i;
/** In-page routes and the pull request links of links.js, nothing else. */
const ALLOWED_HREF = /^(?:#\/|https:\/\/github\.com\/)/;

/**
 * `h('td', { class: 'slug' }, slot.slug)`: an element whose string children are Text nodes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number | boolean>} [attributes] `true` sets an empty attribute, `false` leaves it out
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (FORBIDDEN_ATTRIBUTE.test(name)) throw new Error(`the console never sets the attribute ${name}`);
    if (name === 'href' && !ALLOWED_HREF.test(String(value)))
      throw new Error('refused a link the console did not build');
    if (value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.filter(isPresent));
  return element;
}

/** @param {Child} child @returns {child is Node | string} */
function isPresent(child) {
  return child !== null && child !== undefined && child !== false;
}

// Characters that show nothing or change how the text around them reads (format characters: bidi
// overrides, zero-width ones; the other default-ignorable ones: fillers, variation selectors) and
// line or paragraph separators: spelt out, as the job summary does (src/report/escape.ts).
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/gu;

/**
 * `text` with every character `pattern` finds spelt out as ⟨U+202E⟩.
 * @param {string} text
 * @param {RegExp} pattern global
 */
export function spellOut(text, pattern) {
  return text.replace(
    pattern,
    (char) => `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

/**
 * A server string as the operator should see it: invisible characters spelt out.
 * @param {string} text
 */
export function visible(text) {
  return spellOut(text, INVISIBLE);
}

/**
 * A server string (holder, slug, note) as text, isolated from the text around it.
 * @param {string} text
 * @param {string} [className]
 */
export function dataText(text, className) {
  return h('bdi', className === undefined ? {} : { class: className }, visible(text));
}

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
export function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`the page has no ${type.name} #${id}`);
  return element;
}

/**
 * A list of facts, each a term and its own element.
 * @param {[string, Node][]} facts
 */
export function factList(facts) {
  return h(
    'dl',
    { class: 'facts' },
    ...facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}

/**
 * A table with a header row and the given body (kept by the caller to redraw).
 * @param {string[]} headings
 * @param {HTMLTableSectionElement} body
 * @param {string} [className]
 */
export function table(headings, body, className) {
  const head = h('thead', {}, h('tr', {}, ...headings.map((heading) => h('th', { scope: 'col' }, heading))));
  return h('table', className === undefined ? {} : { class: className }, head, body);
}

/**
 * A button that runs `onClick`; the console's only way to attach behaviour to an element.
 * @param {string} label
 * @param {() => void} onClick
 * @param {string} [className]
 */
export function button(label, onClick, className) {
  const element = h(
    'button',
    { type: 'button', ...(className === undefined ? {} : { class: className }) },
    label,
  );
  element.addEventListener('click', onClick);
  return element;
}

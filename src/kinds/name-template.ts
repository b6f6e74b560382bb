// A name template of the slot config (`app-{slot}-db`): how it is validated, and how it expands to the
// name of one slot's resource. Every kind's name key is such a template (see src/kinds/).

import { closestWord } from '../text/did-you-mean.ts';
import * as z from '../zod.ts';

const PLACEHOLDERS = ['slot', 'n'];
const PLACEHOLDER = /\{([^{}]*)\}/g;

/** What most Cloudflare names allow (Workers, D1, Queues, Vectorize), besides the placeholders. */
export const NAME_CHARSET = { pattern: /^[a-z0-9_-]*$/, text: 'a-z, 0-9, - and _' } as const;

/**
 * A name template: must hold `{slot}` or `{n}` so no two slots (and no production resource) share
 * a name, and may hold no other placeholder. `charset` limits the literal part, when the kind does.
 */
export function nameTemplate(example: string, charset?: { pattern: RegExp; text: string }) {
  return z.string().check((ctx) => {
    const value = ctx.value;
    const unknown = [...value.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
    for (const name of unknown.filter((placeholder) => !PLACEHOLDERS.includes(placeholder))) {
      const guess = closestWord(name, PLACEHOLDERS);
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: `has the unknown placeholder {${name}}${guess ? `; did you mean {${guess}}?` : ''} Only {slot} and {n} exist; write e.g. ${example}`,
      });
    }
    if (!unknown.some((placeholder) => PLACEHOLDERS.includes(placeholder))) {
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: `'${value}' must contain {slot} or {n}, so that every slot names its own resource; write e.g. ${example}`,
      });
    }
    const literal = value.replace(PLACEHOLDER, '');
    if (charset && !charset.pattern.test(literal)) {
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: `'${value}' may only use ${charset.text} besides {slot} and {n}; write e.g. ${example}`,
      });
    }
  });
}

/** The number in a slot's name, what `{n}` expands to: the last run of digits (`preview-3` → `3`). */
export function slotNumberOf(slug: string): string | undefined {
  return /(\d+)(?!.*\d)/.exec(slug)?.[1];
}

/** `template` with `{slot}` the slug and `{n}` its number (nothing when it has none). */
export function fillPlaceholders(template: string, slot: string, number: string | undefined): string {
  return template.replaceAll('{slot}', slot).replaceAll('{n}', number ?? '');
}

/** `template` for slot `slot` ({slot} = the slug, {n} = `number`), or why it cannot be expanded. */
export function expand(
  template: string,
  slot: string,
  number: string | undefined,
  path: string,
): { name: string } | { problem: string } {
  if (template.includes('{n}') && number === undefined) {
    return {
      problem: `uses {n}, but the slot '${slot}' has no number in it; use {slot} in the template or number the slots (e.g. preview-3)`,
    };
  }
  const name = fillPlaceholders(template, slot, number);
  return name.length > 0 ? { name } : { problem: `expands to an empty name at ${path}` };
}

// From a config's templates to one slot's resources: every name expanded ({slot} = the slug, {n} = the
// last number in it) and checked against `protect-words` and `protect`, and the check that no two
// slots of a pool map to the same resource.

import { expand, fillPlaceholders, slotNumberOf } from '../kinds/name-template.ts';
import { KIND_LIST, type KindKey, type KindResources, nameOf } from '../kinds/registry.ts';
import { IDENTIFIER, IDENTIFIER_RULE } from '../semaphore/protocol.ts';
import { shellCommand } from '../text/shell.ts';
import { ConfigError, type ConfigProblem, ProtectedResourceError } from './config-error.ts';
import { firstMatchingGlob, firstProtectedWord } from './glob.ts';
import { type NameTemplate, nameTemplatesOf, type SlotConfig } from './slot-config-schema.ts';

/** The concrete resources of one slot, every name expanded and checked against `protect` and `protect-words`. */
export type SlotResources = { slot: string } & KindResources;

/** Why a name is protected (`contains the protected word 'prod'`), or undefined. */
export function protectionOf(
  name: string,
  config: Pick<SlotConfig, 'protect' | 'protectWords'>,
): string | undefined {
  const word = firstProtectedWord(name, config.protectWords);
  if (word !== undefined) return `contains the protected word '${word}' (protect-words)`;
  const glob = firstMatchingGlob(name, config.protect);
  return glob === undefined ? undefined : `matches the protect pattern '${glob}'`;
}

/**
 * Stand-ins for the placeholders, as unlike a protected word as each can be: `{slot}` a slug ending in a
 * digit and one ending in a letter, `{n}` digits only (it is always a number). A word runs into `{slot}`
 * (`{slot}prod` is not whole for `preview-x`), but never into `{n}`: `prod{n}` is `prod` and a number.
 */
const WORD_STAND_INS = [
  { slot: 'q7', n: '7' },
  { slot: 'z9x', n: '42' },
];
/** Characters no pattern spells, of two lengths, so a `?` that only a one-character slot fills does not count. */
const PATTERN_STAND_INS = ['\u0000', '\u0000'.repeat(9)];

/**
 * What every slot's name would be protected by, from a template's fixed part alone: a protected word
 * the template spells out whole (`myapp-prod-{n}-uploads`), or a protect pattern that matches the
 * template whatever its placeholders hold. Such a template refuses every slot, so the config itself
 * is refused when it is read. Each stand-in must be protected for the template to count.
 */
function fixedProtectionOf(template: string, config: Pick<SlotConfig, 'protect' | 'protectWords'>) {
  const filled = (standIn: { slot: string; n: string }) =>
    fillPlaceholders(template, standIn.slot, standIn.n);
  const word = config.protectWords.find((candidate) =>
    WORD_STAND_INS.every((standIn) => firstProtectedWord(filled(standIn), [candidate]) !== undefined),
  );
  if (word !== undefined) return `contains the protected word '${word}' (protect-words) in its fixed part`;
  const glob = config.protect.find((candidate) =>
    PATTERN_STAND_INS.every(
      (standIn) => firstMatchingGlob(filled({ slot: standIn, n: standIn }), [candidate]) !== undefined,
    ),
  );
  return glob === undefined ? undefined : `matches the protect pattern '${glob}' whatever the slot`;
}

/** The templates every slot of which would be refused (see fixedProtectionOf), one problem each. */
export function protectedTemplates(
  config: Pick<SlotConfig, 'protect' | 'protectWords' | 'positions'>,
  templates: readonly NameTemplate[],
): ConfigProblem[] {
  return templates.flatMap(({ path, template }) => {
    const protection = fixedProtectionOf(template, config);
    return protection === undefined
      ? []
      : [
          {
            path,
            ...config.positions[path],
            message: `'${template}' ${protection}, so the name of every slot would be protected and every slot refused; rename the template (or change protect-words or protect)`,
          },
        ];
  });
}

/**
 * The concrete resources of slot `slug`: every template expanded ({slot} = the slug, {n} = the last
 * number in it) and every name checked against `protect-words` and `protect`. Any refusal throws
 * before any call.
 */
export function resourcesForSlot(config: SlotConfig, slug: string): SlotResources {
  if (!IDENTIFIER.test(slug)) {
    throw new ConfigError(config.file, [
      {
        path: '',
        message: `slot '${slug}' is not a usable slug (${IDENTIFIER_RULE}); rename the slot in the semaphore`,
      },
    ]);
  }
  const number = slotNumberOf(slug);
  const problems: ConfigProblem[] = [];
  const protectedNames: ConfigProblem[] = [];
  const name = (template: string, path: string): string => {
    const expanded = expand(template, slug, number, path);
    if ('problem' in expanded) {
      problems.push({ path, ...config.positions[path], message: expanded.problem });
      return '';
    }
    const protection = protectionOf(expanded.name, config);
    if (protection !== undefined) {
      protectedNames.push({
        path,
        ...config.positions[path],
        message: `'${template}' expands to '${expanded.name}', which ${protection}; rename the template or the slot so no slot name can reach production`,
      });
    }
    return expanded.name;
  };

  const byKind = KIND_LIST.map((kind) => {
    const templates: readonly object[] = config.resources[kind.key];
    const resources = templates.map((template, index) => {
      const path = `resources.${kind.key}[${index}].${kind.nameKey}`;
      const text = nameOf(kind, template);
      return { ...template, [kind.nameKey]: name(text, path), template: text, path };
    });
    return [kind.key, resources];
  });
  if (problems.length > 0)
    throw new ConfigError(config.file, problems, `cannot name the resources of slot '${slug}'`);
  if (protectedNames.length > 0) throw new ProtectedResourceError(config.file, slug, protectedNames);
  return { slot: slug, ...(Object.fromEntries(byKind) as KindResources) };
}

/** A resource name one slot maps to, and the template it comes from. */
interface SlotName extends NameTemplate {
  slot: string;
  name: string;
}

/** The names slot `slug` maps to; a template it cannot expand is left out (resourcesForSlot refuses it). */
function namesOfSlot(config: SlotConfig, slug: string): SlotName[] {
  if (!IDENTIFIER.test(slug)) return [];
  const number = slotNumberOf(slug);
  return nameTemplatesOf(config.resources).flatMap((template) => {
    const expanded = expand(template.template, slug, number, template.path);
    return 'name' in expanded ? [{ ...template, slot: slug, name: expanded.name }] : [];
  });
}

function nounOf(key: KindKey): string {
  return KIND_LIST.find((kind) => kind.key === key)?.noun ?? key;
}

function sharedNameMessage(config: SlotConfig, first: SlotName, second: SlotName): string {
  const where = (name: SlotName) => {
    const position = config.positions[name.path];
    const at = position === undefined ? '' : `:${position.line}:${position.column}`;
    return `${config.file}${at} ${name.path} '${name.template}'`;
  };
  const templates = first.path === second.path ? where(first) : `${where(first)} and ${where(second)}`;
  const fix = [first, second].some((name) => name.template.includes('{n}'))
    ? 'use {slot} instead of {n} in the template'
    : 'change the template so that every slot names its own resource';
  const remove = shellCommand(['preview-gc', 'slots', 'remove', second.slot]);
  return `slots '${first.slot}' and '${second.slot}' both map to the ${nounOf(first.kind)} '${first.name}' (${templates}): erasing one would erase the other's data, so both are refused. Fix: ${fix}, or take one of the two slots out of the pool${remove === null ? '' : ` (${remove})`}`;
}

/**
 * One owner per resource name. For every slot among `slugs` (a pool's listing, or the slots it is
 * about to have) that maps to a resource name another of them maps to as well: why it is refused,
 * one message per shared name. Erasing such a slot would erase the data of the other, whoever holds
 * it, so both are refused before any call. Linear in slots × templates.
 */
export function sharedResourceNames(config: SlotConfig, slugs: readonly string[]): Map<string, string[]> {
  const owners = new Map<string, SlotName>();
  const refusals = new Map<string, string[]>();
  const refuse = (slug: string, message: string) =>
    refusals.set(slug, [...(refusals.get(slug) ?? []), message]);
  for (const slug of new Set(slugs)) {
    for (const name of namesOfSlot(config, slug)) {
      const key = `${name.kind}\u0000${name.name}`;
      const owner = owners.get(key);
      if (owner === undefined) owners.set(key, name);
      else if (owner.slot !== slug) {
        const message = sharedNameMessage(config, owner, name);
        refuse(owner.slot, message);
        refuse(slug, message);
      }
    }
  }
  return refusals;
}

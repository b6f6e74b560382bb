// preview-gc slots sync: make the pool's inventory match a list of slots.
import type { Slot } from '../semaphore/protocol.ts';
import { ADOPTION_OPTIONS, ALL_ENV, cliPlace, SEMAPHORE_OPTIONS } from './inputs.ts';
import { connectPool, refuseUnderConfig } from './pool.ts';
import { checkSlotResources } from './resource-check.ts';
import { applyChanges, checkedSlugs, printChanges, type SlotChange } from './slot-changes.ts';
import { ALLOW_DIRTY_OPTION, removal, removalBlocker } from './slots-remove.ts';
import { type CommandSpec, type OptionValues, stringValue, UsageError } from './spec.ts';

const DEFAULT_PATTERN = 'preview-{n}';
const MAX_COUNT = 1000;

/** The slots wanted: `--slugs a,b,c`, or `--count n` numbered into `--pattern` (preview-{n}). */
export function wantedSlugs(values: OptionValues): string[] {
  const slugs = stringValue(values, 'slugs');
  const count = stringValue(values, 'count');
  const pattern = stringValue(values, 'pattern');
  if ((slugs === undefined) === (count === undefined))
    throw new UsageError('sync needs exactly one of --slugs <a,b,c> or --count <n>');
  if (slugs !== undefined) {
    if (pattern !== undefined) throw new UsageError('--pattern goes with --count, not with --slugs');
    return checkedSlugs(
      slugs
        .split(',')
        .map((slug) => slug.trim())
        .filter(Boolean),
      '--slugs preview-1,preview-2',
    );
  }
  const n = /^\d{1,4}$/.test(count ?? '') ? Number(count) : Number.NaN;
  if (!(n >= 1 && n <= MAX_COUNT))
    throw new UsageError(`--count must be a whole number from 1 to ${MAX_COUNT}, got '${count}'`);
  const template = pattern ?? DEFAULT_PATTERN;
  if (!template.includes('{n}')) throw new UsageError(`--pattern must contain {n}, e.g. ${DEFAULT_PATTERN}`);
  const numbered = Array.from({ length: n }, (_, i) => template.replaceAll('{n}', String(i + 1)));
  return checkedSlugs(numbered, '--pattern preview-{n}');
}

/**
 * The changes that make the pool hold exactly `wanted`: add what is missing; remove what is extra
 * only with `prune`, only when nobody holds it and, unless `allowDirty`, only when clean; everything
 * else stays.
 */
export function planSync(
  current: readonly Slot[],
  wanted: readonly string[],
  prune: boolean,
  allowDirty = false,
): SlotChange[] {
  const inPool = new Set(current.map((slot) => slot.slug));
  const wantedSet = new Set(wanted);
  const changes: SlotChange[] = [];
  for (const slug of wanted) {
    changes.push(
      inPool.has(slug)
        ? { slug, action: 'unchanged', reason: 'in the list and in the pool' }
        : { slug, action: 'add', reason: 'in the list, not in the pool' },
    );
  }
  for (const slot of current.filter((candidate) => !wantedSet.has(candidate.slug))) {
    const blocker = removalBlocker(slot, allowDirty);
    if (!prune)
      changes.push({ slug: slot.slug, action: 'keep', reason: 'not in the list; --prune removes it' });
    else if (blocker !== null) changes.push({ slug: slot.slug, action: 'keep', reason: blocker });
    else changes.push(removal(slot, 'not in the list'));
  }
  return changes;
}

export const slotsSyncCommand: CommandSpec = {
  name: 'slots sync',
  summary: 'make the pool hold exactly the slots listed',
  usage: [
    'slots sync --count <n> [--pattern <p>] [--dirty] [--prune] [--dry-run] [options]',
    'slots sync --slugs <a,b,c> [--dirty] [--prune] [--dry-run] [options]',
  ],
  description: [
    'Compares the pool with the slots wanted and prints the plan: slots missing from the pool are',
    'added; slots the pool has beyond the list are removed only with --prune, never while a lease',
    '(even an expired one) holds them, and a dirty one only with --allow-dirty (its data would stay).',
    'The config names resources by template, not slots, so the list comes from --slugs, or from',
    '--count numbered into --pattern (preview-1 … preview-<n>).',
    'Slots are added clean; with --dirty, dirty, so the next gc erases the data they hold from before',
    '(adopting slots that were in use). With a config, a slot whose resource names would be protected',
    'is refused before any call; with CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID set, the',
    'resources of the slots to add are checked to exist (one listing per kind), and nothing is added',
    'while one is missing.',
  ].join('\n'),
  options: {
    count: { type: 'string', value: '<n>', description: 'Want slots 1 to n, named by --pattern.' },
    pattern: {
      type: 'string',
      value: '<p>',
      description: `Slot name with {n} for the number (${DEFAULT_PATTERN}).`,
    },
    slugs: { type: 'string', value: '<a,b,c>', description: 'Want exactly these slots, comma-separated.' },
    prune: { type: 'boolean', description: 'Remove slots that are not in the list (never a leased one).' },
    ...ALLOW_DIRTY_OPTION,
    'dry-run': { type: 'boolean', description: 'Print the plan; change nothing.' },
    ...ADOPTION_OPTIONS,
    ...SEMAPHORE_OPTIONS,
  },
  env: ALL_ENV,
  examples: [
    'slots sync --count 9 --dirty --dry-run',
    'slots sync --count 12 --pattern app-preview-{n}',
    'slots sync --slugs preview-1,preview-2 --prune',
  ],
  async run(parsed, io) {
    const wanted = wantedSlugs(parsed.values);
    const dryRun = parsed.values['dry-run'] === true;
    const dirty = parsed.values.dirty === true;
    const { pool, semaphore, settings, config } = await connectPool(slotsSyncCommand, parsed, io);
    const listing = await semaphore.list(pool);
    const allowDirty = parsed.values['allow-dirty'] === true;
    const plan = planSync(listing.resources, wanted, parsed.values.prune === true, allowDirty);
    const slugsOf = (wanted: (action: SlotChange['action']) => boolean) =>
      plan.filter((change) => wanted(change.action)).map((change) => change.slug);
    const adding = slugsOf((action) => action === 'add');
    refuseUnderConfig(
      config,
      adding,
      slugsOf((action) => action === 'unchanged' || action === 'keep'),
    );
    await checkSlotResources(
      config,
      adding,
      settings,
      io,
      cliPlace(slotsSyncCommand.name, slotsSyncCommand.options),
    );
    const changes = dryRun ? plan : await applyChanges(semaphore, pool, plan, { dirty, allowDirty });
    return printChanges(io, {
      pool,
      dryRun,
      changes,
      dirty,
      json: parsed.values.json === true,
      heading: `Pool ${pool}: ${wanted.length} slots wanted, ${listing.resources.length} in the pool${dryRun ? ' (dry run)' : ''}`,
    });
  },
};

// preview-gc slots add <slug>...: new slots join the pool, available; clean, or dirty with --dirty.
import { ADOPTION_OPTIONS, ALL_ENV, cliPlace, SEMAPHORE_OPTIONS } from './inputs.ts';
import { connectPool, refuseUnderConfig } from './pool.ts';
import { checkSlotResources } from './resource-check.ts';
import { applyChanges, checkedSlugs, printChanges, type SlotChange } from './slot-changes.ts';
import type { CommandSpec } from './spec.ts';

export const slotsAddCommand: CommandSpec = {
  name: 'slots add',
  summary: 'add slots to the pool',
  usage: ['slots add <slug>... [--dirty] [options]'],
  description: [
    'Adds each slot to the pool, available and clean; with --dirty, available and dirty, so the next',
    "gc erases the data it holds from before. The slot's Cloudflare resources (named by the config's",
    'templates) must exist already: slots add creates and deletes none (slots provision creates what',
    'is missing). With CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID set, each is checked (one',
    'listing per kind) and nothing is added while one is missing. With a config, a slot whose',
    'resource names would match a protect pattern is refused before any call.',
  ].join('\n'),
  options: { ...ADOPTION_OPTIONS, ...SEMAPHORE_OPTIONS },
  positionals: '<slug>...',
  env: ALL_ENV,
  examples: ['slots add preview-10 preview-11', 'slots add preview-10 --dirty'],
  async run(parsed, io) {
    const slugs = checkedSlugs(parsed.positionals, 'preview-gc slots add <slug>...');
    const { pool, semaphore, settings, config } = await connectPool(slotsAddCommand, parsed, io);
    // The slots already in the pool matter only to check the new ones' names against a config.
    const inPool = config === null ? [] : (await semaphore.list(pool)).resources.map((slot) => slot.slug);
    refuseUnderConfig(config, slugs, inPool);
    await checkSlotResources(
      config,
      slugs,
      settings,
      io,
      cliPlace(slotsAddCommand.name, slotsAddCommand.options),
    );
    const dirty = parsed.values.dirty === true;
    const planned: SlotChange[] = slugs.map((slug) => ({ slug, action: 'add', reason: 'asked for' }));
    const changes = await applyChanges(semaphore, pool, planned, { dirty, allowDirty: false });
    return printChanges(io, { pool, dryRun: false, changes, json: parsed.values.json === true, dirty });
  },
};

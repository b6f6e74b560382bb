// preview-gc slots add <slug>...: new slots join the pool, available and clean.
import { SEMAPHORE_ENV, SEMAPHORE_OPTIONS } from './inputs.ts';
import { connectPool, refuseUnderConfig } from './pool.ts';
import { applyChanges, checkedSlugs, printChanges, type SlotChange } from './slot-changes.ts';
import type { CommandSpec } from './spec.ts';

export const slotsAddCommand: CommandSpec = {
  name: 'slots add',
  summary: 'add slots to the pool',
  usage: ['slots add <slug>... [options]'],
  description: [
    "Adds each slot to the pool, available and clean. The slot's Cloudflare resources (named by the",
    "config's templates) must exist already: preview-gc never creates or deletes resources. With a",
    'config, a slot whose resource names would match a protect pattern is refused before any call.',
  ].join('\n'),
  options: SEMAPHORE_OPTIONS,
  positionals: '<slug>...',
  env: SEMAPHORE_ENV,
  examples: ['slots add preview-10 preview-11'],
  async run(parsed, io) {
    const slugs = checkedSlugs(parsed.positionals, 'preview-gc slots add <slug>...');
    const { pool, semaphore, config } = await connectPool(slotsAddCommand, parsed, io);
    // The slots already in the pool matter only to check the new ones' names against a config.
    const inPool = config === null ? [] : (await semaphore.list(pool)).resources.map((slot) => slot.slug);
    refuseUnderConfig(config, slugs, inPool);
    const planned: SlotChange[] = slugs.map((slug) => ({ slug, action: 'add', reason: 'asked for' }));
    const changes = await applyChanges(semaphore, pool, planned);
    return printChanges(io, { pool, dryRun: false, changes, json: parsed.values.json === true });
  },
};

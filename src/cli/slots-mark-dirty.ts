// preview-gc slots mark-dirty <slug>...: a slot holds data the semaphore does not know about (it was
// marked clean, or joined the pool clean while in use); marking it dirty makes the next gc erase it.

import { SemaphoreError } from '../semaphore/client.ts';
import type { Slot } from '../semaphore/protocol.ts';
import { SEMAPHORE_ENV, SEMAPHORE_OPTIONS } from './inputs.ts';
import { connectPool } from './pool.ts';
import { checkedSlugs } from './slot-changes.ts';
import { type CommandSpec, stringValue } from './spec.ts';
import { clean, paint } from './style.ts';

type Marked = { slug: string; slot: Slot } | { slug: string; problem: string };

export const slotsMarkDirtyCommand: CommandSpec = {
  name: 'slots mark-dirty',
  summary: 'mark slots dirty, so the next gc erases their data',
  usage: ['slots mark-dirty <slug>... [--note <text>] [options]'],
  description: [
    'Marks each slot dirty, free or leased; its lease, if any, stays as it is. The next gc erases a',
    'free dirty slot (a leased one when its lease ends), and its next acquirer erases it before use.',
    'For a slot that holds data while marked clean: one added to the pool while it was in use, or',
    'released clean by mistake.',
  ].join('\n'),
  options: {
    note: { type: 'string', value: '<text>', description: "Why, kept in the semaphore's event log." },
    ...SEMAPHORE_OPTIONS,
  },
  positionals: '<slug>...',
  env: SEMAPHORE_ENV,
  examples: ['slots mark-dirty preview-3', 'slots mark-dirty preview-1 preview-2 --note "adopted with data"'],
  async run(parsed, io) {
    const slugs = checkedSlugs(parsed.positionals, 'preview-gc slots mark-dirty <slug>...');
    const note = stringValue(parsed.values, 'note');
    const { pool, semaphore } = await connectPool(slotsMarkDirtyCommand, parsed, io);
    const results: Marked[] = [];
    for (const slug of slugs) {
      try {
        const slot = await semaphore.markDirty({ type: pool, slug, ...(note === undefined ? {} : { note }) });
        results.push({ slug, slot });
      } catch (error) {
        if (!(error instanceof SemaphoreError) || error.code === 'unauthorized') throw error;
        const problem =
          error.code === 'not_found'
            ? `pool '${pool}' has no slot '${slug}'; see: preview-gc slots list`
            : error.message;
        results.push({ slug, problem });
      }
    }
    const failed = results.filter((result) => 'problem' in result).length;
    if (parsed.values.json === true) {
      io.out(JSON.stringify({ pool, results }, null, 2));
      return failed > 0 ? 1 : 0;
    }
    const style = io.outStyle;
    for (const result of results) {
      if ('problem' in result) {
        io.out(`${paint(style, 'red', '✖')} ${clean(result.slug)}: ${clean(result.problem)}`);
        continue;
      }
      const when =
        result.slot.leaseState === 'leased' ? 'gc erases it when its lease ends' : 'the next gc erases it';
      io.out(`${paint(style, 'green', '✔')} ${paint(style, 'bold', clean(result.slug))} is dirty: ${when}.`);
    }
    return failed > 0 ? 1 : 0;
  },
};

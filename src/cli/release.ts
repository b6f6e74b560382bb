// preview-gc release: end one slot's lease by hand, with the lease id a failed run printed, or by force.
import { SemaphoreError } from '../semaphore/client.ts';
import { slugSchema } from '../semaphore/protocol.ts';
import * as z from '../zod.ts';
import { SEMAPHORE_ENV, SEMAPHORE_OPTIONS } from './inputs.ts';
import { connectPool } from './pool.ts';
import { CommandFailure, type CommandSpec, type OptionValues, stringValue, UsageError } from './spec.ts';
import { clean, paint } from './style.ts';

const leaseIdSchema = z.uuid();

/** The slot and the lease to release, checked before any call. */
function releaseTarget(values: OptionValues): { slug: string; leaseId: string | undefined; force: boolean } {
  const slug = stringValue(values, 'slot');
  const leaseId = stringValue(values, 'lease-id');
  const force = values.force === true;
  if (slug === undefined) throw new UsageError('release needs the slot: --slot <slug>');
  if (!slugSchema.safeParse(slug).success)
    throw new UsageError(`--slot '${slug}' is not a slot name (e.g. preview-3)`);
  if ((leaseId === undefined) === !force)
    throw new UsageError('release needs exactly one of --lease-id <id> or --force');
  if (leaseId !== undefined && !leaseIdSchema.safeParse(leaseId).success)
    throw new UsageError(`--lease-id '${leaseId}' is not a lease id (a UUID, as printed by the run)`);
  return { slug, leaseId, force };
}

export const releaseCommand: CommandSpec = {
  name: 'release',
  summary: 'release one slot, by its lease id or by force',
  usage: [
    'release --slot <slug> --lease-id <id> [--clean] [options]',
    'release --slot <slug> --force [--clean] [options]',
  ],
  description: [
    'Ends the lease on one slot so the pool gets it back. With --lease-id (printed by a run whose',
    'release failed) only that lease is released; with --force whatever lease is there, a live one',
    'included: its holder loses the slot. The slot stays dirty unless --clean says its data is',
    'already erased; a dirty slot is erased by the next gc or by its next acquirer.',
  ].join('\n'),
  options: {
    slot: { type: 'string', value: '<slug>', description: 'The slot to release, e.g. preview-3.' },
    'lease-id': { type: 'string', value: '<id>', description: 'Release only this lease (a UUID).' },
    force: { type: 'boolean', description: 'Release whatever lease holds the slot.' },
    clean: {
      type: 'boolean',
      description: 'Mark the slot clean; only when you know its data is erased.',
    },
    ...SEMAPHORE_OPTIONS,
  },
  env: SEMAPHORE_ENV,
  examples: [
    'release --slot preview-3 --lease-id 6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10',
    'release --slot preview-3 --force',
  ],
  async run(parsed, io) {
    const { slug, leaseId, force } = releaseTarget(parsed.values);
    const { pool, semaphore } = await connectPool(releaseCommand, parsed, io);
    const before = await semaphore.find(pool, slug).catch((error: unknown) => {
      if (error instanceof SemaphoreError && error.code === 'not_found')
        throw new CommandFailure(`pool '${pool}' has no slot '${slug}'; see: preview-gc slots list`);
      throw error;
    });
    // A force releases only the lease read just now: the semaphore checks holder and generation in the
    // same transaction, so a lease someone took a moment later is never the one released.
    const condition =
      before.holder === null ? {} : { ifHolder: before.holder, ifGeneration: before.generation };
    const answer = await semaphore.release({
      type: pool,
      slug,
      ...(force ? { force: true, ...condition } : { leaseId }),
      ...(parsed.values.clean === true ? { clean: true } : {}),
    });

    if (parsed.values.json === true) {
      io.out(JSON.stringify({ pool, slug, previousHolder: before.holder, ...answer }, null, 2));
      return answer.conditionFailed ? 1 : 0;
    }
    const style = io.outStyle;
    if (answer.conditionFailed) {
      const now = answer.holder === null ? 'nobody holds it' : `${clean(answer.holder)} holds it`;
      io.out(
        `Nothing released: ${clean(slug)} changed hands after it was read (${clean(before.holder ?? '?')} held it; ${now} now, generation ${answer.generation}). Run the command again to release the lease it has now.`,
      );
      return 1;
    }
    if (!answer.released) {
      const now = before.leaseState === 'leased' ? `held by ${clean(before.holder ?? '?')}` : 'available';
      const free = before.dirty
        ? 'It is dirty already: the next gc erases it.'
        : `To have its data erased anyway: preview-gc slots mark-dirty ${clean(slug)}`;
      io.out(
        force
          ? `Nothing to release: ${clean(slug)} was not leased. ${free}`
          : `Nothing released: that lease is no longer the current lease of ${clean(slug)} (it is ${now}).`,
      );
      return 0;
    }
    // Only the server's clock decides expiry, so say whether it had expired, not for how long.
    const lease =
      before.leaseState !== 'leased' ? '' : before.expired ? ', lease had expired' : ', lease was live';
    io.out(
      `${paint(style, 'green', '✔')} Released ${paint(style, 'bold', clean(slug))} in pool ${clean(pool)} (held by ${clean(before.holder ?? '?')}${lease}).`,
    );
    io.out(
      answer.dirty ? '  It is dirty: the next gc or its next acquirer erases it.' : '  It is marked clean.',
    );
    return 0;
  },
};

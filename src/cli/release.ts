// preview-gc release: end one slot's lease by hand, with the lease id a failed run printed, or by
// force. A force is the console's: only the lease the person names (holder and generation, as
// `status` showed them), pinned to the lease version read just before, with a note for the slot's
// history, and only once the person confirmed it (typed the slot's name, or --yes).
import { SemaphoreError } from '../semaphore/client.ts';
import type { ReleaseAnswer, Slot } from '../semaphore/protocol.ts';
import { noteSchema, slugSchema, storedHolderSchema } from '../semaphore/protocol.ts';
import * as z from '../zod.ts';
import { SEMAPHORE_ENV, SEMAPHORE_OPTIONS } from './inputs.ts';
import type { CliIO } from './io.ts';
import { connectPool } from './pool.ts';
import { CommandFailure, type CommandSpec, type OptionValues, stringValue, UsageError } from './spec.ts';
import { clean, paint } from './style.ts';

const leaseIdSchema = z.uuid();
const COUNT = /^[0-9]{1,15}$/;

/** What a force names: the lease as the person saw it, and why. */
interface ForceTarget {
  holder: string;
  generation: number;
  leaseVersion: number | undefined;
  note: string;
  confirmed: boolean;
}

type Target = { slug: string; leaseId: string; force?: undefined } | { slug: string; force: ForceTarget };

function countValue(values: OptionValues, flag: string, min: number): number | undefined {
  const value = stringValue(values, flag);
  if (value === undefined) return undefined;
  if (!COUNT.test(value) || Number(value) < min)
    throw new UsageError(`--${flag} '${value}' is not a whole number${min > 0 ? ' from 1' : ''}`);
  return Number(value);
}

/** The force's condition and note, all required: a force names the lease it ends, and says why. */
function forceTarget(values: OptionValues, io: Pick<CliIO, 'ask'>): ForceTarget {
  const holder = stringValue(values, 'holder');
  const generation = countValue(values, 'generation', 0);
  const note = stringValue(values, 'note');
  if (holder === undefined || generation === undefined || note === undefined)
    throw new UsageError(
      'release --force needs the lease you mean and why: --holder <holder> --generation <n> (as preview-gc status shows them) and --note <text>',
    );
  if (!storedHolderSchema.safeParse(holder).success)
    throw new UsageError('--holder is not a holder (1-200 characters, no control characters)');
  const checkedNote = noteSchema.safeParse(note.trim());
  if (!checkedNote.success) throw new UsageError('--note must be 1-200 characters, no control characters');
  const confirmed = values.yes === true;
  if (!confirmed && io.ask === undefined)
    throw new UsageError(
      'release --force asks to confirm by typing the slot name; without a terminal, add --yes',
    );
  return {
    holder,
    generation,
    leaseVersion: countValue(values, 'lease-version', 1),
    note: checkedNote.data,
    confirmed,
  };
}

/** The slot and the lease to release, checked before any call. */
function releaseTarget(values: OptionValues, io: Pick<CliIO, 'ask'>): Target {
  const slug = stringValue(values, 'slot');
  const leaseId = stringValue(values, 'lease-id');
  const force = values.force === true;
  if (slug === undefined) throw new UsageError('release needs the slot: --slot <slug>');
  if (!slugSchema.safeParse(slug).success)
    throw new UsageError(`--slot '${slug}' is not a slot name (e.g. preview-3)`);
  if ((leaseId === undefined) === !force)
    throw new UsageError('release needs exactly one of --lease-id <id> or --force');
  if (leaseId !== undefined) {
    if (!leaseIdSchema.safeParse(leaseId).success)
      throw new UsageError(`--lease-id '${leaseId}' is not a lease id (a UUID, as printed by the run)`);
    return { slug, leaseId };
  }
  return { slug, force: forceTarget(values, io) };
}

/** Why the slot is not the lease the person named, or null when it is. */
function notAsNamed(slot: Slot, force: ForceTarget): string | null {
  const sameVersion = force.leaseVersion === undefined || slot.leaseVersion === force.leaseVersion;
  if (slot.holder === force.holder && slot.generation === force.generation && sameVersion) return null;
  const now = `${clean(JSON.stringify(slot.holder))} holds it at generation ${slot.generation}, lease version ${slot.leaseVersion ?? '?'}`;
  return `Nothing released: ${clean(slot.slug)} is not the lease you named (${clean(JSON.stringify(force.holder))} at generation ${force.generation}${force.leaseVersion === undefined ? '' : `, lease version ${force.leaseVersion}`}): ${now}. Look again with preview-gc status.`;
}

/** Asks the person to type the slot's name; true when they did (or gave --yes). */
async function confirmForce(io: CliIO, slot: Slot, force: ForceTarget): Promise<boolean> {
  const lease = slot.expired ? 'expired lease' : 'live lease';
  io.err(
    [
      `Force-release ${clean(slot.slug)}: this ends the ${lease} of`,
      `  holder:        ${clean(JSON.stringify(slot.holder))}`,
      `  generation:    ${slot.generation}, lease version ${slot.leaseVersion ?? '?'}`,
      `  note:          ${clean(force.note)}`,
      slot.expired
        ? 'now. The slot stays dirty, so the next gc erases it before anyone uses it.'
        : 'now; its holder is not told (its next renew fails). The slot stays dirty, so the next gc erases it before anyone uses it.',
      'Nothing is released if the lease changed since it was read.',
    ].join('\n'),
  );
  if (force.confirmed) return true;
  const answer = await io.ask?.(`Type the slot name (${clean(slot.slug)}) to confirm: `);
  return answer?.trim() === slot.slug;
}

/** What the release did, for a person (or as JSON); 1 when a force's condition failed. */
function printRelease(
  io: CliIO,
  {
    pool,
    slug,
    before,
    answer,
    forced,
    json,
  }: { pool: string; slug: string; before: Slot; answer: ReleaseAnswer; forced: boolean; json: boolean },
): number {
  if (json) {
    io.out(JSON.stringify({ pool, slug, previousHolder: before.holder, ...answer }, null, 2));
    return answer.conditionFailed ? 1 : 0;
  }
  const style = io.outStyle;
  if (answer.conditionFailed) {
    const now = answer.holder === null ? 'nobody holds it' : `${clean(answer.holder)} holds it`;
    io.out(
      `Nothing released: ${clean(slug)} changed after it was read (${clean(before.holder ?? '?')} held it at generation ${before.generation}, lease version ${before.leaseVersion ?? '?'}; ${now} now, generation ${answer.generation}, lease version ${answer.leaseVersion ?? '-'}). Look again with preview-gc status.`,
    );
    return 1;
  }
  if (!answer.released) {
    const now = before.leaseState === 'leased' ? `held by ${clean(before.holder ?? '?')}` : 'available';
    io.out(
      forced
        ? `Nothing released: ${clean(slug)} had no lease any more.`
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
}

export const releaseCommand: CommandSpec = {
  name: 'release',
  summary: 'release one slot, by its lease id or by force',
  usage: [
    'release --slot <slug> --lease-id <id> [--clean] [options]',
    'release --slot <slug> --force --holder <holder> --generation <n> --note <text> [--lease-version <v>] [--yes] [--clean] [options]',
  ],
  description: [
    'Ends the lease on one slot so the pool gets it back. With --lease-id (printed by a run whose',
    'release failed) only that lease is released. With --force a lease that is not yours, a live one',
    'included: its holder loses the slot. A force names the lease it ends (--holder and --generation,',
    'as preview-gc status shows them, and --lease-version to pin a renew too) and why (--note, kept',
    "in the slot's history), and asks to confirm by typing the slot name (--yes skips that). The",
    'semaphore ends it only while it is still that lease, not renewed since it was read. The slot',
    'stays dirty unless --clean says its data is already erased; a dirty slot is erased by the next',
    'gc or by its next acquirer.',
  ].join('\n'),
  options: {
    slot: { type: 'string', value: '<slug>', description: 'The slot to release, e.g. preview-3.' },
    'lease-id': { type: 'string', value: '<id>', description: 'Release only this lease (a UUID).' },
    force: {
      type: 'boolean',
      description: 'Release a lease that is not yours; needs --holder, --generation, --note.',
    },
    holder: {
      type: 'string',
      value: '<holder>',
      description: 'With --force: the holder of the lease to end.',
    },
    generation: { type: 'string', value: '<n>', description: "With --force: the slot's generation you saw." },
    'lease-version': {
      type: 'string',
      value: '<v>',
      description: "With --force: the lease's version you saw (default: the one read just before).",
    },
    note: { type: 'string', value: '<text>', description: "With --force: why, kept in the slot's history." },
    yes: { type: 'boolean', description: 'With --force: do not ask to confirm (scripts).' },
    clean: {
      type: 'boolean',
      description: 'Mark the slot clean; only when you know its data is erased.',
    },
    ...SEMAPHORE_OPTIONS,
  },
  env: SEMAPHORE_ENV,
  examples: [
    'release --slot preview-3 --lease-id 6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10',
    'release --slot preview-3 --force --holder pr-1601 --generation 7 --note "stuck since Friday"',
  ],
  async run(parsed, io) {
    const target = releaseTarget(parsed.values, io);
    const { slug } = target;
    const { pool, semaphore } = await connectPool(releaseCommand, parsed, io);
    const before = await semaphore.find(pool, slug).catch((error: unknown) => {
      if (error instanceof SemaphoreError && error.code === 'not_found')
        throw new CommandFailure(`pool '${pool}' has no slot '${slug}'; see: preview-gc slots list`);
      throw error;
    });
    const force = target.force;
    if (force !== undefined && before.holder === null) {
      const free = before.dirty
        ? 'It is dirty already: the next gc erases it.'
        : `To have its data erased anyway: preview-gc slots mark-dirty ${clean(slug)}`;
      io.out(`Nothing to release: ${clean(slug)} was not leased. ${free}`);
      return 0;
    }
    const refuse = (problem: string): number => {
      io.out(
        parsed.values.json === true
          ? JSON.stringify({ pool, slug, released: false, problem }, null, 2)
          : problem,
      );
      return 1;
    };
    if (force !== undefined) {
      const problem = notAsNamed(before, force);
      if (problem !== null) return refuse(problem);
      if (!(await confirmForce(io, before, force)))
        return refuse(`Not confirmed: nothing was released. The slot name to type is ${clean(slug)}.`);
    }
    // A force releases only the lease read just now: the semaphore checks holder, generation and lease
    // version in the same transaction, so a lease someone took or renewed a moment later is never released.
    const answer = await semaphore.release({
      type: pool,
      slug,
      ...(force === undefined
        ? { leaseId: target.leaseId }
        : {
            force: true,
            ifHolder: force.holder,
            ifGeneration: force.generation,
            ...(before.leaseVersion === null ? {} : { ifLeaseVersion: before.leaseVersion }),
            note: force.note,
          }),
      ...(parsed.values.clean === true ? { clean: true } : {}),
    });

    return printRelease(io, {
      pool,
      slug,
      before,
      answer,
      forced: force !== undefined,
      json: parsed.values.json === true,
    });
  },
};

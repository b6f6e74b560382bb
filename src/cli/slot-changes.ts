// The inventory commands (slots add, remove, sync) all make a list of changes first, show it, and
// then apply it one call at a time; a change that fails is reported and the rest still go ahead.

import { type SemaphoreClient, SemaphoreError } from '../semaphore/client.ts';
import { slugSchema } from '../semaphore/protocol.ts';
import type { CliIO } from './io.ts';
import { UsageError } from './spec.ts';
import { clean, paint, renderTable, type TerminalStyle } from './style.ts';

export interface SlotChange {
  slug: string;
  /** `unchanged`: already as wanted; `keep`: would change, but may not (reason says why). */
  action: 'add' | 'remove' | 'keep' | 'unchanged';
  reason: string;
  /** A removal: the slot's generation in the listing the plan was made from (the removal's condition). */
  generation?: number;
  /** After applying: what happened. */
  result?: 'done' | 'failed';
  problem?: string;
}

/** Slugs from the command line: valid slot names, each once, in the order given. */
export function checkedSlugs(slugs: readonly string[], where: string): string[] {
  if (slugs.length === 0) throw new UsageError(`give at least one slot, e.g. preview-10 (${where})`);
  for (const slug of slugs) {
    const parsed = slugSchema.safeParse(slug);
    if (!parsed.success)
      throw new UsageError(`'${slug}' is not a slot name: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  return [...new Set(slugs)];
}

/**
 * How slots join and leave the pool: `dirty` adopts slots that hold data already, so the next gc
 * erases them; `allowDirty` removes a dirty slot too, whose data then stays in its resources for good.
 */
export interface ChangeOptions {
  dirty: boolean;
  allowDirty: boolean;
}

/** Why the semaphore kept a slot the plan removed: it changed since the listing. */
const KEPT_BY_THE_SEMAPHORE: Readonly<Record<string, string>> = {
  leased: 'leased since the listing; kept',
  condition_failed: 'leased since the listing (its generation moved on); kept',
  dirty: 'dirty since the listing (it may hold data now); kept',
};

async function applyChange(
  semaphore: SemaphoreClient,
  pool: string,
  change: SlotChange,
  options: ChangeOptions,
): Promise<SlotChange> {
  try {
    if (change.action === 'add')
      await semaphore.add({ type: pool, slug: change.slug, ...(options.dirty ? { dirty: true } : {}) });
    if (change.action === 'remove') {
      if (change.generation === undefined) throw new Error(`no generation was read for ${change.slug}`);
      // Only the slot as the listing showed it: the semaphore checks the generation and the dirt.
      await semaphore.remove(pool, change.slug, {
        ifGeneration: change.generation,
        allowDirty: options.allowDirty,
      });
    }
    return { ...change, result: 'done' };
  } catch (error) {
    if (error instanceof SemaphoreError && change.action === 'add' && error.code === 'already_exists')
      return { ...change, action: 'unchanged', reason: 'already in the pool', result: 'done' };
    const kept = error instanceof SemaphoreError ? KEPT_BY_THE_SEMAPHORE[error.code] : undefined;
    if (change.action === 'remove' && kept !== undefined)
      return { ...change, result: 'failed', problem: kept };
    return { ...change, result: 'failed', problem: error instanceof Error ? error.message : String(error) };
  }
}

/** Applies the adds and removes in order, one call each; the rest are carried through as they are. */
export async function applyChanges(
  semaphore: SemaphoreClient,
  pool: string,
  changes: readonly SlotChange[],
  options: ChangeOptions = { dirty: false, allowDirty: false },
): Promise<SlotChange[]> {
  const applied: SlotChange[] = [];
  for (const change of changes) {
    applied.push(
      change.action === 'add' || change.action === 'remove'
        ? await applyChange(semaphore, pool, change, options)
        : change,
    );
  }
  return applied;
}

const ACTION_TEXT: Record<SlotChange['action'], { text: string; format: Parameters<typeof paint>[1] }> = {
  add: { text: '+ add', format: 'green' },
  remove: { text: '- remove', format: 'yellow' },
  keep: { text: '! keep', format: 'yellow' },
  unchanged: { text: '  in place', format: 'dim' },
};

function actionCell(change: SlotChange, style: TerminalStyle): string {
  const { text, format } = ACTION_TEXT[change.action];
  return change.result === 'failed'
    ? paint(style, 'red', `✖ ${text.slice(2)} failed`)
    : paint(style, format, text);
}

/** The changes as a table; unchanged slots are only counted when there are many. */
function renderChanges(changes: readonly SlotChange[], style: TerminalStyle): string[] {
  const shown = changes.length > 12 ? changes.filter((change) => change.action !== 'unchanged') : changes;
  const hidden = changes.length - shown.length;
  const rows = shown.map((change) => [
    clean(change.slug),
    actionCell(change, style),
    clean(change.problem ?? change.reason),
  ]);
  return [
    ...(rows.length > 0 ? renderTable(['SLOT', 'ACTION', 'WHY'], rows, style) : []),
    ...(hidden > 0 ? [`  … and ${hidden} slots already in place`] : []),
  ];
}

/** One closing line: what changed, what failed. */
function changesVerdict(changes: readonly SlotChange[], dryRun: boolean, dirty: boolean): string {
  const count = (action: SlotChange['action']) =>
    changes.filter((change) => change.action === action && change.result !== 'failed').length;
  const failed = changes.filter((change) => change.result === 'failed').length;
  const added = dirty && count('add') > 0 ? ' dirty (the next gc erases their data)' : '';
  const parts = dryRun
    ? [`would add ${count('add')}${added}`, `would remove ${count('remove')}`]
    : [`added ${count('add')}${added}`, `removed ${count('remove')}`];
  if (count('keep') > 0) parts.push(`kept ${count('keep')} that may not go`);
  if (failed > 0) parts.push(`${failed} failed`);
  return `${dryRun ? 'Dry run, nothing was changed: ' : ''}${parts.join(', ')}.`;
}

function changesFailed(changes: readonly SlotChange[]): boolean {
  return changes.some((change) => change.result === 'failed');
}

/** Prints the changes (or their JSON) and says how it went; 1 when a change failed. */
export function printChanges(
  io: Pick<CliIO, 'out' | 'outStyle'>,
  result: {
    pool: string;
    dryRun: boolean;
    changes: readonly SlotChange[];
    json: boolean;
    heading?: string;
    /** The slots were added dirty. */
    dirty?: boolean;
  },
): number {
  if (result.json) {
    io.out(JSON.stringify({ pool: result.pool, dryRun: result.dryRun, changes: result.changes }, null, 2));
  } else {
    if (result.heading !== undefined) io.out(paint(io.outStyle, 'bold', result.heading));
    for (const line of renderChanges(result.changes, io.outStyle)) io.out(line);
    io.out(changesVerdict(result.changes, result.dryRun, result.dirty === true));
  }
  return changesFailed(result.changes) ? 1 : 0;
}

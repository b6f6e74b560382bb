// Formatting shared by the job summary and the terminal output.

import { pullRequestOfHolder } from '../semaphore/holders.ts';
import type { AcquiredResources, SharedBindingRow } from './model.ts';

/**
 * "950 ms", "12 s", "4 min", "3 h 20 min", "1 d 23 h": coarse on purpose, a person reads it. Days
 * start at 24 hours, so a two-day lease reads "2 d" from its first minute to its last day, not
 * "47 h 59 min" beside another's "2 d".
 */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  const seconds = Math.round(abs / 1000);
  if (seconds < 60) return `${seconds} s`;
  // Round once, at the unit shown last, then split: 3 h 59 min 59 s is "4 h", never "3 h 60 min".
  const minutes = Math.round(abs / 60_000);
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 24 * 60) return joinUnits(Math.floor(minutes / 60), 'h', minutes % 60, 'min');
  const hours = Math.round(abs / 3_600_000);
  return joinUnits(Math.floor(hours / 24), 'd', hours % 24, 'h');
}

function joinUnits(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major} ${majorUnit}` : `${major} ${majorUnit} ${minor} ${minorUnit}`;
}

/**
 * The pull request number of a holder, when it is one of the run's repository's pull requests:
 * `pr-<n>`, or `<repository>/pr-<n>` (an OIDC deploy's holder). Only the one spelling acquire writes
 * (`pr-7`, never `pr-07` or `pr-0`), compared exactly: gc releases the slot of a closed pull request's
 * holder, so a look-alike (a person's `pr-07`, another repository's `acme/blog/pr-7`) is none.
 */
export function pullRequestOf(holder: string | null, repository?: string): number | null {
  return pullRequestOfHolder(holder, repository);
}

/** 2026-12-03 10:00 UTC: an ISO time as a person reads it in a summary or comment. */
export function readableUtc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** How the pull request came to have its slot, for the acquire headline. */
export function howAcquired(slot: { wasDirty: boolean; reused: boolean }): string {
  if (slot.wasDirty) return 'erased first';
  return slot.reused ? 'its lease extended' : 'a clean slot';
}

/**
 * The slot's resources, kind by kind, each id after its name:
 * `workers: app-preview-3; d1: app-preview-3-db (0f6c…)`.
 */
export function resourceList(resources: AcquiredResources, name: (text: string) => string): string {
  const kinds = Object.entries(resources).filter(([, entries]) => entries.length > 0);
  const entry = (resource: { name: string; id?: string }) =>
    resource.id === undefined || resource.id === resource.name
      ? name(resource.name)
      : `${name(resource.name)} (${name(resource.id)})`;
  return kinds.length === 0
    ? '–'
    : kinds.map(([kind, entries]) => `${kind}: ${entries.map(entry).join(', ')}`).join('; ');
}

/** The bindings a preview shares on purpose: `HYPERDRIVE` (at `hyperdrive[0]`), … */
export function sharedList(shared: readonly SharedBindingRow[], code: (text: string) => string): string {
  return shared.map((binding) => `${code(binding.name)} (at ${code(binding.place)})`).join(', ');
}

/**
 * What the last tenant left that goes by itself later, resource by resource ("app-preview-3-files: 2
 * objects written before …, expected gone by …"), or undefined when nothing is left.
 */
export function leftByLastTenant(
  resources: AcquiredResources,
  name: (text: string) => string,
  text: (text: string) => string,
): string | undefined {
  const left = Object.values(resources).flatMap((entries) =>
    entries.flatMap((resource) =>
      resource.left === undefined ? [] : [`${name(resource.name)}: ${text(resource.left.summary)}`],
    ),
  );
  return left.length === 0 ? undefined : left.join('; ');
}

/** Why a slot was taken and how long it waited: `3 h (expired)`, `dirty` for acquire; cleanup: how long the pull request held it. */
export function waitingText(slot: { reason: string; waitingMs: number }, command: string): string {
  if (slot.reason === 'held-by-pull-request') return formatDuration(slot.waitingMs);
  if (slot.reason === 'closed-pr') return 'pull request closed';
  if (slot.reason === 'parked') return `parked ${formatDuration(slot.waitingMs)} ago`;
  return command === 'acquire' ? slot.reason : `${formatDuration(slot.waitingMs)} (${slot.reason})`;
}

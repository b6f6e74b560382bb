// The parked Worker that replaces a slot's Worker: every request gets 503, every Durable Object
// class is tombstoned in the same upload, and classes that must stay (backed by a container
// application, or `durable-objects: keep`) remain as stub classes that answer 503 too.
import type { WorkerModuleFile } from './account.ts';

/** Marks a parked Worker in the script list (its `tags`), so a second erase knows there is nothing to do. */
export const PARKED_TAG = 'preview-gc-parked';
/** Migration tags preview-gc writes: `preview-gc-1`, `preview-gc-2`, … */
const OWN_TAG = /^preview-gc-(\d+)$/;

const COMPATIBILITY_DATE = '2025-06-01';
const MAIN_MODULE = 'parked.js';
const JS_IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Names the stub code cannot declare as a class: its own names and JavaScript's reserved words. */
const UNUSABLE = new Set(
  'DurableObject parked await break case catch class const continue debugger default delete do else enum export extends false finally for function if implements import in instanceof interface let new null package private protected public return static super switch this throw true try typeof var void while with yield'.split(
    ' ',
  ),
);

export interface KeptClass {
  name: string;
  /** The live `exports` entry from the script list (exports mode), passed through unchanged. */
  exportEntry?: Record<string, unknown> | undefined;
  sqlite: boolean;
}

export interface ParkedUploadPlan {
  exportsMode: boolean;
  /** The script's migration tag now (migrations mode). */
  migrationTag: string | undefined;
  tombstone: string[];
  keep: KeptClass[];
}

export interface ParkedUpload {
  metadata: Record<string, unknown>;
  modules: WorkerModuleFile[];
  /** The migration tag the upload moves to, when it carries a migration. */
  newMigrationTag: string | undefined;
}

/** Whether a class name can be written into the stub code as is. */
export function isIdentifier(name: string): boolean {
  return JS_IDENTIFIER.test(name) && !UNUSABLE.has(name);
}

/** The tag after `current`: `preview-gc-<n+1>` after one of ours, else `preview-gc-1`. */
export function nextMigrationTag(current: string | undefined): string {
  const ours = current === undefined ? undefined : OWN_TAG.exec(current);
  return `preview-gc-${ours ? Number(ours[1]) + 1 : 1}`;
}

/** A migration tag preview-gc wrote: the last upload was a parking one. */
export function isOwnMigrationTag(tag: string | undefined): boolean {
  return tag !== undefined && OWN_TAG.test(tag);
}

function parkedCode(keep: readonly KeptClass[]): string {
  const lines = [
    '// Parked by preview-gc: this preview slot is free. Every request answers 503 until the next deploy.',
    ...(keep.length > 0 ? ["import { DurableObject } from 'cloudflare:workers';"] : []),
    'const parked = () =>',
    "  new Response('This preview slot is parked.\\n', {",
    "    status: 503, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },",
    '  });',
    'export default { fetch: parked };',
    // An empty alarm() ends pending alarms quietly instead of letting them fail and retry.
    ...keep.map(
      (kept) => `export class ${kept.name} extends DurableObject { fetch() { return parked(); } alarm() {} }`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

export function parkedUpload(plan: ParkedUploadPlan): ParkedUpload {
  const metadata: Record<string, unknown> = {
    main_module: MAIN_MODULE,
    compatibility_date: COMPATIBILITY_DATE,
    // No binding survives except secrets: nothing may bind a deleted class (10061), and the next
    // deploy of the slot expects its secrets to be where it left them.
    bindings: [],
    keep_bindings: ['secret_text', 'secret_key'],
    tags: [PARKED_TAG],
  };
  let newMigrationTag: string | undefined;
  if (plan.exportsMode) {
    metadata.exports = Object.fromEntries([
      ...plan.keep.map((kept) => [
        kept.name,
        kept.exportEntry ?? { type: 'durable-object', storage: kept.sqlite ? 'sqlite' : 'legacy-kv' },
      ]),
      ...plan.tombstone.map((name) => [name, { type: 'durable-object', state: 'deleted' }]),
    ]);
  } else if (plan.tombstone.length > 0) {
    newMigrationTag = nextMigrationTag(plan.migrationTag);
    metadata.migrations = {
      ...(plan.migrationTag === undefined ? {} : { old_tag: plan.migrationTag }),
      new_tag: newMigrationTag,
      steps: [{ deleted_classes: plan.tombstone }],
    };
  }
  return {
    metadata,
    modules: [{ name: MAIN_MODULE, content: parkedCode(plan.keep), type: 'application/javascript+module' }],
    newMigrationTag,
  };
}

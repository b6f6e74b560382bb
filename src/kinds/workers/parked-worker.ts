// The parked Worker that replaces a slot's Worker: every request gets 503, every Durable Object
// class is tombstoned in the same upload, and classes that must stay (backed by a container
// application, or `durable-objects: keep`) remain as stub classes that answer 503 too.
import type { WorkerModuleFile, WorkerUploadMetadata } from './api.ts';
import type { WorkerModuleText } from './content.ts';

/**
 * Marks a parked Worker in the script list (its `tags`). Tags survive later uploads that carry none
 * (wrangler's never do), so the tag only says "read the code to know"; the code decides.
 */
export const PARKED_TAG = 'preview-gc-parked';
/** Migration tags preview-gc writes: `preview-gc-1`, `preview-gc-2`, … */
const OWN_TAG = /^preview-gc-(\d+)$/;

const COMPATIBILITY_DATE = '2025-06-01';
/** The parked Worker's one module, and the line it starts with: how a person (and the inventory) knows it. */
export const PARKED_MAIN_MODULE = 'parked.js';
export const PARKED_BANNER =
  '// Parked by preview-gc: this preview slot is free. Every request answers 503 until the next deploy.';
const JS_IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Names the stub code cannot declare as a class: its own names and JavaScript's reserved words. */
const UNUSABLE = new Set(
  'DurableObject parked await break case catch class const continue debugger default delete do else enum export extends false finally for function if implements import in instanceof interface let new null package private protected public return static super switch this throw true try typeof var void while with yield'.split(
    ' ',
  ),
);

export interface KeptClass {
  name: string;
  sqlite: boolean;
  /** The container application backing the class (its name), which the upload must declare again. */
  container?: string | undefined;
}

export interface ParkedUploadPlan {
  exportsMode: boolean;
  /** The script's migration tag now (migrations mode). */
  migrationTag: string | undefined;
  tombstone: string[];
  keep: KeptClass[];
}

export interface ParkedUpload {
  metadata: WorkerUploadMetadata;
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

function parkedCode(keep: readonly KeptClass[]): string {
  const lines = [
    PARKED_BANNER,
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

/**
 * Whether `deployed` is exactly the code a parked upload keeping `keep` carries: one module, byte
 * for byte. Every upload replaces the code, so a redeploy of any kind makes this false.
 */
export function isParkedCode(deployed: readonly WorkerModuleText[], keep: readonly KeptClass[]): boolean {
  const [only] = deployed;
  return deployed.length === 1 && only?.text === parkedCode(keep);
}

/** The most bytes parked code can have (with a few stub classes): a longer script is not parked. */
export const PARKED_CODE_MAX_BYTES = 64 * 1024;

/**
 * The containers the upload declares: one per kept container-backed class, with both directions of
 * the link (the class by `class_name`; in exports mode its entry also names the container), as
 * wrangler sends them. Leaving one out would turn the class's containers off.
 */
function declaredContainers(keep: readonly KeptClass[]): WorkerUploadMetadata['containers'] {
  return keep.flatMap((kept) =>
    kept.container === undefined ? [] : [{ name: kept.container, class_name: kept.name }],
  );
}

export function parkedUpload(plan: ParkedUploadPlan): ParkedUpload {
  const containers = declaredContainers(plan.keep);
  const metadata: WorkerUploadMetadata = {
    main_module: PARKED_MAIN_MODULE,
    compatibility_date: COMPATIBILITY_DATE,
    // No binding survives except secrets: nothing may bind a deleted class (10061), and the next
    // deploy of the slot expects its secrets to be where it left them.
    bindings: [],
    keep_bindings: ['secret_text', 'secret_key'],
    tags: [PARKED_TAG],
    ...(containers?.length ? { containers } : {}),
  };
  let newMigrationTag: string | undefined;
  if (plan.exportsMode) {
    metadata.exports = Object.fromEntries([
      ...plan.keep.map((kept) => [
        kept.name,
        {
          type: 'durable-object' as const,
          storage: kept.sqlite ? ('sqlite' as const) : ('legacy-kv' as const),
          ...(kept.container === undefined ? {} : { container: kept.container }),
        },
      ]),
      ...plan.tombstone.map((name) => [name, { type: 'durable-object' as const, state: 'deleted' as const }]),
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
    modules: [
      { name: PARKED_MAIN_MODULE, content: parkedCode(plan.keep), type: 'application/javascript+module' },
    ],
    newMigrationTag,
  };
}

// The app's wrangler config, written for one slot: the Worker's name and every placed binding pointed
// at the slot's resources (names from the slot config, ids from the run's listings), and the keys
// that would deploy something other than the slot, or run production's work in it, made safe:
// `env` (a `--env` on this file would deploy another Worker with other bindings), `routes` and
// `route` (production's domains) left out; `account_id` the slot's account (or left out, so the
// deploy's CLOUDFLARE_ACCOUNT_ID applies); `workers_dev` on, so the preview has an address; and
// `triggers.crons` empty, so a deploy of the copy removes every schedule the slot's Worker had (a
// config without crons leaves them: wrangler then sends nothing about schedules). The JSONC copy is the original text with edits, so its comments stay; a
// TOML copy is written anew from the parsed table, so its comments do not (its first line says so).
// It is written next to the original, so every path in it (`main`, `migrations_dir`, …) still holds.
import { unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { applyEdits, type FormattingOptions, modify } from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import type { KindKey } from '../../kinds/registry.ts';
import type { ConfigPath } from '../../kinds/wrangler-binding.ts';
import type { SlotResources } from '../slot-resources.ts';
import type { AppWranglerConfig } from './app-config.ts';
import type { WranglerPlacement } from './placement.ts';

/** Top-level keys the slot's copy leaves out: they would deploy something other than the slot. */
const LEFT_OUT = ['env', 'routes', 'route'] as const;

/** Where the slot is: the account the deploy must go to, when the run knows it. */
export interface SlotPlace {
  accountId?: string | undefined;
}

/** The ids the slot's resources are bound by, by kind and in the order of the slot config's templates. */
export type SlotIds = Record<KindKey, readonly { id?: string | undefined }[]>;

interface Edit {
  path: ConfigPath;
  /** undefined removes the key. */
  value: string | boolean | readonly string[] | undefined;
}

/** The keys that keep the deploy in the slot's account, give it an address and run no production schedule. */
function previewSafeEdits(top: Readonly<Record<string, unknown>>, place: SlotPlace): Edit[] {
  const edits: Edit[] = [];
  if (place.accountId !== undefined && place.accountId !== '')
    edits.push({ path: ['account_id'], value: place.accountId });
  else if (top.account_id !== undefined) edits.push({ path: ['account_id'], value: undefined });
  edits.push({ path: ['workers_dev'], value: true });
  // An empty list, not no key: wrangler deploy then replaces the Worker's schedules with none.
  edits.push({ path: ['triggers', 'crons'], value: [] });
  return edits;
}

function editsFor(placement: WranglerPlacement, slot: SlotResources, ids: SlotIds, place: SlotPlace): Edit[] {
  const edits: Edit[] = [];
  for (const { kind, template, reference } of placement.placed) {
    const resource: object = slot[kind.key][template] as object;
    const id = ids[kind.key][template]?.id;
    const fields = kind.wrangler.point(reference, resource, id);
    for (const [field, value] of Object.entries(fields)) {
      const present = valueAt(placement.app.top, [...reference.path, field]) !== undefined;
      if (value !== undefined || present) edits.push({ path: [...reference.path, field], value });
    }
  }
  for (const key of LEFT_OUT)
    if (placement.app.top[key] !== undefined) edits.push({ path: [key], value: undefined });
  return [...edits, ...previewSafeEdits(placement.app.top, place)];
}

/** The table at `path`, made where it is missing (`[triggers]` for `triggers.crons`). */
function tableAt(top: Record<string, unknown>, path: ConfigPath): Record<string | number, unknown> {
  let table: Record<string | number, unknown> = top;
  for (const part of path) {
    const next = table[part];
    if (typeof next !== 'object' || next === null) table[part] = {};
    table = table[part] as Record<string | number, unknown>;
  }
  return table;
}

function valueAt(top: unknown, path: ConfigPath): unknown {
  let value = top;
  for (const part of path) value = (value as Record<string | number, unknown> | undefined)?.[part];
  return value;
}

function header(app: AppWranglerConfig, slug: string): string {
  const kept = app.format === 'toml' ? "; the original's comments are not kept" : '';
  return `Written by preview-gc for slot ${slug} from ${basename(app.file)}: the Worker and its bindings point at the slot's resources; env, routes and route are left out, account_id is the slot's, workers_dev is on and no cron runs${kept}. Do not edit: acquire writes it anew.`;
}

function indentOf(text: string): FormattingOptions {
  const indent = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.includes('\t'),
    tabSize: indent.includes('\t') ? 1 : indent.length,
    eol: '\n',
  };
}

function jsoncText(app: AppWranglerConfig, edits: readonly Edit[], slug: string): string {
  const formattingOptions = indentOf(app.text);
  let text = app.text;
  for (const edit of edits)
    text = applyEdits(
      text,
      modify(text, [...edit.path], edit.value === undefined ? undefined : structuredClone(edit.value), {
        formattingOptions,
      }),
    );
  // A .json file may not hold comments; a .jsonc file gets one line that says where it came from.
  return extname(app.file) === '.jsonc' ? `// ${header(app, slug)}\n${text}` : text;
}

function tomlText(app: AppWranglerConfig, edits: readonly Edit[], slug: string): string {
  // A fresh parse: the edits change this copy, never the one placement read.
  const table = parseToml(app.text) as Record<string, unknown>;
  for (const edit of edits) {
    const parent = tableAt(table, edit.path.slice(0, -1));
    const key = edit.path.at(-1) as string;
    if (edit.value === undefined) delete parent[key];
    else parent[key] = structuredClone(edit.value);
  }
  return `# ${header(app, slug)}\n${stringifyToml(table)}\n`;
}

/** The text of the slot's copy of the app's wrangler config. */
export function slotWranglerConfigText(
  placement: WranglerPlacement,
  slot: SlotResources,
  ids: SlotIds,
  place: SlotPlace = {},
): string {
  const edits = editsFor(placement, slot, ids, place);
  return placement.app.format === 'toml'
    ? tomlText(placement.app, edits, slot.slot)
    : jsoncText(placement.app, edits, slot.slot);
}

/** Where the slot's copy goes: beside the original, `wrangler.preview-gc.<slot>.jsonc`. */
export function slotWranglerConfigPath(app: AppWranglerConfig, slug: string): string {
  const extension = extname(app.file);
  const name = `${basename(app.file, extension)}.preview-gc.${slug}${extension}`;
  const directory = dirname(app.file);
  return directory === '.' ? name : join(directory, name);
}

/**
 * Writes the slot's copy and returns its path. Whatever was at the path is removed first and the file
 * is created anew (never through a link the branch may have put there).
 */
export async function writeSlotWranglerConfig(
  placement: WranglerPlacement,
  slot: SlotResources,
  ids: SlotIds,
  place: SlotPlace = {},
): Promise<string> {
  const path = slotWranglerConfigPath(placement.app, slot.slot);
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await writeFile(path, slotWranglerConfigText(placement, slot, ids, place), { flag: 'wx', mode: 0o644 });
  return path;
}

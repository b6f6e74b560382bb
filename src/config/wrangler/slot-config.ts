// The app's wrangler config, written for one slot (docs/config.md#the-slots-wrangler-config): the
// Worker's name and every placed binding pointed at the slot's resources (names from the slot config,
// ids from the run's listings), and the keys that would deploy something other than the slot, or run
// production's work in it, made safe: `env` (a `--env` on this file would deploy another Worker with
// other bindings), `routes` and `route` (production's domains) left out, or the slot config's preview
// route put in; `account_id` the slot's account (or left out, so the deploy's CLOUDFLARE_ACCOUNT_ID
// applies); `workers_dev` on, so the preview has an address; `triggers.crons` empty unless the
// Worker's template keeps them, so a deploy of the copy removes every schedule the slot's Worker had
// (a config without crons leaves them: wrangler then sends nothing about schedules); `vars` the slot
// config's, when the app has no preview env block. The JSONC copy is the original text with edits,
// so its comments stay; a TOML copy is written anew from the parsed table, so its comments do not
// (its first line says so). It is written next to the original, so every path in it (`main`,
// `migrations_dir`, …) still holds.
import { unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { slotNumberOf } from '../../kinds/name-template.ts';
import type { KindKey } from '../../kinds/registry.ts';
import type { SlotWorker } from '../../kinds/workers/config.ts';
import { expandVar } from '../preview-deploy-config.ts';
import type { SlotResources } from '../slot-resources.ts';
import type { AppWranglerConfig } from './app-config.ts';
import { type ConfigEdit, editJsonc, editTable, valueAt } from './config-edits.ts';
import type { WranglerPlacement } from './placement.ts';

/** Top-level keys the slot's copy leaves out: they would deploy something other than the slot. */
const LEFT_OUT = ['env', 'routes', 'route'] as const;

/** Where the slot is: the account the deploy must go to, when the run knows it. */
export interface SlotPlace {
  accountId?: string | undefined;
}

/** The ids the slot's resources are bound by, by kind and in the order of the slot config's templates. */
export type SlotIds = Record<KindKey, readonly { id?: string | undefined }[]>;

/** The slot's Worker template the app's config deploys as (its `name`), when one is placed. */
function deployedWorker(placement: WranglerPlacement, slot: SlotResources): SlotWorker | undefined {
  const named = placement.placed.find(
    ({ kind, reference }) => kind.key === 'workers' && reference.role === 'name',
  );
  return named === undefined ? undefined : slot.workers[named.template];
}

/**
 * The keys that keep the deploy in the slot's account, give it an address, run no production
 * schedule (unless the Worker's template keeps them) and no production vars the slot config replaces.
 */
function previewSafeEdits(placement: WranglerPlacement, slot: SlotResources, place: SlotPlace): ConfigEdit[] {
  const { app, deploy } = placement;
  const edits: ConfigEdit[] = [];
  if (place.accountId !== undefined && place.accountId !== '')
    edits.push({ path: ['account_id'], value: place.accountId });
  else if (app.top.account_id !== undefined) edits.push({ path: ['account_id'], value: undefined });
  edits.push({ path: ['workers_dev'], value: true });
  // An empty list, not no key: wrangler deploy then replaces the Worker's schedules with none.
  if (deployedWorker(placement, slot)?.crons !== 'keep')
    edits.push({ path: ['triggers', 'crons'], value: [] });
  const number = slotNumberOf(slot.slot);
  if (app.env === undefined && deploy.vars !== undefined)
    edits.push({
      path: ['vars'],
      value: Object.fromEntries(
        Object.entries(deploy.vars).map(([name, value]) => [name, expandVar(value, slot.slot, number)]),
      ),
    });
  if (deploy.route !== undefined)
    edits.push({ path: ['routes'], value: [expandVar(deploy.route, slot.slot, number)] });
  return edits;
}

function editsFor(
  placement: WranglerPlacement,
  slot: SlotResources,
  ids: SlotIds,
  place: SlotPlace,
): ConfigEdit[] {
  const edits: ConfigEdit[] = [];
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
  return [...edits, ...previewSafeEdits(placement, slot, place)];
}

function header(placement: WranglerPlacement, slot: SlotResources): string {
  const { app, deploy } = placement;
  const kept = app.format === 'toml' ? "; the original's comments are not kept" : '';
  const env = app.env === undefined ? '' : ` with its env.${app.env} applied`;
  const crons = deployedWorker(placement, slot)?.crons === 'keep' ? 'its crons are kept' : 'no cron runs';
  const address =
    deploy.route === undefined ? 'workers_dev is on' : "workers_dev is on and the route is the slot's";
  return `Written by preview-gc for slot ${slot.slot} from ${basename(app.file)}${env}: the Worker and its bindings point at the slot's resources; env, routes and route are left out, account_id is the slot's, ${address} and ${crons}${kept}. Do not edit: acquire writes it anew.`;
}

function jsoncText(placement: WranglerPlacement, slot: SlotResources, edits: readonly ConfigEdit[]): string {
  const { app } = placement;
  const text = editJsonc(app.text, edits);
  // A .json file may not hold comments; a .jsonc file gets one line that says where it came from.
  return extname(app.file) === '.jsonc' ? `// ${header(placement, slot)}\n${text}` : text;
}

function tomlText(placement: WranglerPlacement, slot: SlotResources, edits: readonly ConfigEdit[]): string {
  // A fresh parse: the edits change this copy, never the one placement read.
  const table = parseToml(placement.app.text) as Record<string, unknown>;
  editTable(table, edits);
  return `# ${header(placement, slot)}\n${stringifyToml(table)}\n`;
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
    ? tomlText(placement, slot, edits)
    : jsoncText(placement, slot, edits);
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

// acquire's part of the app's wrangler config, read once before any slot is taken: the file (the
// `wrangler-config` input, else the one wrangler would find in the working directory), its preview
// env block applied, its bindings placed at the slot config's templates (or shared on purpose), the
// container classes the deploy declares, what the deploy should know (the bindings it shares, the
// production vars it would run with), and the writer of the slot's copy. A config that cannot be
// placed fails the run before it takes a slot.

import type { SlotConfig } from '../slot-config-schema.ts';
import { resourcesForSlot } from '../slot-resources.ts';
import { type AppWranglerConfig, findWranglerConfig, loadAppWranglerConfig } from './app-config.ts';
import type { SharedBinding } from './outside-bindings.ts';
import { placeBindings } from './placement.ts';
import { applyPreviewEnv } from './preview-env.ts';
import { type SlotIds, type SlotPlace, writeSlotWranglerConfig } from './slot-config.ts';

export interface DeployWranglerConfig {
  incoming: { containerClasses: readonly string[] };
  /** Bindings the preview shares with what they name, on purpose (`deploy.shared`). */
  shared: readonly SharedBinding[];
  /** What the deploy's summary should say once (the production vars the preview runs with). */
  warnings: readonly string[];
  write(slug: string, ids: SlotIds): Promise<string>;
}

/** At most this many var names in the warning: the rest are counted. */
const NAMED_VARS = 12;

/** The warning when the preview would run with the app's top-level vars: nothing gives its own. */
function productionVarsWarning(app: AppWranglerConfig, config: SlotConfig): string[] {
  const vars = app.top.vars;
  if (app.env !== undefined || config.deploy.vars !== undefined) return [];
  if (typeof vars !== 'object' || vars === null || Object.keys(vars).length === 0) return [];
  const names = Object.keys(vars);
  const shown = names.slice(0, NAMED_VARS).map((name) => JSON.stringify(name));
  const more = names.length > NAMED_VARS ? ` and ${names.length - NAMED_VARS} more` : '';
  return [
    `The preview runs with the vars of ${app.file} as production has them: ${shown.join(', ')}${more}. Give it its own in an env.${config.deploy.env} block of ${app.file}, or under deploy.vars in ${config.file} ({slot} and {n} expand).`,
  ];
}

/**
 * The app's wrangler config for acquire, or undefined when none is named and the working directory
 * has none. `named` says where a path came from, for messages (`input 'wrangler-config'`).
 */
export async function deployWranglerConfig(
  path: string | undefined,
  config: SlotConfig,
  named: string,
  place: SlotPlace = {},
): Promise<DeployWranglerConfig | undefined> {
  const file = path ?? (await findWranglerConfig('.'));
  if (file === undefined) return undefined;
  const app = applyPreviewEnv(await loadAppWranglerConfig(file, named), config.deploy.env);
  const placement = placeBindings(config, app);
  return {
    incoming: { containerClasses: placement.containerClasses },
    shared: placement.shared,
    warnings: productionVarsWarning(app, config),
    write: (slug, ids) => writeSlotWranglerConfig(placement, resourcesForSlot(config, slug), ids, place),
  };
}

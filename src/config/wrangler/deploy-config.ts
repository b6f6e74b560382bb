// acquire's part of the app's wrangler config, read once before any slot is taken: the file (the
// `wrangler-config` input, else the one wrangler would find in the working directory), its bindings
// placed at the slot config's templates, the container classes the deploy declares, and the writer of
// the slot's copy. A config that cannot be placed fails the run before it takes a slot.

import type { SlotConfig } from '../slot-config-schema.ts';
import { resourcesForSlot } from '../slot-resources.ts';
import { findWranglerConfig, loadAppWranglerConfig } from './app-config.ts';
import { placeBindings } from './placement.ts';
import { type SlotIds, type SlotPlace, writeSlotWranglerConfig } from './slot-config.ts';

export interface DeployWranglerConfig {
  incoming: { containerClasses: readonly string[] };
  write(slug: string, ids: SlotIds): Promise<string>;
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
  const placement = placeBindings(config, await loadAppWranglerConfig(file, named));
  return {
    incoming: { containerClasses: placement.containerClasses },
    write: (slug, ids) => writeSlotWranglerConfig(placement, resourcesForSlot(config, slug), ids, place),
  };
}

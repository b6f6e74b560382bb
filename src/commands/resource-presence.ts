// Whether a slot's Cloudflare resources exist: the config's templates for the slot against what the
// account's listings say (one listing per kind, the run's, shared by every slot). doctor looks at
// every slot of the pool with it; slots add and sync at the slots they are about to add.
import { resourcesForSlot, type SlotConfig } from '../config/slot-config.ts';
import type { Origin } from '../kinds/kind.ts';
import { describeResource, eachResource, nameOf, type SomeKind } from '../kinds/registry.ts';

/** Whether the account has `resource`, from the run's listing of its kind. */
export type ResourceExists = (kind: SomeKind, resource: object & Origin) => Promise<boolean>;

export interface SlotResourcePresence {
  /** How many resources the config names for the slot. */
  named: number;
  /** The ones the account does not have, each as a person reads it: the kind, the name and its template. */
  missing: string[];
}

/** The slot's resources, and which of them the account does not have. Throws a ConfigError for a refused slot. */
export async function resourcePresence(
  config: SlotConfig,
  slug: string,
  exists: ResourceExists,
): Promise<SlotResourcePresence> {
  const resources = eachResource(resourcesForSlot(config, slug));
  const missing: string[] = [];
  for (const { kind, resource } of resources) {
    if (!(await exists(kind, resource)))
      missing.push(
        `${describeResource(kind, resource)} '${nameOf(kind, resource)}' (from '${resource.template}' at ${config.file} ${resource.path})`,
      );
  }
  return { named: resources.length, missing };
}

// The spend read as the commands use it: the slots' Worker names from the slot config (the Workers
// kind's own entries), one GraphQL query for all of them, its rows placed slot by slot. A second
// request (the namespace listing) only when the first leaves compute unexplained that costs more
// than the caller cares about, or when it asks which class a namespace is.
import { ConfigError, resourcesForSlot, type SlotConfig } from '../config/slot-config.ts';
import { workers } from '../kinds/workers/kind.ts';
import type { ActivityFigures, SlotActivity } from './activity.ts';
import type { SpendAccount } from './answer.ts';
import { attribute } from './attribute.ts';
import { computeUsd } from './estimate.ts';
import type { NamespaceOwner } from './namespaces.ts';
import { spendQuery } from './query.ts';
import { type AnalyticsOptions, sendSpendQuery } from './send.ts';

export interface SpendReading {
  window: { from: number; until: number };
  /** Every slot asked about whose Workers the config names. */
  slots: Map<string, SlotActivity>;
  /** Compute the read could place in no Worker (a namespace invoked by nothing in the hour). */
  unexplained: { namespaces: number; usdPerHour: number };
  /** Datasets that answered as many rows as the query allows. */
  truncated: string[];
}

export interface SpendSource {
  /**
   * The last hour of `slugs`, ending at `window.until`. Compute no invocation explains is placed by a
   * namespace listing when it costs at least `explainAboveUsd` an hour. Throws the call's
   * CloudflareCallError when Cloudflare refuses or fails the query.
   */
  read(
    slugs: readonly string[],
    window: { from: number; until: number },
    options: { explainAboveUsd: number },
  ): Promise<SpendReading>;
  /** Which Worker and class each namespace is: the listing, made once a run; empty when it fails. */
  owners(): Promise<ReadonlyMap<string, NamespaceOwner>>;
}

/** Each slot's Workers, by slug; a slot whose names the config cannot make is left out. */
function scriptsOfSlots(config: SlotConfig, slugs: readonly string[]): Map<string, string[]> {
  const scripts = new Map<string, string[]>();
  for (const slug of slugs) {
    try {
      scripts.set(
        slug,
        resourcesForSlot(config, slug)[workers.key].map((worker) => worker.name),
      );
    } catch (error) {
      // The erase refuses such a slot with the config's message; the read just leaves it out.
      if (!(error instanceof ConfigError)) throw error;
    }
  }
  return scripts;
}

const NO_ROWS: SpendAccount = { workers: [], objects: [], namespaces: [], compute: [], storage: [] };
const NOTHING = { namespaces: 0, usdPerHour: 0 };

const sumUsd = (list: readonly { figures: ActivityFigures }[]) =>
  list.reduce((total, entry) => total + computeUsd(entry.figures), 0);

export type SpendOptions = AnalyticsOptions;

export function createSpendSource(config: SlotConfig, options: SpendOptions): SpendSource {
  let owners: Promise<Map<string, NamespaceOwner>> | undefined;
  const listOwners = () => {
    owners ??= import('./namespaces.ts').then((module) => module.listNamespaceOwners(options));
    return owners;
  };
  return {
    async read(slugs, window, { explainAboveUsd }) {
      const scripts = scriptsOfSlots(config, slugs);
      const allScripts = [...new Set([...scripts.values()].flat())];
      // No Worker to read (a config without one, or every slot refused by it): nothing to ask.
      if (allScripts.length === 0)
        return {
          window,
          slots: attribute(NO_ROWS, scripts, window).slots,
          unexplained: NOTHING,
          truncated: [],
        };
      const account = await sendSpendQuery(options, spendQuery(options.accountId, allScripts, window));
      let attribution = attribute(account, scripts, window);
      if (attribution.unexplained.length > 0 && sumUsd(attribution.unexplained) >= explainAboveUsd) {
        const known = new Map([...(await this.owners())].map(([id, owner]) => [id, owner.script]));
        attribution = attribute(account, scripts, window, known);
      }
      return {
        window,
        slots: attribution.slots,
        unexplained: {
          namespaces: attribution.unexplained.length,
          usdPerHour: sumUsd(attribution.unexplained),
        },
        truncated: attribution.truncated,
      };
    },
    async owners() {
      try {
        return await listOwners();
      } catch {
        return new Map();
      }
    },
  };
}

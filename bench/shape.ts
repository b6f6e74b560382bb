// Reads the shape of a slot (and of the account) out of the twin's state before a sweep, so the lower
// bound is computed from the data that is really there, not from what the fixture meant to seed.

import { resourcesForSlot, type SlotConfig } from '../src/config/slot-config.ts';
import { managedRule, withManagedRule } from '../src/kinds/r2/erase.ts';
import type { TwinStateDump } from '../test/twin/twin.ts';
import type { AccountShape, SlotShape } from './bounds.ts';

function missing(what: string, name: string): Error {
  return new Error(`bench: ${what} '${name}' is not in the twin; the seed and the slot config disagree`);
}

export function slotShape(state: TwinStateDump, config: SlotConfig, slug: string): SlotShape {
  const resources = resourcesForSlot(config, slug);
  return {
    workers: resources.workers.filter((worker) => {
      const script = state.workers.find((candidate) => candidate.name === worker.name);
      if (script === undefined) throw missing('Worker', worker.name);
      return script.liveClasses.length > 0;
    }).length,
    d1Databases: resources.d1.map((database) => {
      const found = state.d1.find((candidate) => candidate.name === database.name);
      if (found === undefined) throw missing('D1 database', database.name);
      const rows = found.objects
        .filter((object) => object.type === 'table' && object.name !== 'd1_migrations')
        .reduce((sum, table) => sum + (table.rows ?? 0), 0);
      return { hasRows: rows > 0 };
    }),
    kvKeys: resources.kv.map((namespace) => {
      const found = state.kv.find((candidate) => candidate.title === namespace.title);
      if (found === undefined) throw missing('KV namespace', namespace.title);
      return found.keyCount;
    }),
    r2Buckets: resources.r2.map((bucket) => {
      const found = state.r2.find(
        (candidate) => candidate.name === bucket.bucket && candidate.jurisdiction === bucket.jurisdiction,
      );
      if (found === undefined) throw missing('R2 bucket', bucket.bucket);
      return { rulesChange: withManagedRule(found.rules, managedRule(bucket.expire)) !== null };
    }),
  };
}

export function accountShape(state: TwinStateDump): AccountShape {
  return {
    d1Databases: state.d1.length,
    kvNamespaces: state.kv.length,
    durableObjectNamespaces: state.durableObjectNamespaces.length,
    containerApplications: state.containers.length,
  };
}

/** What an erase leaves behind, slot data only: rows, keys and rules (compute is compared apart). */
export function dataLeft(state: TwinStateDump): string {
  return JSON.stringify({
    d1: state.d1.map((db) => ({
      name: db.name,
      rows: db.objects.filter((object) => object.type === 'table').map((table) => [table.name, table.rows]),
    })),
    kv: state.kv.map((namespace) => [namespace.title, namespace.keyCount]),
    r2: state.r2.map((bucket) => [bucket.name, bucket.rules]),
  });
}

/** Durable Object classes still live in the account's Workers (not tombstoned). */
export function liveClassesLeft(state: TwinStateDump): number {
  return state.workers.reduce((sum, worker) => sum + worker.liveClasses.length, 0);
}

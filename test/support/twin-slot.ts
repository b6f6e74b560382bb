// One small slot in the Cloudflare twin, named by a slot config with at most one resource of each
// kind: its seed (a Worker with a Durable Object class, a D1 table with rows, KV keys, an R2 bucket),
// what is in it now, and which logged requests touched it. For tests that need many fast slots.
import { resourcesForSlot, type SlotConfig } from '../../src/config/slot-config.ts';
import type { Twin, TwinRequestRecord, TwinSeed } from '../twin/twin.ts';

export const SLOT_DO_CLASS = 'Room';
const MIGRATIONS = `CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TEXT NOT NULL);
INSERT INTO d1_migrations (name, applied_at) VALUES ('0001_notes.sql', '2026-11-01T00:00:00Z');
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);`;

function atMostOne<T>(items: readonly T[], what: string): T | undefined {
  if (items.length > 1) throw new Error(`a test slot config names at most one ${what}`);
  return items[0];
}

export interface SlotNames {
  worker?: string | undefined;
  d1?: string | undefined;
  kv?: string | undefined;
  bucket?: { name: string; rule: string } | undefined;
}

export function slotNames(config: SlotConfig, slug: string): SlotNames {
  const resources = resourcesForSlot(config, slug);
  const bucket = atMostOne(resources.r2, 'R2 bucket');
  return {
    worker: atMostOne(resources.workers, 'Worker')?.name,
    d1: atMostOne(resources.d1, 'D1 database')?.name,
    kv: atMostOne(resources.kv, 'KV namespace')?.title,
    bucket: bucket === undefined ? undefined : { name: bucket.bucket, rule: bucket.expire.id },
  };
}

const listOf = <T>(item: T | undefined): T[] => (item === undefined ? [] : [item]);

/** What a tenant leaves behind in a seeded slot: rows, keys and a redeployed Worker. */
export function tenantData(config: SlotConfig, slug: string, marker: string): TwinSeed {
  const names = slotNames(config, slug);
  return {
    d1: listOf(names.d1).map((name) => ({
      name,
      // The tenant's deploy makes its table again where an erase (drop, the default) dropped it.
      sql: `CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
INSERT INTO notes (body) VALUES ('${marker}-1'), ('${marker}-2');`,
    })),
    kv: listOf(names.kv).map((title) => ({ title, keys: { [`${marker}:a`]: 'x', [`${marker}:b`]: 'y' } })),
    workers: listOf(names.worker).map((name) => ({
      name,
      migrationTag: 'v1',
      classes: [{ name: SLOT_DO_CLASS, sqlite: true }],
    })),
  };
}

/** The slots' resources, each with a tenant's data in it unless its slug is in `empty`. */
export function slotSeed(
  config: SlotConfig,
  slugs: readonly string[],
  empty: readonly string[] = [],
): TwinSeed {
  const seeds = slugs.map((slug) => {
    const names = slotNames(config, slug);
    const data = tenantData(config, slug, 'seed');
    const withData = !empty.includes(slug);
    return {
      d1: (data.d1 ?? []).map((db) => ({
        name: db.name,
        sql: withData ? `${MIGRATIONS}\n${db.sql ?? ''}` : MIGRATIONS,
      })),
      kv: (data.kv ?? []).map((ns) => (withData ? ns : { title: ns.title, keys: {} })),
      r2: listOf(names.bucket).map((bucket) => ({ bucket: bucket.name })),
      workers: data.workers ?? [],
    };
  });
  return {
    d1: seeds.flatMap((seed) => seed.d1),
    kv: seeds.flatMap((seed) => seed.kv),
    r2: seeds.flatMap((seed) => seed.r2),
    workers: seeds.flatMap((seed) => seed.workers),
  };
}

/** What is in a slot now; a kind the config does not name counts as empty and erased. */
export interface SlotContents {
  /** Rows in the slot's user tables (d1_migrations not counted). */
  rows: number;
  keys: number;
  /** The Durable Object class is tombstoned: the Worker was parked. */
  parked: boolean;
  /** The bucket carries the lifecycle rule the erase manages. */
  expiring: boolean;
}

export function slotContents(twin: Twin, config: SlotConfig, slug: string): SlotContents {
  const names = slotNames(config, slug);
  const state = twin.state();
  const db = state.d1.find((entry) => entry.name === names.d1);
  const worker = state.workers.find((entry) => entry.name === names.worker);
  const bucket = state.r2.find((entry) => entry.name === names.bucket?.name);
  return {
    rows: (db?.objects ?? [])
      .filter((object) => object.type === 'table' && object.name !== 'd1_migrations')
      .reduce((sum, object) => sum + (object.rows ?? 0), 0),
    keys: state.kv.find((entry) => entry.title === names.kv)?.keyCount ?? 0,
    parked: worker === undefined || worker.tombstonedClasses.includes(SLOT_DO_CLASS),
    expiring: bucket === undefined || bucket.rules.some((rule) => rule.id === names.bucket?.rule),
  };
}

export function isErased(contents: SlotContents): boolean {
  return contents.rows === 0 && contents.keys === 0 && contents.parked && contents.expiring;
}

/** Path fragments that name the slot's resources in API paths (names, or ids where the API uses ids). */
export function slotPathMarkers(twin: Twin, config: SlotConfig, slug: string): string[] {
  const names = slotNames(config, slug);
  const state = twin.state();
  const ids = [
    state.d1.find((entry) => entry.name === names.d1)?.uuid,
    state.kv.find((entry) => entry.title === names.kv)?.id,
  ].filter((id) => id !== undefined);
  return [
    ...listOf(names.worker).map((name) => `/workers/scripts/${name}/`),
    ...listOf(names.bucket).map((bucket) => `/r2/buckets/${bucket.name}/`),
    ...ids.map((id) => `/${id}/`),
  ];
}

/** Logged requests (from index `since` on) whose path names one of the slot's resources. */
export function requestsTouching(
  twin: Twin,
  config: SlotConfig,
  slug: string,
  since = 0,
): TwinRequestRecord[] {
  const markers = slotPathMarkers(twin, config, slug);
  return twin
    .requests()
    .slice(since)
    .filter((request) => markers.some((marker) => `${request.path}/`.includes(marker)));
}

/** The erase step (compute, d1, kv, r2) an API path or route template belongs to. */
export function eraseStepOf(path: string): 'compute' | 'd1' | 'kv' | 'r2' {
  if (path.includes('/d1/')) return 'd1';
  if (path.includes('/storage/kv/')) return 'kv';
  if (path.includes('/r2/')) return 'r2';
  return 'compute';
}

/** Whose data is in the slot now: the markers of the tenants' rows and keys (see tenantData). */
export function tenantsIn(twin: Twin, config: SlotConfig, slug: string): string[] {
  const names = slotNames(config, slug);
  const database = names.d1 === undefined ? undefined : twin.account.d1.find(names.d1);
  const rows = database === undefined ? [] : database.select('SELECT body FROM notes');
  const namespace = [...twin.account.kv.values()].find((entry) => entry.title === names.kv);
  const markers = [
    ...rows.map((row) => String(row.body).replace(/-\d+$/, '')),
    ...(namespace?.names() ?? []).map((key) => key.replace(/:[^:]*$/, '')),
  ];
  return [...new Set(markers)].sort();
}

// The SQLite schemas of the Worker's Durable Objects (a pool's store, the pool registry), as numbered
// migrations. A store remembers the version it is at (table `schema_version`); opening it applies every
// later migration in order, inside one transaction, so an old store upgrades in place and a new one is
// built by the same steps. Migrations are only ever appended: a deployed store may be at any earlier
// version.

/** A value SQLite stores. */
export type SqlValue = ArrayBuffer | string | number | null;

/**
 * The part of SQL storage the store uses: a Durable Object's `ctx.storage.sql`, or in unit tests a
 * node:sqlite database behind the same shape. One statement per call.
 */
export interface SqlDatabase {
  exec<T extends Record<string, SqlValue>>(query: string, ...bindings: SqlValue[]): { toArray(): T[] };
}

/** Each entry takes a store from version `index` to `index + 1`. */
export type Migrations = readonly (readonly string[])[];

/** A pool's store (one PoolObject per pool type). */
export const POOL_MIGRATIONS: Migrations = [
  // 1: the first schema. Written with IF NOT EXISTS, because stores created before versioning have
  // these tables already and no `schema_version`: for them this step changes nothing.
  [
    `CREATE TABLE IF NOT EXISTS slots (
      slug TEXT PRIMARY KEY,
      data TEXT NOT NULL,
      generation INTEGER NOT NULL,
      dirty INTEGER NOT NULL,
      lease_id TEXT,
      holder TEXT,
      leased_until INTEGER,
      lease_was_dirty INTEGER,
      lease_previous_holder TEXT,
      last_holder TEXT,
      last_acquired_at INTEGER,
      last_released_at INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      slug TEXT NOT NULL,
      at INTEGER NOT NULL,
      event TEXT NOT NULL,
      holder TEXT,
      generation INTEGER NOT NULL,
      detail TEXT NOT NULL
    )`,
    'CREATE INDEX IF NOT EXISTS events_by_slug ON events (slug, id)',
    `CREATE TABLE IF NOT EXISTS request_ids (
      scope TEXT NOT NULL,
      request_id TEXT NOT NULL,
      slug TEXT NOT NULL,
      lease_id TEXT NOT NULL,
      PRIMARY KEY (scope, request_id)
    )`,
    'CREATE INDEX IF NOT EXISTS request_ids_by_lease ON request_ids (lease_id)',
  ],
  // 2: consecutive erase failures per slot, and what an acquire answered, so a retry with the same
  // request id answers the same `reused` and `tookExpired`.
  [
    'ALTER TABLE slots ADD COLUMN erase_failures INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE slots ADD COLUMN last_erase_failure TEXT',
    'ALTER TABLE request_ids ADD COLUMN reused INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE request_ids ADD COLUMN took_expired INTEGER NOT NULL DEFAULT 0',
  ],
  // 3: what the pool last told the registry (registry-outbox.ts).
  [
    `CREATE TABLE registry_outbox (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      type TEXT NOT NULL,
      slots INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      sent INTEGER NOT NULL
    )`,
  ],
  // 4: the highest generation of every deleted slug, so a slug added again continues from it and a
  // fencing token never repeats. Older stores know their deleted slugs only from the event log.
  [
    'CREATE TABLE slug_generations (slug TEXT PRIMARY KEY, generation INTEGER NOT NULL)',
    `INSERT INTO slug_generations (slug, generation)
       SELECT slug, max(generation) FROM events WHERE slug NOT IN (SELECT slug FROM slots) GROUP BY slug`,
  ],
  // 5: the version of the current lease, counted up by every renew, so a force can pin the lease as it
  // read it. A lease older than this version starts at 1.
  [
    'ALTER TABLE slots ADD COLUMN lease_version INTEGER',
    'UPDATE slots SET lease_version = 1 WHERE lease_id IS NOT NULL',
  ],
  // 6: each slot's last activity record (activity-store.ts) and its last spend alert.
  [
    `CREATE TABLE slot_activity (
      slug TEXT PRIMARY KEY,
      record TEXT NOT NULL,
      at INTEGER NOT NULL,
      alerted_at INTEGER,
      alerted_generation INTEGER
    )`,
  ],
  // 7 (spend parking, issue 32): each slot's live lease's reads above the park threshold in a row and
  // its mark when parked for spend (lease-spend-store.ts).
  [
    `CREATE TABLE lease_spend (
      slug TEXT PRIMARY KEY,
      generation INTEGER NOT NULL,
      over_park_reads INTEGER NOT NULL,
      over_park_from INTEGER,
      parked_at INTEGER,
      parked_from INTEGER,
      parked_usd_per_hour REAL
    )`,
  ],
  // 8 (cost per lease, issue 32): what each slot's lease cost so far, summed from gc's reads
  // (lease-spend-store.ts): dollars, the time the reads covered and the time no read covered.
  [
    'ALTER TABLE lease_spend ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0',
    'ALTER TABLE lease_spend ADD COLUMN covered_until INTEGER',
    'ALTER TABLE lease_spend ADD COLUMN covered_ms INTEGER NOT NULL DEFAULT 0',
    'ALTER TABLE lease_spend ADD COLUMN missing_ms INTEGER NOT NULL DEFAULT 0',
  ],
  // 9 (tenant isolation): the tenant of the current lease, the repository's ids of the pull request
  // whose OIDC token took it, so a repository created again under the same name is another tenant.
  ['ALTER TABLE slots ADD COLUMN lease_tenant TEXT'],
  // 10 (fair queue, issue 31): the pool's waiting acquires in the order they joined (queue.ts).
  [
    `CREATE TABLE queue (seq INTEGER PRIMARY KEY AUTOINCREMENT, holder TEXT NOT NULL UNIQUE,
       joined_at INTEGER NOT NULL, last_seen INTEGER NOT NULL)`,
  ],
  // 11 (leaving the queue, issue 31): the tenant of a pull request's waiter, as on its lease (9), so only
  // that repository's job may take the entry out of the queue.
  ['ALTER TABLE queue ADD COLUMN tenant TEXT'],
  // 12 (keep label, issue 31): the most gc's keep may extend the current lease to (its start plus
  // keep-max-hours), set by an extend and cleared by any other change of the lease; null: not kept.
  ['ALTER TABLE slots ADD COLUMN lease_kept_until INTEGER'],
  // 13 (queue and allowedSlugs, issue 31): the slots a waiter asked for (JSON, null: any), so a waiter
  // that may take only a held slot does not keep a free one from the waiters behind it.
  ['ALTER TABLE queue ADD COLUMN allowed TEXT'],
];

/** The registry of pools (one PoolRegistry for the Worker). */
export const REGISTRY_MIGRATIONS: Migrations = [
  // 1: every pool that ever reported, with its slot count as of its newest report (`seq`).
  ['CREATE TABLE pools (type TEXT PRIMARY KEY, slots INTEGER NOT NULL, seq INTEGER NOT NULL)'],
];

/** The version the store is at; 0 for an empty store or one created before versioning. */
function storedVersion(sql: SqlDatabase): number {
  sql.exec(
    'CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)',
  );
  const [row] = sql.exec<{ version: number }>('SELECT version FROM schema_version WHERE id = 1').toArray();
  return row?.version ?? 0;
}

/**
 * Brings the store to the newest version of `migrations` (tests pass an older `target` to build an
 * old store). Run it inside a transaction: a migration that fails halfway then leaves the store at its
 * old version. A store newer than this code is refused, since writing to it could lose what the newer
 * version keeps.
 */
export function migrate(sql: SqlDatabase, migrations: Migrations, target = migrations.length): void {
  const from = storedVersion(sql);
  if (from > migrations.length) {
    throw new Error(
      `this store is at schema version ${from}, newer than this Worker's ${migrations.length}; deploy the newer Worker`,
    );
  }
  if (from >= target) return;
  for (const statements of migrations.slice(from, target)) {
    for (const statement of statements) sql.exec(statement);
  }
  sql.exec(
    `INSERT INTO schema_version (id, version) VALUES (1, ?)
     ON CONFLICT (id) DO UPDATE SET version = excluded.version`,
    target,
  );
}

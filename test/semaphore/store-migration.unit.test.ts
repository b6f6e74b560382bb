// The store's schema versions over node:sqlite: a store created before versioning (schema 1, no
// `schema_version` table) upgrades in place and keeps its slots, leases, events and request ids.
import { describe, expect, it } from 'vitest';
import { applyPoolCommand } from '../../src/semaphore/worker/pool.ts';
import { migrate, POOL_MIGRATIONS } from '../../src/semaphore/worker/schema.ts';
import { PoolStore } from '../../src/semaphore/worker/store.ts';
import { openTestDatabase, type TestDatabase } from './sqlite-database.ts';

const NOW = 1_784_000_000_000;
const LEASE_ID = '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10';

/** A store as the first release of the Worker left it: schema 1, a leased slot, its events and request id. */
function storeBeforeVersioning(): TestDatabase {
  const db = openTestDatabase();
  migrate(db, POOL_MIGRATIONS, 1);
  db.exec('DROP TABLE schema_version');
  db.exec(
    `INSERT INTO slots (slug, data, generation, dirty, lease_id, holder, leased_until, lease_was_dirty,
       lease_previous_holder, last_holder, last_acquired_at, last_released_at, created_at, updated_at)
     VALUES ('preview-1', '{"worker":"app-1"}', 3, 1, ?, 'pr-7', ?, 1, 'pr-6', 'pr-6', ?, ?, ?, ?)`,
    LEASE_ID,
    NOW + 60_000,
    NOW - 1_000,
    NOW - 2_000,
    NOW - 100_000,
    NOW - 1_000,
  );
  db.exec(
    `INSERT INTO events (slug, at, event, holder, generation, detail)
     VALUES ('preview-1', ?, 'acquired', 'pr-7', 3, '{"previousHolder":"pr-6"}')`,
    NOW - 1_000,
  );
  db.exec(
    `INSERT INTO request_ids (scope, request_id, slug, lease_id) VALUES ('any', 'deploy-7', 'preview-1', ?)`,
    LEASE_ID,
  );
  // preview-2 was deleted at generation 5: only its events remember it.
  for (const [event, generation] of [
    ['acquired', 5],
    ['deleted', 5],
  ] as const) {
    db.exec(
      `INSERT INTO events (slug, at, event, holder, generation, detail) VALUES ('preview-2', ?, ?, NULL, ?, '{}')`,
      NOW - 500,
      event,
      generation,
    );
  }
  return db;
}

const SCHEMA_VERSION = POOL_MIGRATIONS.length;

const versionOf = (db: TestDatabase): number | undefined =>
  db.exec<{ version: number }>('SELECT version FROM schema_version').toArray()[0]?.version;

describe('store migrations', () => {
  it('upgrades a store created before versioning in place, keeping its slots, events and request ids', () => {
    const db = storeBeforeVersioning();
    db.transaction(() => migrate(db, POOL_MIGRATIONS));
    expect(versionOf(db)).toBe(SCHEMA_VERSION);
    const store = new PoolStore(db);
    expect(applyPoolCommand(store, { op: 'find', type: 'pool', slug: 'preview-1' }, NOW)).toMatchObject({
      ok: true,
      body: {
        data: { worker: 'app-1' },
        holder: 'pr-7',
        generation: 3,
        dirty: true,
        eraseFailures: 0,
        lastEraseFailure: null,
      },
    });
    expect(store.events('preview-1', 10)).toMatchObject([{ event: 'acquired', holder: 'pr-7' }]);
    const retried = applyPoolCommand(
      store,
      { op: 'acquire', request: { type: 'pool', holder: 'pr-7', leaseMs: 60_000, requestId: 'deploy-7' } },
      NOW,
    );
    expect(retried).toMatchObject({
      ok: true,
      body: { leaseId: LEASE_ID, generation: 3, reused: false, tookExpired: false },
    });
  });

  it('continues the generation of a slug the old store deleted, from its events', () => {
    const db = storeBeforeVersioning();
    db.transaction(() => migrate(db, POOL_MIGRATIONS));
    const added = applyPoolCommand(
      new PoolStore(db),
      { op: 'add', request: { type: 'pool', slug: 'preview-2' } },
      NOW,
    );
    expect(added).toMatchObject({ ok: true, body: { generation: 5 } });
  });

  it('builds a new store by the same steps, and opening it again changes nothing', () => {
    const db = openTestDatabase();
    db.transaction(() => migrate(db, POOL_MIGRATIONS));
    const store = new PoolStore(db);
    applyPoolCommand(store, { op: 'add', request: { type: 'pool', slug: 'preview-1' } }, NOW);
    db.transaction(() => migrate(db, POOL_MIGRATIONS));
    expect(versionOf(db)).toBe(SCHEMA_VERSION);
    expect(store.all().map((slot) => slot.slug)).toEqual(['preview-1']);
  });

  it('refuses a store that a newer Worker wrote, and leaves it as it was', () => {
    const db = openTestDatabase();
    db.transaction(() => migrate(db, POOL_MIGRATIONS));
    db.exec('UPDATE schema_version SET version = ?', SCHEMA_VERSION + 1);
    expect(() => db.transaction(() => migrate(db, POOL_MIGRATIONS))).toThrow(
      `this store is at schema version ${SCHEMA_VERSION + 1}, newer than this Worker's ${SCHEMA_VERSION}; deploy the newer Worker`,
    );
    expect(versionOf(db)).toBe(SCHEMA_VERSION + 1);
  });
});

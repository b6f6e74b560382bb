// Your own app's slots in the twin: every resource a slot config names, for the given slots, with a
// little data in each (rows, keys, a Durable Object class), as slots in use for a while would hold.
// `npm run stack -- --seed <your slot config>` runs the stack with them, so the README's adoption
// steps can be tried against a copy of your app's shape before they touch your account.
import { resourcesForSlot, type SlotConfig } from '../src/config/slot-config.ts';
import type { TwinSeed } from '../test/twin/schema.ts';

const ROWS = 20;
const KEYS = 50;

const TABLE = `CREATE TABLE preview_data (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TEXT NOT NULL);
INSERT INTO d1_migrations (name, applied_at) VALUES ('0001_init.sql', '2026-11-01T00:00:00Z');`;

function rows(slug: string): string {
  const values = Array.from({ length: ROWS }, (_, i) => `(${i + 1}, '${slug} row ${i + 1}')`);
  return `INSERT INTO preview_data (id, body) VALUES ${values.join(', ')};`;
}

/** The twin seed of `slugs` under `config`: each template expanded, each resource holding data. */
export function seedFromConfig(config: SlotConfig, slugs: readonly string[]): TwinSeed {
  const seed: Required<Pick<TwinSeed, 'd1' | 'kv' | 'r2' | 'workers'>> = {
    d1: [],
    kv: [],
    r2: [],
    workers: [],
  };
  for (const slug of slugs) {
    const resources = resourcesForSlot(config, slug);
    for (const worker of resources.workers)
      seed.workers.push({ name: worker.name, migrationTag: 'v1', classes: [{ name: 'PreviewRoom' }] });
    for (const database of resources.d1)
      seed.d1.push({ name: database.name, sql: `${TABLE}\n${rows(slug)}` });
    for (const namespace of resources.kv)
      seed.kv.push({ title: namespace.title, generate: { prefix: 'cache:', count: KEYS } });
    for (const bucket of resources.r2)
      seed.r2.push({ bucket: bucket.bucket, jurisdiction: bucket.jurisdiction });
  }
  return seed;
}

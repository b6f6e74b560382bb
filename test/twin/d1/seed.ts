// A D1 database in a seed: its name and a script run once; and the seed that makes a slot's database
// exist with rows in it, as a preview that ran its migrations would leave it.
import { z } from 'zod';
import type { D1Store } from './store.ts';

export const d1SeedSchema = z.strictObject({
  name: z.string().min(1),
  /** Run once at seed time, several `;`-separated statements allowed (triggers too). */
  sql: z.string().optional(),
  /**
   * Its jurisdiction. Any string, so a test can stand in for one Cloudflare may add (the SDK knows
   * eu, fedramp and us); the create route takes only those.
   */
  jurisdiction: z.string().optional(),
  readReplication: z.enum(['auto', 'disabled']).optional(),
});
export type D1Seed = z.infer<typeof d1SeedSchema>;

export function seedD1(databases: D1Store, entry: D1Seed): void {
  const db =
    databases.find(entry.name) ??
    databases.create(entry.name, {
      jurisdiction: entry.jurisdiction,
      readReplication: entry.readReplication,
    });
  if (entry.sql) db.seed(entry.sql);
}

const ROWS = 20;
const TABLES = `CREATE TABLE preview_data (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TEXT NOT NULL);
INSERT INTO d1_migrations (name, applied_at) VALUES ('0001_init.sql', '2026-11-01T00:00:00Z');`;

function rows(slug: string): string {
  const values = Array.from({ length: ROWS }, (_, i) => `(${i + 1}, '${slug} row ${i + 1}')`);
  return `INSERT INTO preview_data (id, body) VALUES ${values.join(', ')};`;
}

/** A slot's D1 database as preview-gc's slot config expands it (the fields the seed reads). */
export interface D1SlotResource {
  name: string;
}

/** A table of rows and wrangler's d1_migrations table with one migration applied. */
export function d1SeedFor(resource: D1SlotResource, slug: string): D1Seed[] {
  return [{ name: resource.name, sql: `${TABLES}\n${rows(slug)}` }];
}

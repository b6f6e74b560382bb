// Every schema of the zoo, erased in rows mode through the real erase against the twin's real SQLite:
// a slot is reclaimed only when the oracle, reading a copy of the database with plain SQLite, finds
// no row and no index token left (SQLite's statistics and sequences included), the schema with its
// triggers is as it was and `d1_migrations` holds its rows only; a schema the erase cannot empty is
// refused with the cause and the fix, never reclaimed.
import { describe, expect, it } from 'vitest';
import { inProcessTwin } from '../cloudflare/in-process-twin.ts';
import { eraseDatabase, oracle, seedDatabase } from './support.ts';
import { ZOO } from './zoo.ts';

type Env = ReturnType<typeof inProcessTwin>;
const databaseOf = (env: Env, name: string) => env.twin.d1.find(name);

/** The tenant's schema objects, triggers included (not SQLite's statistics tables, which ANALYZE makes). */
const schemaOf = (env: Env, name: string) =>
  databaseOf(env, name)?.select(
    "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name",
  );

/** wrangler's record of applied migrations, where the schema has one. */
const migrationsOf = (env: Env, name: string) =>
  schemaOf(env, name)?.some((object) => object.name === 'd1_migrations')
    ? databaseOf(env, name)?.select('SELECT * FROM d1_migrations ORDER BY id')
    : undefined;

describe.each(ZOO.map((schema, index) => ({ ...schema, slug: `z${index}` })))(
  '$name',
  ({ sql, expect: wanted, slug }) => {
    it(
      wanted.outcome === 'reclaimed'
        ? 'is reclaimed with nothing left'
        : 'is refused, naming the cause and the fix',
      async () => {
        const env = inProcessTwin();
        const name = seedDatabase(env, slug, sql);
        expect(oracle(env.twin.d1, name)).not.toEqual([]);
        const before = { schema: schemaOf(env, name), migrations: migrationsOf(env, name) };
        const { result, step } = await eraseDatabase(env, slug);

        if (wanted.outcome === 'reclaimed') {
          expect(step.failure).toBeUndefined();
          expect(result.status).toBe('complete');
          expect(step.inventory?.state).toBe('empty');
          expect(oracle(env.twin.d1, name)).toEqual([]);
          // Rows mode keeps the schema, triggers as they were, and wrangler's record with its rows only.
          expect(schemaOf(env, name)).toEqual(before.schema);
          expect(migrationsOf(env, name)).toEqual(before.migrations);
        } else {
          expect(result.status).not.toBe('complete');
          expect(step.failure?.reason).toBe('refused');
          expect(step.failure?.message).toMatch(wanted.message);
        }
      },
    );
  },
);

// Every schema of the zoo, erased in rows mode through the real erase against the twin's real SQLite:
// a slot is reclaimed only when the oracle, reading a copy of the database with plain SQLite, finds
// no row and no index token left; a schema the erase cannot empty is refused with the cause and the
// fix, never reclaimed.
import { describe, expect, it } from 'vitest';
import { inProcessTwin } from '../cloudflare/in-process-twin.ts';
import { eraseDatabase, oracle, seedDatabase } from './support.ts';
import { ZOO } from './zoo.ts';

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
        const { result, step } = await eraseDatabase(env, slug);

        if (wanted.outcome === 'reclaimed') {
          expect(step.failure).toBeUndefined();
          expect(result.status).toBe('complete');
          expect(step.inventory?.state).toBe('empty');
          expect(oracle(env.twin.d1, name)).toEqual([]);
        } else {
          expect(result.status).not.toBe('complete');
          expect(step.failure?.reason).toBe('refused');
          expect(step.failure?.message).toMatch(wanted.message);
        }
      },
    );
  },
);

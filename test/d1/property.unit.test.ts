// The property: whatever the schema, a slot is never reclaimed with a tenant's row or index token
// left. fast-check generates schemas (test/d1/generated-schema.ts), each erased in rows mode through
// the real erase against the twin's SQLite, in runs whose request budgets are small enough to stop it
// midway; after each run, either the erase is complete and the oracle (plain SQLite on a copy of the
// database) finds nothing, or the slot is reported failed or deferred. No trigger of the tenant's runs
// during the erase, so every schema, audit triggers between its tables or not, is emptied within the runs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inProcessTwin } from '../cloudflare/in-process-twin.ts';
import { generatedSchema, schemaSql } from './generated-schema.ts';
import { eraseDatabase, oracle, seedDatabase } from './support.ts';

/** Runs of gc per schema: some with a small budget, the last with the default one. */
const RUNS = 4;
let slots = 0;

describe('a generated schema', () => {
  it('is reclaimed only with nothing left, and reclaimed within the runs', async () => {
    await fc.assert(
      fc.asyncProperty(
        generatedSchema,
        fc.array(fc.integer({ min: 3, max: 8 }), { minLength: RUNS - 1, maxLength: RUNS - 1 }),
        async (schema, budgets) => {
          const env = inProcessTwin();
          const slug = `g${++slots}`;
          const name = seedDatabase(env, slug, schemaSql(schema));
          let complete = false;
          for (const budget of [...budgets, undefined]) {
            const { result, step } = await eraseDatabase(
              env,
              slug,
              budget === undefined ? {} : { pacer: { budget } },
            );
            if (result.status === 'complete') {
              expect(oracle(env.twin.d1, name)).toEqual([]);
              complete = true;
              break;
            }
            expect(['failed', 'deferred']).toContain(result.status);
            expect(step.status).toBe('failed');
            if (step.failure?.reason === 'refused') break;
          }
          expect(complete).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

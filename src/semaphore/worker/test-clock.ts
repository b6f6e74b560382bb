// An opt-in clock for tests: lets a test move one pool's server clock forward, so leases expire
// without waiting for them (a GC lease is at least a minute). It exists only where the binding
// PREVIEW_GC_TEST_CLOCK is 'enabled', which only `startLocalSemaphore({ testClock: true })` sets:
// wrangler.jsonc has no such variable, so a deployed Worker answers the route with 404 like any
// unknown route, and its pools run on Date.now() alone. As a second lock, the route only answers
// requests addressed to a loopback host, which a deployed Worker never receives.
import * as z from 'zod';
import { MAX_LEASE_MS, poolTypeSchema } from '../protocol.ts';

export const TEST_CLOCK_BINDING = 'PREVIEW_GC_TEST_CLOCK';
export const TEST_CLOCK_ENABLED = 'enabled';
export const TEST_CLOCK_ROUTE = '/api/test-clock/advance';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function testClockEnabled(env: unknown): boolean {
  return (
    typeof env === 'object' &&
    env !== null &&
    (env as Record<string, unknown>)[TEST_CLOCK_BINDING] === TEST_CLOCK_ENABLED
  );
}

/** The test clock route exists for this request: enabled by the binding, and served on loopback. */
export function testClockRouteAvailable(env: unknown, url: URL): boolean {
  return testClockEnabled(env) && LOOPBACK_HOSTS.has(url.hostname);
}

export const advanceRequestSchema = z.strictObject({
  type: poolTypeSchema,
  advanceMs: z
    .int({ error: 'advanceMs must be an integer number of milliseconds' })
    .min(1, { error: 'advanceMs must be at least 1' })
    .max(MAX_LEASE_MS, { error: `advanceMs must be at most ${MAX_LEASE_MS}` }),
});

/** The clock of one pool: the server's clock, plus what tests advanced it by (never backwards). */
export interface PoolClock {
  now(): number;
  /** Moves this pool's clock forward; refused unless the test clock is enabled. */
  advance(ms: number): { now: number };
}

const systemClock: PoolClock = {
  now: () => Date.now(),
  advance: () => {
    throw new Error('the test clock is not enabled on this semaphore');
  },
};

/** The part of a Durable Object's SQL storage the clock uses (this module is also loaded by Node). */
interface ClockStorage {
  exec<T extends Record<string, number>>(query: string, ...bindings: number[]): { toArray(): T[] };
}

export function poolClock(sql: ClockStorage, env: unknown): PoolClock {
  if (!testClockEnabled(env)) return systemClock;
  // Kept in the pool's own storage, so the offset survives the object being evicted and restarted.
  sql.exec(
    'CREATE TABLE IF NOT EXISTS test_clock (id INTEGER PRIMARY KEY CHECK (id = 1), offset_ms INTEGER NOT NULL)',
  );
  const offset = (): number =>
    sql.exec<{ offset_ms: number }>('SELECT offset_ms FROM test_clock WHERE id = 1').toArray()[0]
      ?.offset_ms ?? 0;
  return {
    now: () => Date.now() + offset(),
    advance: (ms) => {
      sql.exec(
        `INSERT INTO test_clock (id, offset_ms) VALUES (1, ?)
         ON CONFLICT (id) DO UPDATE SET offset_ms = offset_ms + excluded.offset_ms`,
        ms,
      );
      return { now: Date.now() + offset() };
    },
  };
}

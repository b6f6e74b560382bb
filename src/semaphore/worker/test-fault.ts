// An opt-in fault for tests: the next command one pool runs throws after it wrote, inside its
// transaction, so a test can show that a failed command writes nothing. It sits behind the same switch
// as the test clock (test-clock.ts): the binding PREVIEW_GC_TEST_CLOCK set to 'enabled', which only
// `startLocalSemaphore({ testClock: true })` sets, and a loopback host. A deployed Worker has neither,
// so the route answers 404 there like any unknown route.
import * as z from 'zod';
import { poolTypeSchema } from '../protocol.ts';
import type { SqlDatabase } from './schema.ts';

export const TEST_FAULT_ROUTE = '/api/test-fault/arm';

export const armFaultRequestSchema = z.strictObject({ type: poolTypeSchema });

/**
 * The switch lives in the pool's own storage, in a table that exists only once a test armed it: a
 * flag in memory was lost whenever workerd replaced the object between the arm and the command (seen
 * on a busy CI machine), and the command then succeeded. It is cleared before the command's
 * transaction, so the rollback the fault causes cannot re-arm it.
 */
export class TestFault {
  readonly #sql: SqlDatabase;
  readonly #enabled: boolean;

  constructor(sql: SqlDatabase, enabled: boolean) {
    this.#sql = sql;
    this.#enabled = enabled;
  }

  arm(): { armed: true } {
    this.#sql.exec('CREATE TABLE IF NOT EXISTS test_fault (armed INTEGER NOT NULL)');
    this.#sql.exec('INSERT INTO test_fault (armed) VALUES (1)');
    return { armed: true };
  }

  /** Whether the command about to run must fail after it wrote; disarms. Never true on a deployed Worker. */
  take(): boolean {
    if (!this.#enabled) return false;
    const table = this.#sql
      .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'test_fault'")
      .toArray();
    if (table.length === 0) return false;
    return this.#sql.exec('DELETE FROM test_fault RETURNING armed').toArray().length > 0;
  }
}

/** Thrown inside the command's transaction when the fault was armed. */
export function testFaultError(): Error {
  return new Error('test fault: the command failed after it wrote');
}

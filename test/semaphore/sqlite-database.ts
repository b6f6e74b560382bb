// A pool store's SQL storage over node:sqlite, for unit tests of the pool rules without workerd. It
// offers the same `exec(query, ...bindings).toArray()` as a Durable Object's `ctx.storage.sql`, and a
// `transaction` that commits what the closure wrote or, when it throws, rolls all of it back, as
// `ctx.storage.transactionSync` does.
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { SqlDatabase, SqlValue } from '../../src/semaphore/worker/schema.ts';

export interface TestDatabase extends SqlDatabase {
  transaction<T>(closure: () => T): T;
  close(): void;
}

/** `path`: a file, to reopen the same store; default: in memory. */
export function openTestDatabase(path = ':memory:'): TestDatabase {
  const db = new DatabaseSync(path);
  return {
    // Runs at once, like the Durable Object's exec: a statement whose rows nobody reads still runs.
    exec<T extends Record<string, SqlValue>>(query: string, ...bindings: SqlValue[]) {
      const rows = db
        .prepare(query)
        .all(...(bindings as SQLInputValue[]))
        .map((row) => ({ ...row }) as T);
      return { toArray: () => rows };
    },
    transaction<T>(closure: () => T): T {
      db.exec('BEGIN');
      try {
        const result = closure();
        db.exec('COMMIT');
        return result;
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    close: () => db.close(),
  };
}

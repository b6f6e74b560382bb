// The pool's side of the registry (its outbox) over node:sqlite: what is staged, what stays pending
// when a report fails, and that an old acknowledgement cannot hide a newer report.
import { describe, expect, it } from 'vitest';
import {
  markReported,
  pendingRegistryReport,
  stageRegistryReport,
} from '../../src/semaphore/worker/registry-outbox.ts';
import { migrate, POOL_MIGRATIONS } from '../../src/semaphore/worker/schema.ts';
import { openTestDatabase } from './sqlite-database.ts';

function migrated() {
  const db = openTestDatabase();
  migrate(db, POOL_MIGRATIONS);
  return db;
}

describe('registry outbox', () => {
  it('stages nothing for a pool that never had a slot, then one report per change of the slot count', () => {
    const db = migrated();
    stageRegistryReport(db, 'web', 0);
    expect(pendingRegistryReport(db)).toBeUndefined();
    stageRegistryReport(db, 'web', 1);
    expect(pendingRegistryReport(db)).toEqual({ type: 'web', slots: 1, seq: 1 });
    markReported(db, 1);
    stageRegistryReport(db, 'web', 1);
    expect(pendingRegistryReport(db)).toBeUndefined();
    stageRegistryReport(db, 'web', 0);
    expect(pendingRegistryReport(db)).toEqual({ type: 'web', slots: 0, seq: 2 });
  });

  it('keeps a report that was not acknowledged pending, and an old acknowledgement clears nothing newer', () => {
    const db = migrated();
    stageRegistryReport(db, 'web', 1);
    // The report of seq 1 is in flight when a second slot arrives.
    stageRegistryReport(db, 'web', 2);
    markReported(db, 1);
    expect(pendingRegistryReport(db)).toEqual({ type: 'web', slots: 2, seq: 2 });
    stageRegistryReport(db, 'web', 2);
    expect(pendingRegistryReport(db)).toEqual({ type: 'web', slots: 2, seq: 2 });
    markReported(db, 2);
    expect(pendingRegistryReport(db)).toBeUndefined();
  });
});

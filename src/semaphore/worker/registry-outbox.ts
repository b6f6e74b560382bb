// Keeps the pool registry (registry.ts) in step with one pool. Two Durable Objects cannot share a
// transaction, so a pool stages "I have N slots" in its own storage inside the command's transaction
// (an outbox), then reports it; a report that fails is retried by the pool's alarm, which the runtime
// retries in turn. The registry keeps only each pool's newest report (by `seq`), so reports that
// arrive out of order cannot undo a newer one.
import type { SqlDatabase } from './schema.ts';

export interface RegistryReport {
  type: string;
  slots: number;
  /** Grows with every report a pool stages. */
  seq: number;
}

type OutboxRow = { type: string; slots: number; seq: number; sent: number };

function outbox(sql: SqlDatabase): OutboxRow | undefined {
  return sql.exec<OutboxRow>('SELECT type, slots, seq, sent FROM registry_outbox WHERE id = 1').toArray()[0];
}

/**
 * Inside the command's transaction: stages a report when the pool's slot count is not what the
 * registry was last told. Runs after every command, so a pool created before the registry existed
 * reports itself on its first command.
 */
export function stageRegistryReport(sql: SqlDatabase, type: string, slots: number): void {
  const last = outbox(sql);
  if (last === undefined ? slots === 0 : last.slots === slots) return;
  sql.exec(
    `INSERT INTO registry_outbox (id, type, slots, seq, sent) VALUES (1, ?, ?, ?, 0)
     ON CONFLICT (id) DO UPDATE SET type = excluded.type, slots = excluded.slots, seq = excluded.seq, sent = 0`,
    type,
    slots,
    (last?.seq ?? 0) + 1,
  );
}

/** The staged report the registry has not acknowledged yet. */
export function pendingRegistryReport(sql: SqlDatabase): RegistryReport | undefined {
  const staged = outbox(sql);
  return staged === undefined || staged.sent === 1
    ? undefined
    : { type: staged.type, slots: staged.slots, seq: staged.seq };
}

/** The registry acknowledged `seq`; a newer report staged meanwhile stays pending. */
export function markReported(sql: SqlDatabase, seq: number): void {
  sql.exec('UPDATE registry_outbox SET sent = 1 WHERE id = 1 AND seq = ?', seq);
}

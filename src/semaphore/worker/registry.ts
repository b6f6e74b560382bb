// The registry of pools: one Durable Object for the whole Worker that knows which pool types have
// slots, so `GET /api/pools` can find them (Durable Objects cannot be enumerated). Pools report their
// slot counts to it (registry-outbox.ts); the listing asks each pool for its own numbers.
import { DurableObject } from 'cloudflare:workers';
import { MAX_POOLS } from '../protocol.ts';
import type { RegistryReport } from './registry-outbox.ts';
import { migrate, REGISTRY_MIGRATIONS } from './schema.ts';

/** The name of the one registry object. */
export const REGISTRY_NAME = 'pools';

export class PoolRegistry extends DurableObject {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.transactionSync(() => migrate(ctx.storage.sql, REGISTRY_MIGRATIONS));
  }

  /** Keeps the report unless a newer one (higher `seq`) of the same pool is already in. */
  record(report: RegistryReport): void {
    this.ctx.storage.sql.exec(
      `INSERT INTO pools (type, slots, seq) VALUES (?, ?, ?)
       ON CONFLICT (type) DO UPDATE SET slots = excluded.slots, seq = excluded.seq
       WHERE excluded.seq > pools.seq`,
      report.type,
      report.slots,
      report.seq,
    );
  }

  /**
   * Whether a slot may be added to `type` without passing MAX_POOLS. Checked before the add, not with
   * it (two Durable Objects share no transaction): adds of new pools racing each other can pass the
   * limit by as many as raced, which the answer-size arithmetic leaves room for.
   */
  hasRoomFor(type: string): boolean {
    const [row] = this.ctx.storage.sql
      .exec<{ known: number; pools: number }>(
        'SELECT coalesce(sum(type = ?), 0) AS known, count(*) AS pools FROM pools WHERE slots > 0',
        type,
      )
      .toArray();
    return row === undefined || row.known > 0 || row.pools < MAX_POOLS;
  }

  /** The pools that last reported at least one slot, by name. */
  poolTypes(): string[] {
    return this.ctx.storage.sql
      .exec<{ type: string }>('SELECT type FROM pools WHERE slots > 0 ORDER BY type')
      .toArray()
      .map((row) => row.type);
  }
}

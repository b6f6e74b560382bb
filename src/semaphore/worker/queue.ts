// The pool's queue of waiting acquires (issue 31). A waiter joins once per holder and keeps its place
// while it keeps asking: each acquire with `wait` is its heartbeat. A waiter silent longer than
// QUEUE_HEARTBEAT_MS leaves the queue. A free slot goes to the first live waiter: the check runs in the
// pool's transaction, with the acquire it guards.
import { MAX_LISTED_WAITERS, type PoolQueue } from '../protocol.ts';
import type { SqlDatabase } from './schema.ts';

/** How long a waiter may stay silent and keep its place (the client asks again well within it). */
export const QUEUE_HEARTBEAT_MS = 60_000;

export interface Waiter {
  holder: string;
  joinedAt: number;
  lastSeen: number;
  /** The slots it asked for last (`allowedSlugs`); undefined: any. */
  allowed: readonly string[] | undefined;
}

export class QueueStore {
  readonly #sql: SqlDatabase;

  constructor(sql: SqlDatabase) {
    this.#sql = sql;
  }

  /** Drops the waiters silent longer than the heartbeat allows. */
  #expire(now: number): void {
    this.#sql.exec('DELETE FROM queue WHERE last_seen < ?', now - QUEUE_HEARTBEAT_MS);
  }

  /** The live waiters, first first. */
  waiters(now: number): Waiter[] {
    this.#expire(now);
    return this.#sql
      .exec<{ holder: string; joined_at: number; last_seen: number; allowed: string | null }>(
        'SELECT holder, joined_at, last_seen, allowed FROM queue ORDER BY seq',
      )
      .toArray()
      .map((row) => ({
        holder: row.holder,
        joinedAt: row.joined_at,
        lastSeen: row.last_seen,
        allowed: row.allowed === null ? undefined : (JSON.parse(row.allowed) as string[]),
      }));
  }

  /**
   * Joins `holder` at the back, or refreshes its heartbeat where it stands. `tenant`: the repository's
   * ids of a pull request's job (null for the other roles), the one tenant that may take it out again.
   * `allowed`: the slots this ask may take (`allowedSlugs`), kept as of the latest ask.
   */
  join(holder: string, now: number, tenant: string | null = null, allowed?: readonly string[]): void {
    this.#sql.exec(
      `INSERT INTO queue (holder, joined_at, last_seen, tenant, allowed) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (holder) DO UPDATE SET last_seen = excluded.last_seen, allowed = excluded.allowed`,
      holder,
      now,
      now,
      tenant,
      allowed === undefined ? null : JSON.stringify(allowed),
    );
  }

  leave(holder: string): void {
    this.#sql.exec('DELETE FROM queue WHERE holder = ?', holder);
  }

  /** The tenant `holder` joined as (null: not a pull request's job), or undefined when it is not waiting. */
  tenantOf(holder: string): string | null | undefined {
    const [row] = this.#sql
      .exec<{ tenant: string | null }>('SELECT tenant FROM queue WHERE holder = ?', holder)
      .toArray();
    return row === undefined ? undefined : row.tenant;
  }

  /** The queue as listings show it: its length and the first MAX_LISTED_WAITERS waiters. */
  listing(now: number): PoolQueue {
    const waiters = this.waiters(now);
    return {
      length: waiters.length,
      waiters: waiters.slice(0, MAX_LISTED_WAITERS).map((waiter, index) => ({
        position: index + 1,
        holder: waiter.holder,
        waitingSince: waiter.joinedAt,
      })),
    };
  }

  /**
   * Which free slots `holder` may take now: those no live waiter ahead of it could take (a waiter that
   * asked only for other slots does not keep one from the waiters behind). A holder not in the queue
   * counts as behind every waiter. The queue is read once; the answer checks any number of slots.
   */
  mayTake(holder: string, now: number): (slug: string) => boolean {
    const waiters = this.waiters(now);
    const own = waiters.findIndex((waiter) => waiter.holder === holder);
    const ahead = own === -1 ? waiters : waiters.slice(0, own);
    return (slug) => !ahead.some((waiter) => waiter.allowed === undefined || waiter.allowed.includes(slug));
  }

  /** 1-based place of `holder`, or undefined when it is not waiting. */
  position(holder: string, now: number): number | undefined {
    const index = this.waiters(now).findIndex((waiter) => waiter.holder === holder);
    return index === -1 ? undefined : index + 1;
  }

  /** For /metrics: how many wait and how long the first has waited (ms, 0 when none). */
  summary(now: number): { length: number; oldestWaitMs: number } {
    const waiters = this.waiters(now);
    return { length: waiters.length, oldestWaitMs: waiters[0] === undefined ? 0 : now - waiters[0].joinedAt };
  }
}

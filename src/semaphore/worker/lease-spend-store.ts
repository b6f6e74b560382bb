// What gc's spend reads did to a live lease, in table `lease_spend` (schema.ts): how many reads in a row
// found it above the park threshold, and when it was marked parked for spend. Kept per slot for its
// current lease (generation): a new lease starts from nothing. Synchronous like PoolStore, so the count
// and the mark change inside the activity command's one transaction, conditioned on the generation gc
// measured (docs/semaphore-protocol.md#activity).
import type { ActivityRecord, ParkedForSpend } from '../protocol.ts';
import { costOfRead } from './lease-cost.ts';
import type { SqlDatabase } from './schema.ts';

/** Reads in a row above the park threshold that park a lease: one read may be a spike, two are a runaway. */
export const PARK_AFTER_READS = 2;

type LeaseSpendRow = {
  slug: string;
  generation: number;
  over_park_reads: number;
  /** The window start of the last read counted, so a retried request does not count twice. */
  over_park_from: number | null;
  parked_at: number | null;
  parked_from: number | null;
  parked_usd_per_hour: number | null;
  cost_usd: number;
  covered_until: number | null;
  covered_ms: number;
  missing_ms: number;
};

/** One read of a live lease at the generation the caller measured. */
export interface LeaseRead {
  slug: string;
  generation: number;
  /** When the lease began: the part of a read before it was the slot's, not this lease's. */
  leaseStart: number;
  /** The read: its window (`from` makes it one read, however often its request is sent) and dollars. */
  activity: Pick<ActivityRecord, 'from' | 'until' | 'usdPerHour' | 'buckets'>;
  /** The read found the lease above the park threshold. */
  overPark: boolean;
}

export class LeaseSpendStore {
  readonly #sql: SqlDatabase;

  constructor(sql: SqlDatabase) {
    this.#sql = sql;
  }

  #row(slug: string): LeaseSpendRow | undefined {
    return this.#sql.exec<LeaseSpendRow>('SELECT * FROM lease_spend WHERE slug = ?', slug).toArray()[0];
  }

  /** The slot's mark when its lease `generation` was parked for spend; null otherwise. */
  parkedOf(slug: string, generation: number): ParkedForSpend | null {
    const row = this.#row(slug);
    if (row === undefined || row.generation !== generation || row.parked_at === null) return null;
    return { at: row.parked_at, generation, usdPerHour: row.parked_usd_per_hour ?? 0 };
  }

  /**
   * Counts the read; answers whether the lease is to be parked now: the PARK_AFTER_READS-th read in a
   * row above the threshold marks it parked (and starts the count again, so a redeploy that runs away
   * again is parked again), and the same read sent again answers the same.
   */
  count(read: LeaseRead, now: number): boolean {
    const last = this.#row(read.slug);
    const same = last !== undefined && last.generation === read.generation ? last : undefined;
    const { from, usdPerHour } = read.activity;
    const cost = costOfRead(
      same === undefined
        ? { usd: 0, coveredUntil: null, coveredMs: 0, missingMs: 0 }
        : {
            usd: same.cost_usd,
            coveredUntil: same.covered_until,
            coveredMs: same.covered_ms,
            missingMs: same.missing_ms,
          },
      read.activity,
      read.leaseStart,
    );
    const retried = same !== undefined && read.overPark && same.over_park_from === from;
    const previous =
      same !== undefined && same.over_park_from !== null && same.over_park_from < from
        ? same.over_park_reads
        : 0;
    const reads = retried ? (same?.over_park_reads ?? 0) : read.overPark ? previous + 1 : 0;
    const park = same?.parked_from === from || (!retried && reads >= PARK_AFTER_READS);
    const newlyParked = park && same?.parked_from !== from;
    this.#sql.exec(
      `INSERT INTO lease_spend (slug, generation, over_park_reads, over_park_from, parked_at, parked_from,
         parked_usd_per_hour, cost_usd, covered_until, covered_ms, missing_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (slug) DO UPDATE SET generation = excluded.generation,
         over_park_reads = excluded.over_park_reads, over_park_from = excluded.over_park_from,
         parked_at = excluded.parked_at, parked_from = excluded.parked_from,
         parked_usd_per_hour = excluded.parked_usd_per_hour, cost_usd = excluded.cost_usd,
         covered_until = excluded.covered_until, covered_ms = excluded.covered_ms, missing_ms = excluded.missing_ms`,
      read.slug,
      read.generation,
      park ? 0 : reads,
      read.overPark ? from : null,
      newlyParked ? now : (same?.parked_at ?? null),
      newlyParked ? from : (same?.parked_from ?? null),
      newlyParked ? usdPerHour : (same?.parked_usd_per_hour ?? null),
      cost.usd,
      cost.coveredUntil,
      cost.coveredMs,
      cost.missingMs,
    );
    return park;
  }

  /** A deleted slot's counts go with it. */
  forget(slug: string): void {
    this.#sql.exec('DELETE FROM lease_spend WHERE slug = ?', slug);
  }
}

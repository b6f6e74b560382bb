// Each slot's last activity record (what gc read of its compute at Cloudflare), and the last spend
// alert about its lease, in table `slot_activity` (schema.ts). Synchronous like PoolStore, so a record
// and its alert check run inside the command's one transaction.
import type { ActivityRecord, StoredActivity } from '../protocol.ts';
import type { SqlDatabase } from './schema.ts';

/** One spend alert per lease a day: the same lease alerts again only after this long. */
const ALERT_INTERVAL_MS = 24 * 60 * 60_000;

type ActivityRow = {
  slug: string;
  record: string;
  at: number;
  alerted_at: number | null;
  alerted_generation: number | null;
  /** From lease_spend (lease-spend-store.ts): the current lease's mark when it was parked for spend. */
  parked_at: number | null;
  parked_generation: number | null;
  parked_usd_per_hour: number | null;
  cost_usd: number | null;
  covered_until: number | null;
  covered_ms: number | null;
  missing_ms: number | null;
};

function toStored(row: ActivityRow): StoredActivity {
  const stored: StoredActivity = {
    ...(JSON.parse(row.record) as ActivityRecord),
    at: row.at,
    alertedAt: row.alerted_at,
  };
  if (row.parked_at !== null && row.parked_generation !== null)
    stored.parkedForSpend = {
      at: row.parked_at,
      generation: row.parked_generation,
      usdPerHour: row.parked_usd_per_hour ?? 0,
    };
  if (row.covered_until !== null)
    stored.leaseCost = {
      usd: Math.round((row.cost_usd ?? 0) * 1e6) / 1e6,
      coveredUntil: row.covered_until,
      coveredMs: row.covered_ms ?? 0,
      missingMs: row.missing_ms ?? 0,
    };
  return stored;
}

/**
 * A record with what its slot's current (or, once released, last) lease cost so far and its park mark,
 * when that lease was parked for spend.
 */
const SELECT_STORED = `SELECT a.*, l.parked_at, l.generation AS parked_generation, l.parked_usd_per_hour,
    l.cost_usd, l.covered_until, l.covered_ms, l.missing_ms
  FROM slot_activity a
  LEFT JOIN slots s ON s.slug = a.slug
  LEFT JOIN lease_spend l ON l.slug = a.slug AND l.generation = s.generation`;

export class ActivityStore {
  readonly #sql: SqlDatabase;

  constructor(sql: SqlDatabase) {
    this.#sql = sql;
  }

  of(slug: string): StoredActivity | null {
    const [row] = this.#sql.exec<ActivityRow>(`${SELECT_STORED} WHERE a.slug = ?`, slug).toArray();
    return row === undefined ? null : toStored(row);
  }

  /** Every slot's record, by slug. */
  all(): Map<string, StoredActivity> {
    const rows = this.#sql.exec<ActivityRow>(SELECT_STORED).toArray();
    return new Map(rows.map((row) => [row.slug, toStored(row)]));
  }

  /**
   * Keeps `record` as the slot's; with `alert`, allows an alert unless one was allowed for this lease
   * (its generation) less than ALERT_INTERVAL_MS ago. Answers whether this alert is allowed.
   */
  record(slug: string, generation: number, record: ActivityRecord, alert: boolean, now: number): boolean {
    const [last] = this.#sql.exec<ActivityRow>('SELECT * FROM slot_activity WHERE slug = ?', slug).toArray();
    const alertedRecently =
      last?.alerted_at != null &&
      last.alerted_generation === generation &&
      now - last.alerted_at < ALERT_INTERVAL_MS;
    const alerted = alert && !alertedRecently;
    this.#sql.exec(
      `INSERT INTO slot_activity (slug, record, at, alerted_at, alerted_generation) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (slug) DO UPDATE SET record = excluded.record, at = excluded.at,
         alerted_at = excluded.alerted_at, alerted_generation = excluded.alerted_generation`,
      slug,
      JSON.stringify(record),
      now,
      alerted ? now : (last?.alerted_at ?? null),
      alerted ? generation : (last?.alerted_generation ?? null),
    );
    return alerted;
  }

  /** A deleted slot's record goes with it: a slot added again under the slug starts without one. */
  forget(slug: string): void {
    this.#sql.exec('DELETE FROM slot_activity WHERE slug = ?', slug);
  }
}

// SQLite storage of one pool (one Durable Object): slots with their current lease, the event log and
// the request ids of current leases. Every method is synchronous, so a pool operation made of several
// calls runs without interleaving with any other request. The tables are defined in schema.ts.
import type { EraseFailure, EventKind, SemaphoreEvent } from '../protocol.ts';
import { ActivityStore } from './activity-store.ts';
import { LeaseSpendStore } from './lease-spend-store.ts';
import { QueueStore } from './queue.ts';
import type { SqlDatabase } from './schema.ts';

/** Events kept per slug; older ones are dropped as new ones arrive. */
export const EVENTS_KEPT_PER_SLOT = 1_000;
/**
 * Deleted slugs whose events are kept (the most recently deleted): a slug added again shows its
 * history while it is among them, and the log of a pool cannot grow by adding and deleting slugs.
 */
export const DELETED_SLUGS_WITH_EVENTS = 100;

export interface CurrentLease {
  leaseId: string;
  holder: string;
  leasedUntil: number;
  /** 1 when the lease begins, one more with every renew or extend. */
  version: number;
  wasDirty: boolean;
  previousHolder: string | null;
  /** The pull request's repository (its ids) when a deploy job signed in with OIDC took it; null otherwise. */
  tenant: string | null;
  /** Set by gc's keep (extend): the most the lease may be kept to; null once its holder renews it. */
  keptUntil: number | null;
}

export interface SlotState {
  slug: string;
  data: Record<string, unknown>;
  generation: number;
  dirty: boolean;
  lease: CurrentLease | null;
  lastHolder: string | null;
  lastAcquiredAt: number | null;
  lastReleasedAt: number | null;
  createdAt: number;
  updatedAt: number;
  eraseFailures: number;
  lastEraseFailure: (EraseFailure & { at: number }) | null;
}

/** What an acquire answered besides the lease itself, kept with its request id for a retry. */
export interface AcquireFlags {
  reused: boolean;
  tookExpired: boolean;
}

/** Which acquire a request id belongs to: `acquire-specific` ids are scoped by slug, `acquire` ids are not. */
export type RequestScope = { kind: 'specific'; slug: string } | { kind: 'any' };

type SlotRow = {
  slug: string;
  data: string;
  generation: number;
  dirty: number;
  lease_id: string | null;
  holder: string | null;
  leased_until: number | null;
  lease_version: number | null;
  lease_was_dirty: number | null;
  lease_previous_holder: string | null;
  lease_tenant: string | null;
  lease_kept_until: number | null;
  last_holder: string | null;
  last_acquired_at: number | null;
  last_released_at: number | null;
  created_at: number;
  updated_at: number;
  erase_failures: number;
  last_erase_failure: string | null;
};

type EventRow = {
  at: number;
  event: string;
  slug: string;
  holder: string | null;
  generation: number;
  detail: string;
};

function toSlotState(row: SlotRow): SlotState {
  const lease: CurrentLease | null =
    row.lease_id === null || row.holder === null || row.leased_until === null
      ? null
      : {
          leaseId: row.lease_id,
          holder: row.holder,
          leasedUntil: row.leased_until,
          version: row.lease_version ?? 1,
          wasDirty: row.lease_was_dirty === 1,
          previousHolder: row.lease_previous_holder,
          tenant: row.lease_tenant,
          keptUntil: row.lease_kept_until,
        };
  return {
    slug: row.slug,
    data: JSON.parse(row.data),
    generation: row.generation,
    dirty: row.dirty === 1,
    lease,
    lastHolder: row.last_holder,
    lastAcquiredAt: row.last_acquired_at,
    lastReleasedAt: row.last_released_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    eraseFailures: row.erase_failures,
    lastEraseFailure: row.last_erase_failure === null ? null : JSON.parse(row.last_erase_failure),
  };
}

const scopeKey = (scope: RequestScope): string => (scope.kind === 'any' ? 'any' : `specific:${scope.slug}`);

export class PoolStore {
  readonly #sql: SqlDatabase;
  /** The slots' activity records, in the same database. */
  readonly activity: ActivityStore;
  /** What the spend reads did to each slot's live lease (parking), in the same database. */
  readonly leaseSpend: LeaseSpendStore;
  /** The pool's queue of waiting acquires (queue.ts), in the same database. */
  readonly queue: QueueStore;

  /** `sql` must be migrated already (schema.ts). */
  constructor(sql: SqlDatabase) {
    this.#sql = sql;
    this.activity = new ActivityStore(sql);
    this.leaseSpend = new LeaseSpendStore(sql);
    this.queue = new QueueStore(sql);
  }

  find(slug: string): SlotState | undefined {
    const [row] = this.#sql.exec<SlotRow>('SELECT * FROM slots WHERE slug = ?', slug).toArray();
    return row === undefined ? undefined : toSlotState(row);
  }

  /** Every slot, ordered by `createdAt`, then `slug`. */
  all(): SlotState[] {
    return this.#sql
      .exec<SlotRow>('SELECT * FROM slots ORDER BY created_at, slug')
      .toArray()
      .map(toSlotState);
  }

  /**
   * The slot `acquire` takes: available and clean, then available and dirty (each least recently
   * released first, never released counting as 0), then leased with an expired lease (longest
   * expired first); ties by `createdAt`, then `slug`. `allowedSlugs` narrows the candidates.
   */
  /** The free and expired slots `allowedSlugs` names (all when undefined), the best candidate first. */
  candidates(now: number, allowedSlugs: readonly string[] | undefined): SlotState[] {
    return this.#sql
      .exec<SlotRow>(
        `SELECT * FROM slots
         WHERE (lease_id IS NULL OR leased_until <= ?1)
           AND (?2 IS NULL OR slug IN (SELECT value FROM json_each(?2)))
         ORDER BY
           CASE WHEN lease_id IS NOT NULL THEN 2 WHEN dirty = 1 THEN 1 ELSE 0 END,
           CASE WHEN lease_id IS NULL THEN coalesce(last_released_at, 0) ELSE leased_until END,
           created_at,
           slug`,
        now,
        allowedSlugs === undefined ? null : JSON.stringify(allowedSlugs),
      )
      .toArray()
      .map(toSlotState);
  }

  count(): number {
    return this.#sql.exec<{ slots: number }>('SELECT count(*) AS slots FROM slots').toArray()[0]?.slots ?? 0;
  }

  /** How many slots the pool has, how many are leased (expired ones included), expired and dirty. */
  summary(now: number): { slots: number; leased: number; expired: number; dirty: number } {
    const [row] = this.#sql
      .exec<{ slots: number; leased: number; expired: number; dirty: number }>(
        `SELECT count(*) AS slots,
           coalesce(sum(lease_id IS NOT NULL), 0) AS leased,
           coalesce(sum(lease_id IS NOT NULL AND leased_until <= ?), 0) AS expired,
           coalesce(sum(dirty), 0) AS dirty
         FROM slots`,
        now,
      )
      .toArray();
    return row ?? { slots: 0, leased: 0, expired: 0, dirty: 0 };
  }

  /** The slot of `holder`'s live lease (the first by `createdAt`, then `slug`, should it hold several). */
  heldBy(holder: string, tenant: string | null, now: number): SlotState | undefined {
    // `=` on TEXT compares exactly (BINARY collation): no case folding, no prefix.
    const [row] = this.#sql
      .exec<SlotRow>(
        `SELECT * FROM slots WHERE holder = ? AND lease_tenant IS ? AND leased_until > ?
         ORDER BY created_at, slug LIMIT 1`,
        holder,
        tenant,
        now,
      )
      .toArray();
    return row === undefined ? undefined : toSlotState(row);
  }

  /** How many live leases `holder` (exactly) has in the pool. */
  liveLeasesOf(holder: string, now: number): number {
    const [row] = this.#sql
      .exec<{ leases: number }>(
        'SELECT count(*) AS leases FROM slots WHERE holder = ? AND leased_until > ?',
        holder,
        now,
      )
      .toArray();
    return row?.leases ?? 0;
  }

  insert(slot: SlotState): void {
    this.#sql.exec(
      `INSERT INTO slots (slug, data, generation, dirty, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
      slot.slug,
      JSON.stringify(slot.data),
      slot.generation,
      slot.dirty ? 1 : 0,
      slot.createdAt,
      slot.updatedAt,
    );
  }

  /** Writes every mutable column of the slot, its current lease included. */
  save(slot: SlotState): void {
    const lease = slot.lease;
    this.#sql.exec(
      `UPDATE slots SET generation = ?, dirty = ?, lease_id = ?, holder = ?, leased_until = ?,
         lease_version = ?, lease_was_dirty = ?, lease_previous_holder = ?, last_holder = ?,
         last_acquired_at = ?, last_released_at = ?, updated_at = ?, erase_failures = ?,
         last_erase_failure = ?, lease_tenant = ?, lease_kept_until = ?
       WHERE slug = ?`,
      slot.generation,
      slot.dirty ? 1 : 0,
      lease?.leaseId ?? null,
      lease?.holder ?? null,
      lease?.leasedUntil ?? null,
      lease?.version ?? null,
      lease === null ? null : lease.wasDirty ? 1 : 0,
      lease?.previousHolder ?? null,
      slot.lastHolder,
      slot.lastAcquiredAt,
      slot.lastReleasedAt,
      slot.updatedAt,
      slot.eraseFailures,
      slot.lastEraseFailure === null ? null : JSON.stringify(slot.lastEraseFailure),
      lease?.tenant ?? null,
      lease?.keptUntil ?? null,
      slot.slug,
    );
  }

  /** Deletes the slot, keeping its generation: a slot added again under its slug continues from it. */
  delete(slot: SlotState): void {
    this.#sql.exec('DELETE FROM slots WHERE slug = ?', slot.slug);
    this.#sql.exec(
      `INSERT INTO slug_generations (slug, generation) VALUES (?, ?)
       ON CONFLICT (slug) DO UPDATE SET generation = max(generation, excluded.generation)`,
      slot.slug,
      slot.generation,
    );
  }

  /** The highest generation a deleted slot of this slug had; 0 for a slug never used. */
  generationOfDeleted(slug: string): number {
    const [row] = this.#sql
      .exec<{ generation: number }>('SELECT generation FROM slug_generations WHERE slug = ?', slug)
      .toArray();
    return row?.generation ?? 0;
  }

  /** The lease an earlier acquire with this request id answered, if that lease may still be current. */
  leaseOfRequest(
    scope: RequestScope,
    requestId: string,
  ): ({ slug: string; leaseId: string } & AcquireFlags) | undefined {
    const [row] = this.#sql
      .exec<{ slug: string; lease_id: string; reused: number; took_expired: number }>(
        'SELECT slug, lease_id, reused, took_expired FROM request_ids WHERE scope = ? AND request_id = ?',
        scopeKey(scope),
        requestId,
      )
      .toArray();
    return row === undefined
      ? undefined
      : {
          slug: row.slug,
          leaseId: row.lease_id,
          reused: row.reused === 1,
          tookExpired: row.took_expired === 1,
        };
  }

  /**
   * Keeps one request id per lease and scope: a lease reused again and again (`reuseHeld`) would
   * otherwise collect one per call. A retry of an id forgotten that way reuses the same lease anyway.
   */
  rememberRequest(
    scope: RequestScope,
    requestId: string,
    slug: string,
    leaseId: string,
    flags: AcquireFlags,
  ): void {
    this.#sql.exec('DELETE FROM request_ids WHERE lease_id = ? AND scope = ?', leaseId, scopeKey(scope));
    this.#sql.exec(
      `INSERT OR REPLACE INTO request_ids (scope, request_id, slug, lease_id, reused, took_expired)
       VALUES (?, ?, ?, ?, ?, ?)`,
      scopeKey(scope),
      requestId,
      slug,
      leaseId,
      flags.reused ? 1 : 0,
      flags.tookExpired ? 1 : 0,
    );
  }

  /**
   * Drops the request ids of a lease that stopped being current: a retry can no longer be answered
   * with it, so keeping them only grows the table. This bounds the table by the number of slots.
   */
  forgetRequestsOf(leaseId: string): void {
    this.#sql.exec('DELETE FROM request_ids WHERE lease_id = ?', leaseId);
  }

  appendEvent(event: SemaphoreEvent): void {
    this.#sql.exec(
      'INSERT INTO events (slug, at, event, holder, generation, detail) VALUES (?, ?, ?, ?, ?, ?)',
      event.slug,
      event.at,
      event.event,
      event.holder,
      event.generation,
      JSON.stringify(event.detail),
    );
    this.#sql.exec(
      `DELETE FROM events WHERE slug = ?1 AND id <= (
         SELECT id FROM events WHERE slug = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)`,
      event.slug,
      EVENTS_KEPT_PER_SLOT,
    );
  }

  /**
   * Logs a renew: when the slot's newest event is a renew of the same lease (holder and generation),
   * that event is moved to `event` instead, `detail.renews` counting them and `detail.firstAt` keeping
   * when the first was (gc's keep, an `extend`, is never folded). A lease fence renews every few minutes and a deploy's e2e job on every run; one
   * line per lease keeps the slot's history (EVENTS_KEPT_PER_SLOT) about its leases, not its renews.
   */
  foldRenew(event: SemaphoreEvent): void {
    const [last] = this.#sql
      .exec<{
        id: number;
        at: number;
        event: string;
        holder: string | null;
        generation: number;
        detail: string;
      }>(
        'SELECT id, at, event, holder, generation, detail FROM events WHERE slug = ? ORDER BY id DESC LIMIT 1',
        event.slug,
      )
      .toArray();
    const before =
      last === undefined
        ? {}
        : (JSON.parse(last.detail) as { renews?: unknown; firstAt?: unknown; extended?: unknown });
    // gc's keep (`extended`) is a line of its own: an operator looks for it, as for an acquire.
    const folds =
      last?.event === 'renewed' &&
      last.holder === event.holder &&
      last.generation === event.generation &&
      before.extended === undefined &&
      event.detail.extended === undefined;
    if (!folds || last === undefined) {
      this.appendEvent(event);
      return;
    }
    const renews = typeof before.renews === 'number' ? before.renews + 1 : 2;
    const firstAt = typeof before.firstAt === 'number' ? before.firstAt : last.at;
    this.#sql.exec(
      'UPDATE events SET at = ?, detail = ? WHERE id = ?',
      event.at,
      JSON.stringify({ ...event.detail, renews, firstAt }),
      last.id,
    );
  }

  /** Drops the events of deleted slugs beyond the DELETED_SLUGS_WITH_EVENTS most recently active. */
  pruneEventsOfDeletedSlugs(): void {
    this.#sql.exec(
      `DELETE FROM events WHERE slug IN (
         SELECT slug FROM events WHERE slug NOT IN (SELECT slug FROM slots)
         GROUP BY slug ORDER BY max(id) DESC LIMIT -1 OFFSET ?)`,
      DELETED_SLUGS_WITH_EVENTS,
    );
  }

  /** The newest `limit` events of a slot, newest first. */
  events(slug: string, limit: number): SemaphoreEvent[] {
    return this.#sql
      .exec<EventRow>(
        'SELECT at, event, slug, holder, generation, detail FROM events WHERE slug = ? ORDER BY id DESC LIMIT ?',
        slug,
        limit,
      )
      .toArray()
      .map((row) => ({
        at: row.at,
        event: row.event as EventKind,
        slug: row.slug,
        holder: row.holder,
        generation: row.generation,
        detail: JSON.parse(row.detail),
      }));
  }
}

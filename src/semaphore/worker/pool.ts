// The rules of one pool, as pure functions of the store and the server's clock. The Durable Object
// runs each command inside one synchronous SQLite transaction, so commands never interleave.
import {
  type AcquireRequest,
  type AcquireSpecificRequest,
  type AddRequest,
  type ErrorCode,
  type EventKind,
  type ExtendAnswer,
  type ExtendRequest,
  type Lease,
  MAX_SLOTS_PER_POOL,
  type MarkDirtyRequest,
  type PoolSummary,
  type QueuePlace,
  type RecordActivityAnswer,
  type RecordActivityRequest,
  type ReleaseAnswer,
  type ReleaseRequest,
  type RenewRequest,
  type SemaphoreEvent,
  type Slot,
  type StoredActivity,
} from '../protocol.ts';
import type { LeaveQueueAnswer, LeaveQueueRequest } from '../queue-protocol.ts';
import { QUEUE_HEARTBEAT_MS } from './queue.ts';
import type { AcquireFlags, CurrentLease, PoolStore, RequestScope, SlotState } from './store.ts';

export type PoolCommand =
  | { op: 'list'; type: string }
  | { op: 'summary'; type: string }
  | { op: 'find'; type: string; slug: string }
  | { op: 'add'; request: AddRequest }
  | RemoveCommand
  | { op: 'mark-dirty'; request: MarkDirtyRequest; owner?: LeaseOwner | undefined }
  | ({ op: 'acquire-specific'; request: AcquireSpecificRequest } & TenantLimits)
  | ({ op: 'acquire'; request: AcquireRequest } & TenantLimits)
  | { op: 'extend'; request: ExtendRequest }
  | { op: 'renew'; request: RenewRequest; owner?: LeaseOwner | undefined }
  | { op: 'release'; request: ReleaseRequest; owner?: LeaseOwner | undefined }
  | { op: 'leave-queue'; request: LeaveQueueRequest; owner?: LeaseOwner | undefined }
  | { op: 'record-activity'; request: RecordActivityRequest }
  | { op: 'events'; type: string; slug: string; limit: number };
// `owner`: the caller is a pull request's deploy job, and may touch only a lease of this holder and
// tenant (roles.ts); the check is the pool's, in the command's transaction, since only the slot knows
// whose lease a leaseId is.

/** A pull request's deploy job: the holder it leases as, and the tenant (its repository's ids) the lease records. */
export interface LeaseOwner {
  holder: string;
  tenant: string;
}

/** What an acquire by a pull request's job is held to (tenancy.ts); absent for the other roles. */
export interface TenantLimits {
  owner?: LeaseOwner | undefined;
  /** How many live leases one holder may have in the pool. */
  leasesPerHolder?: number | undefined;
}

/** Remove a slot, only while it is as the caller saw it: at `ifGeneration`, and clean unless `allowDirty`. */
export interface RemoveCommand {
  op: 'remove';
  type: string;
  slug: string;
  note?: string | undefined;
  ifGeneration: number;
  allowDirty: boolean;
}

export type PoolOutcome =
  | { ok: true; status: 200 | 201; body: unknown }
  | { ok: false; status: 403 | 404 | 409; code: ErrorCode; message: string; queue?: QueuePlace };

/**
 * What the pool's Durable Object answers over RPC: the body already serialised, inside the command's
 * transaction, so a body that cannot be serialised fails the command (and undoes its writes) instead
 * of failing on the way out after they were committed.
 */
export type PoolReply = { ok: true; status: 200 | 201; json: string } | Extract<PoolOutcome, { ok: false }>;

export const toReply = (outcome: PoolOutcome): PoolReply =>
  outcome.ok ? { ok: true, status: outcome.status, json: JSON.stringify(outcome.body) } : outcome;

const answer = (body: unknown, status: 200 | 201 = 200): PoolOutcome => ({ ok: true, status, body });

const notFound = (type: string, slug: string): PoolOutcome => ({
  ok: false,
  status: 404,
  code: 'not_found',
  message: `slot ${slug} does not exist in pool ${type}; add it with POST /api/resources`,
});

/** Holders are data: quoted, so the message shows exactly where one starts and ends. */
const quoted = (holder: string | null): string => (holder === null ? 'nobody' : JSON.stringify(holder));

/** A pull request's job touching a lease that is not its own (see `owner`). */
const notOwnLease = (owner: LeaseOwner, slug: string, what: string): PoolOutcome => ({
  ok: false,
  status: 403,
  code: 'forbidden',
  message: `the pull-request role (${owner.holder}) may not ${what} slot ${slug}: the lease there is not this pull request's (its holder and repository). It may read, and acquire, renew and release only its own pull request's lease, and mark the slot of that lease dirty`,
});

/** Whether the lease is `owner`'s: the same holder, exactly, taken by the same tenant. */
const isOwnLease = (lease: CurrentLease, owner: LeaseOwner): boolean =>
  lease.holder === owner.holder && lease.tenant === owner.tenant;

/** Whether `owner` holds the slot's live lease. */
const holdsLiveLease = (slot: SlotState, owner: LeaseOwner, now: number): boolean =>
  slot.lease !== null && isOwnLease(slot.lease, owner) && slot.lease.leasedUntil > now;

/** The pool a command is for (the name of the Durable Object that runs it). */
export const poolTypeOf = (command: PoolCommand): string =>
  'request' in command ? command.request.type : command.type;

export function applyPoolCommand(store: PoolStore, command: PoolCommand, now: number): PoolOutcome {
  switch (command.op) {
    case 'list': {
      const activity = store.activity.all();
      return answer({
        now,
        resources: store
          .all()
          .map((slot) => toSlot(command.type, slot, now, activity.get(slot.slug) ?? null)),
        queue: store.queue.listing(now),
      });
    }
    case 'summary':
      return answer({ type: command.type, ...store.summary(now) } satisfies PoolSummary);
    case 'find': {
      const slot = store.find(command.slug);
      return slot === undefined
        ? notFound(command.type, command.slug)
        : answer(toSlot(command.type, slot, now, store.activity.of(slot.slug)));
    }
    case 'add':
      return add(store, command.request, now);
    case 'remove':
      return remove(store, command, now);
    case 'mark-dirty':
      return markDirty(store, command.request, command.owner, now);
    case 'acquire-specific':
      return acquireSpecific(store, command.request, command, now);
    case 'acquire':
      return acquire(store, command.request, command, now);
    case 'extend':
      return extend(store, command.request, now);
    case 'renew':
      return renew(store, command.request, command.owner, now);
    case 'release':
      return release(store, command.request, command.owner, now);
    case 'leave-queue':
      return leaveQueue(store, command.request, command.owner);
    case 'record-activity':
      return recordActivity(store, command.request, now);
    case 'events':
      return store.find(command.slug) === undefined
        ? notFound(command.type, command.slug)
        : answer({ events: store.events(command.slug, command.limit) });
  }
}

function toSlot(type: string, slot: SlotState, now: number, activity: StoredActivity | null): Slot {
  return {
    type,
    slug: slot.slug,
    data: slot.data,
    leaseState: slot.lease === null ? 'available' : 'leased',
    holder: slot.lease?.holder ?? null,
    leasedUntil: slot.lease?.leasedUntil ?? null,
    expired: slot.lease !== null && slot.lease.leasedUntil <= now,
    generation: slot.generation,
    leaseVersion: slot.lease?.version ?? null,
    keptUntil: slot.lease?.keptUntil ?? null,
    dirty: slot.dirty,
    lastHolder: slot.lastHolder,
    lastAcquiredAt: slot.lastAcquiredAt,
    lastReleasedAt: slot.lastReleasedAt,
    createdAt: slot.createdAt,
    updatedAt: slot.updatedAt,
    eraseFailures: slot.eraseFailures,
    lastEraseFailure: slot.lastEraseFailure,
    activity,
  };
}

const FRESH: AcquireFlags = { reused: false, tookExpired: false };

/** The Lease answer for the slot's current lease; `flags` say how this call came to answer it. */
function toLease(type: string, slot: SlotState, lease: CurrentLease, flags: AcquireFlags): Lease {
  return {
    type,
    slug: slot.slug,
    data: slot.data,
    leaseId: lease.leaseId,
    holder: lease.holder,
    expiresAt: lease.leasedUntil,
    generation: slot.generation,
    leaseVersion: lease.version,
    wasDirty: lease.wasDirty,
    previousHolder: lease.previousHolder,
    ...flags,
  };
}

/** An event's detail, with the operator's note when the call carried one. */
const withNote = (detail: Record<string, unknown>, note: string | undefined): Record<string, unknown> =>
  note === undefined ? detail : { ...detail, note };

function logEvent(
  store: PoolStore,
  slot: SlotState,
  now: number,
  event: EventKind,
  holder: string | null,
  detail: Record<string, unknown>,
): void {
  const record: SemaphoreEvent = {
    at: now,
    event,
    slug: slot.slug,
    holder,
    generation: slot.generation,
    detail,
  };
  store.appendEvent(record);
}

function add(store: PoolStore, request: AddRequest, now: number): PoolOutcome {
  if (store.find(request.slug) !== undefined) {
    return {
      ok: false,
      status: 409,
      code: 'already_exists',
      message: `slot ${request.slug} already exists in pool ${request.type}`,
    };
  }
  if (store.count() >= MAX_SLOTS_PER_POOL) {
    return {
      ok: false,
      status: 409,
      code: 'limit_reached',
      message: `pool ${request.type} has ${MAX_SLOTS_PER_POOL} slots, the most a pool may have (so its listing fits one answer); remove a slot first or use another pool`,
    };
  }
  const slot: SlotState = {
    slug: request.slug,
    data: request.data ?? {},
    // A fencing token never repeats: a slug added again continues from its highest generation.
    generation: store.generationOfDeleted(request.slug),
    dirty: request.dirty === true,
    lease: null,
    lastHolder: null,
    lastAcquiredAt: null,
    lastReleasedAt: null,
    createdAt: now,
    updatedAt: now,
    eraseFailures: 0,
    lastEraseFailure: null,
  };
  store.insert(slot);
  logEvent(store, slot, now, 'added', null, withNote({ dirty: slot.dirty }, request.note));
  return answer(toSlot(request.type, slot, now, null), 201);
}

function remove(store: PoolStore, command: RemoveCommand, now: number): PoolOutcome {
  const { type, slug, note } = command;
  const slot = store.find(slug);
  if (slot === undefined) return notFound(type, slug);
  if (slot.lease !== null && slot.lease.leasedUntil > now) {
    return {
      ok: false,
      status: 409,
      code: 'leased',
      message: `slot ${slug} is held by ${quoted(slot.lease.holder)} until ${new Date(slot.lease.leasedUntil).toISOString()}; release it first`,
    };
  }
  if (slot.generation !== command.ifGeneration) {
    return {
      ok: false,
      status: 409,
      code: 'condition_failed',
      message: `slot ${slug} is at generation ${slot.generation}, not ${command.ifGeneration} as ifGeneration named: it was leased since you saw it; nothing was changed`,
    };
  }
  if (slot.dirty && !command.allowDirty) {
    return {
      ok: false,
      status: 409,
      code: 'dirty',
      message: `slot ${slug} is dirty: it may hold a tenant's data, which no sweep erases once it leaves the pool; let gc erase it first, or remove it anyway with allowDirty=true; nothing was changed`,
    };
  }
  if (slot.lease !== null) store.forgetRequestsOf(slot.lease.leaseId);
  store.delete(slot);
  store.activity.forget(slug);
  store.leaseSpend.forget(slug);
  // The log outlives the slot, so a slot added again under the same slug shows its history.
  logEvent(store, slot, now, 'deleted', slot.lease?.holder ?? null, withNote({}, note));
  store.pruneEventsOfDeletedSlugs();
  return answer({ deleted: true });
}

/** Marks a slot dirty, free or leased: its resources hold data the next erase must remove. */
function markDirty(
  store: PoolStore,
  request: MarkDirtyRequest,
  owner: LeaseOwner | undefined,
  now: number,
): PoolOutcome {
  const slot = store.find(request.slug);
  if (slot === undefined) return notFound(request.type, request.slug);
  if (owner !== undefined && !holdsLiveLease(slot, owner, now))
    return notOwnLease(owner, slot.slug, 'mark dirty');
  const marked: SlotState = slot.dirty ? slot : { ...slot, dirty: true, updatedAt: now };
  if (!slot.dirty) store.save(marked);
  logEvent(
    store,
    marked,
    now,
    'marked-dirty',
    slot.lease?.holder ?? null,
    withNote({ wasDirty: slot.dirty }, request.note),
  );
  return answer(toSlot(request.type, marked, now, store.activity.of(slot.slug)));
}

/**
 * Keeps each slot's activity record (no event: it is what gc saw, not a change to the slot). A spend
 * alert is allowed only while a live lease holds the slot, at the generation the caller measured it
 * (ifGeneration), and once per lease a day (activity-store.ts).
 */
function recordActivity(store: PoolStore, request: RecordActivityRequest, now: number): PoolOutcome {
  const recorded: string[] = [];
  const alerted: string[] = [];
  const parkForSpend: string[] = [];
  for (const entry of request.slots) {
    const slot = store.find(entry.slug);
    if (slot === undefined) continue;
    const live = slot.lease !== null && slot.lease.leasedUntil > now;
    const measured = entry.ifGeneration === undefined || entry.ifGeneration === slot.generation;
    const alert = entry.alert === true && live && measured;
    if (store.activity.record(slot.slug, slot.generation, entry.activity, alert, now))
      alerted.push(slot.slug);
    if (live && entry.ifGeneration === slot.generation && parkNow(store, slot, entry, now))
      parkForSpend.push(slot.slug);
    recorded.push(slot.slug);
  }
  return answer({
    recorded,
    alerted,
    ...(parkForSpend.length > 0 ? { parkForSpend } : {}),
  } satisfies RecordActivityAnswer);
}

/**
 * Counts a live lease's read (lease-spend-store.ts): adds its cost to the lease's, and against the park
 * threshold answers whether to park it now.
 */
function parkNow(
  store: PoolStore,
  slot: SlotState,
  entry: RecordActivityRequest['slots'][number],
  now: number,
): boolean {
  const read = { slug: slot.slug, generation: slot.generation, activity: entry.activity };
  const leaseStart = slot.lastAcquiredAt ?? slot.createdAt;
  return store.leaseSpend.count({ ...read, leaseStart, overPark: entry.overPark === true }, now);
}

/**
 * The answer to a retry: the slot's current lease, if an earlier call with the same request id created
 * it. A request id belongs to the holder and tenant whose call made it: the same id from anyone else is
 * refused (409) and learns nothing of that lease.
 */
function retriedLease(
  store: PoolStore,
  type: string,
  scope: RequestScope,
  request: { holder: string; requestId?: string | undefined },
  tenant: string | null,
): PoolOutcome | undefined {
  if (request.requestId === undefined) return undefined;
  const remembered = store.leaseOfRequest(scope, request.requestId);
  if (remembered === undefined) return undefined;
  const slot = store.find(remembered.slug);
  if (slot === undefined || slot.lease === null || slot.lease.leaseId !== remembered.leaseId)
    return undefined;
  if (slot.lease.holder !== request.holder || slot.lease.tenant !== tenant) {
    return {
      ok: false,
      status: 409,
      code: 'request_id_taken',
      message: `requestId ${quoted(request.requestId)} belongs to another caller's acquire in pool ${type}; send a fresh requestId (a new UUID per acquire, the same one only when retrying it); nothing was changed`,
    };
  }
  const flags = { reused: remembered.reused, tookExpired: remembered.tookExpired };
  return answer(toLease(type, slot, slot.lease, flags));
}

/** A pull request's acquire that would give its holder more live leases in the pool than the operator allows. */
function holderLimitRefusal(
  store: PoolStore,
  type: string,
  holder: string,
  limits: TenantLimits,
  now: number,
): PoolOutcome | undefined {
  const limit = limits.leasesPerHolder;
  if (limit === undefined || store.liveLeasesOf(holder, now) < limit) return undefined;
  return {
    ok: false,
    status: 409,
    code: 'limit_reached',
    message: `${quoted(holder)} already holds ${limit} live lease${limit === 1 ? '' : 's'} in pool ${type}, the most a pull request may hold there (SEMAPHORE_PR_LEASES_PER_POOL on the semaphore); acquire with reuseHeld to keep the one it has, release it first, or raise the setting; nothing was changed`,
  };
}

/** Gives the slot a new lease, ending the one it had (taken over after expiry or evicted by force). */
function takeSlot(
  store: PoolStore,
  type: string,
  slot: SlotState,
  request: { holder: string; leaseMs: number; requestId?: string | undefined },
  scope: RequestScope,
  tenant: string | null,
  now: number,
): Lease {
  const ended = slot.lease;
  const event: EventKind =
    ended === null ? 'acquired' : ended.leasedUntil <= now ? 'took-expired' : 'evicted';
  const previousHolder = ended === null ? slot.lastHolder : ended.holder;
  if (ended !== null) store.forgetRequestsOf(ended.leaseId);
  const lease: CurrentLease = {
    leaseId: crypto.randomUUID(),
    holder: request.holder,
    leasedUntil: now + request.leaseMs,
    version: 1,
    wasDirty: slot.dirty,
    previousHolder,
    tenant,
    keptUntil: null,
  };
  const taken: SlotState = {
    ...slot,
    generation: slot.generation + 1,
    dirty: true,
    lease,
    lastHolder: ended === null ? slot.lastHolder : ended.holder,
    lastAcquiredAt: now,
    updatedAt: now,
  };
  store.save(taken);
  const flags: AcquireFlags = { reused: false, tookExpired: event === 'took-expired' };
  if (request.requestId !== undefined)
    store.rememberRequest(scope, request.requestId, slot.slug, lease.leaseId, flags);
  logEvent(store, taken, now, event, request.holder, {
    previousHolder,
    wasDirty: slot.dirty,
    leasedUntil: lease.leasedUntil,
  });
  return toLease(type, taken, lease, flags);
}

/**
 * Moves the end of the slot's current lease to `until` (earlier or later), as `renewed`, and counts
 * the lease's version up: a force that read the lease before this renew no longer matches. `keptUntil`
 * is set by gc's keep only: any other renew makes the lease its holder's own again.
 */
function extendLease(
  store: PoolStore,
  slot: SlotState,
  lease: CurrentLease,
  until: number,
  now: number,
  detail: Record<string, unknown>,
  keptUntil: number | null = null,
): { slot: SlotState; lease: CurrentLease } {
  const extendedLease: CurrentLease = {
    ...lease,
    leasedUntil: until,
    version: lease.version + 1,
    keptUntil,
  };
  const extended: SlotState = { ...slot, lease: extendedLease, updatedAt: now };
  store.save(extended);
  store.foldRenew({
    at: now,
    event: 'renewed',
    slug: extended.slug,
    holder: lease.holder,
    generation: extended.generation,
    detail: { leasedUntil: until, leaseVersion: extendedLease.version, ...detail },
  });
  return { slot: extended, lease: extendedLease };
}

/** The condition of a conditional force; absent fields always match. */
interface ForceCondition {
  ifHolder?: string | undefined;
  ifGeneration?: number | undefined;
  ifLeaseVersion?: number | undefined;
}

/**
 * True when the slot is no longer what the caller saw: another holder (or none), another generation,
 * or the same lease renewed since (another version).
 */
function conditionFails(slot: SlotState, condition: ForceCondition): boolean {
  return (
    (condition.ifHolder !== undefined && slot.lease?.holder !== condition.ifHolder) ||
    (condition.ifGeneration !== undefined && slot.generation !== condition.ifGeneration) ||
    (condition.ifLeaseVersion !== undefined && slot.lease?.version !== condition.ifLeaseVersion)
  );
}

/** What a failed condition says: the slot as it is now. */
function conditionFailedMessage(type: string, slot: SlotState): string {
  const version = slot.lease === null ? '' : `, lease version ${slot.lease.version}`;
  return `slot ${slot.slug} of pool ${type} is held by ${quoted(slot.lease?.holder ?? null)} at generation ${slot.generation}${version}, not what ifHolder/ifGeneration/ifLeaseVersion named; nothing was changed`;
}

function acquireSpecific(
  store: PoolStore,
  request: AcquireSpecificRequest,
  limits: TenantLimits,
  now: number,
): PoolOutcome {
  const slot = store.find(request.slug);
  if (slot === undefined) return notFound(request.type, request.slug);
  const scope: RequestScope = { kind: 'specific', slug: request.slug };
  const tenant = limits.owner?.tenant ?? null;
  const retried = retriedLease(store, request.type, scope, request, tenant);
  if (retried !== undefined) return retried;
  const live = slot.lease !== null && slot.lease.leasedUntil > now;
  // A live lease is never taken without force, whoever holds it: `null` means "somebody has it now".
  if (live && request.force !== true) return answer(null);
  if (conditionFails(slot, request)) {
    return {
      ok: false,
      status: 409,
      code: 'condition_failed',
      message: conditionFailedMessage(request.type, slot),
    };
  }
  const overLimit = holderLimitRefusal(store, request.type, request.holder, limits, now);
  if (overLimit !== undefined) return overLimit;
  // A pull request's job may not name a slot to take it past the queue: it is kept for the first in
  // line who could take it. (gc and admins take slots to erase or repair them, not to deploy.)
  if (limits.owner !== undefined && !store.queue.mayTake(request.holder, now)(slot.slug)) return answer(null);
  return answer(takeSlot(store, request.type, slot, request, scope, tenant, now));
}

/**
 * `reuseHeld`: the holder's live lease, extended to `now + leaseMs`, wherever it is (`allowedSlugs`
 * narrows only a new pick: one holder, one slot).
 */
function reuseHeldLease(
  store: PoolStore,
  request: AcquireRequest,
  scope: RequestScope,
  tenant: string | null,
  now: number,
): Lease | undefined {
  const held = store.heldBy(request.holder, tenant, now);
  if (held === undefined || held.lease === null) return undefined;
  const extended = extendLease(store, held, held.lease, now + request.leaseMs, now, { reused: true });
  const flags: AcquireFlags = { reused: true, tookExpired: false };
  if (request.requestId !== undefined)
    store.rememberRequest(scope, request.requestId, held.slug, held.lease.leaseId, flags);
  return toLease(request.type, extended.slot, extended.lease, flags);
}

function acquire(store: PoolStore, request: AcquireRequest, limits: TenantLimits, now: number): PoolOutcome {
  const scope: RequestScope = { kind: 'any' };
  const tenant = limits.owner?.tenant ?? null;
  const retried = retriedLease(store, request.type, scope, request, tenant);
  if (retried !== undefined) return retried;
  const reused = request.reuseHeld === true ? reuseHeldLease(store, request, scope, tenant, now) : undefined;
  if (reused !== undefined) return answer(reused);
  const overLimit = holderLimitRefusal(store, request.type, request.holder, limits, now);
  if (overLimit !== undefined) return overLimit;
  // Fair queue (queue.ts): nobody takes a free slot while a live waiter ahead of it could take it.
  if (request.wait === true) store.queue.join(request.holder, now, tenant, request.allowedSlugs);
  const mayTake = store.queue.mayTake(request.holder, now);
  const candidate = store.candidates(now, request.allowedSlugs).find((slot) => mayTake(slot.slug));
  if (candidate === undefined) {
    const position = store.queue.position(request.holder, now);
    if (position !== undefined) {
      const length = store.queue.summary(now).length;
      return {
        ok: false,
        status: 409,
        code: 'none_available',
        message: `no slot of pool ${request.type} may be taken now: ${quoted(request.holder)} is number ${position} of ${length} in its queue; ask again (wait) within ${QUEUE_HEARTBEAT_MS / 1000} s to keep the place`,
        queue: { position, length },
      };
    }
    return {
      ok: false,
      status: 409,
      code: 'none_available',
      message: `no slot of pool ${request.type} is available or expired${request.allowedSlugs === undefined ? '' : ' among allowedSlugs'}; try again later or add slots`,
    };
  }
  store.queue.leave(request.holder);
  return answer(takeSlot(store, request.type, candidate, request, scope, tenant, now));
}

/**
 * Takes `holder` out of the queue (its job was cancelled), so the waiters behind it move up now rather
 * than a heartbeat later. A pull request's job may take out only the entry its own tenant joined as.
 */
function leaveQueue(
  store: PoolStore,
  request: LeaveQueueRequest,
  owner: LeaseOwner | undefined,
): PoolOutcome {
  const tenant = store.queue.tenantOf(request.holder);
  if (tenant === undefined) return answer({ left: false } satisfies LeaveQueueAnswer);
  if (owner !== undefined && tenant !== owner.tenant) {
    return {
      ok: false,
      status: 403,
      code: 'forbidden',
      message: `the pull-request role (${owner.holder}) may not take ${quoted(request.holder)} out of the queue of pool ${request.type}: that waiter joined for another repository (its ids); nothing was changed`,
    };
  }
  store.queue.leave(request.holder);
  return answer({ left: true } satisfies LeaveQueueAnswer);
}

function renew(
  store: PoolStore,
  request: RenewRequest,
  owner: LeaseOwner | undefined,
  now: number,
): PoolOutcome {
  const slot = store.find(request.slug);
  if (slot === undefined) return notFound(request.type, request.slug);
  // Only the current lease renews; an expired one nobody took over is still current.
  if (slot.lease === null || slot.lease.leaseId !== request.leaseId) return answer(null);
  if (owner !== undefined && !isOwnLease(slot.lease, owner))
    return notOwnLease(owner, slot.slug, 'renew the lease on');
  const renewed = extendLease(store, slot, slot.lease, now + request.leaseMs, now, {});
  return answer(toLease(request.type, renewed.slot, renewed.lease, FRESH));
}

/**
 * gc keeps a pull request's lease (the keep label): its end moves to `now + leaseMs`, at most
 * `maxHeldMs` after the lease began, only while the slot still has the lease gc read (all three
 * conditions) and only later, never earlier. An expired lease nobody took over is still current, so
 * it can be kept; one taken over since has another generation and fails the condition.
 */
function extend(store: PoolStore, request: ExtendRequest, now: number): PoolOutcome {
  const slot = store.find(request.slug);
  if (slot === undefined) return notFound(request.type, request.slug);
  const lease = slot.lease;
  const conditionFailed = lease === null || conditionFails(slot, request);
  const start = slot.lastAcquiredAt ?? slot.createdAt;
  const cap = start + request.maxHeldMs;
  const until = Math.min(now + request.leaseMs, cap);
  if (conditionFailed || until <= lease.leasedUntil || until <= now) {
    return answer({
      extended: false,
      holder: lease?.holder ?? null,
      generation: slot.generation,
      leaseVersion: lease?.version ?? null,
      leasedUntil: lease?.leasedUntil ?? null,
      conditionFailed,
      queue: store.queue.summary(now),
    } satisfies ExtendAnswer);
  }
  const detail = withNote({ extended: true }, request.note);
  const kept = extendLease(store, slot, lease, until, now, detail, cap);
  return answer({
    extended: true,
    holder: kept.lease.holder,
    generation: kept.slot.generation,
    leaseVersion: kept.lease.version,
    leasedUntil: kept.lease.leasedUntil,
    conditionFailed: false,
    queue: store.queue.summary(now),
  } satisfies ExtendAnswer);
}

function release(
  store: PoolStore,
  request: ReleaseRequest,
  owner: LeaseOwner | undefined,
  now: number,
): PoolOutcome {
  const slot = store.find(request.slug);
  if (slot === undefined) return notFound(request.type, request.slug);
  const lease = slot.lease;
  const conditionFailed = conditionFails(slot, request);
  const releases =
    lease !== null && !conditionFailed && (request.force === true || lease.leaseId === request.leaseId);
  if (releases && owner !== undefined && !isOwnLease(lease, owner))
    return notOwnLease(owner, slot.slug, 'release the lease on');
  // A call that releases nothing changes nothing, `clean` included.
  if (!releases) {
    return answer({
      released: false,
      dirty: slot.dirty,
      holder: lease?.holder ?? null,
      generation: slot.generation,
      leaseVersion: lease?.version ?? null,
      conditionFailed,
    } satisfies ReleaseAnswer);
  }
  const released: SlotState = {
    ...slot,
    dirty: request.clean === true ? false : slot.dirty,
    lease: null,
    lastHolder: lease.holder,
    lastReleasedAt: now,
    updatedAt: now,
    ...eraseRecord(slot, request, now),
  };
  store.forgetRequestsOf(lease.leaseId);
  store.save(released);
  const detail: Record<string, unknown> = { clean: request.clean === true, dirty: released.dirty };
  if (request.eraseFailure !== undefined) detail.eraseFailure = request.eraseFailure;
  logEvent(
    store,
    released,
    now,
    request.force === true ? 'force-released' : 'released',
    lease.holder,
    withNote(detail, request.note),
  );
  return answer({
    released: true,
    dirty: released.dirty,
    holder: lease.holder,
    generation: released.generation,
    leaseVersion: lease.version,
    conditionFailed: false,
  } satisfies ReleaseAnswer);
}

/**
 * The slot's erase record after a release: a clean release means an erase succeeded (the count starts
 * again), a reported failure adds one, and any other release leaves it as it was.
 */
function eraseRecord(
  slot: SlotState,
  request: ReleaseRequest,
  now: number,
): Pick<SlotState, 'eraseFailures' | 'lastEraseFailure'> {
  if (request.clean === true) return { eraseFailures: 0, lastEraseFailure: null };
  if (request.eraseFailure === undefined)
    return { eraseFailures: slot.eraseFailures, lastEraseFailure: slot.lastEraseFailure };
  return { eraseFailures: slot.eraseFailures + 1, lastEraseFailure: { ...request.eraseFailure, at: now } };
}

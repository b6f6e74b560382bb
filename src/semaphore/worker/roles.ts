// The roles a caller signs in with and what each may do. The router asks `refusal()` before a call
// reaches a pool; what only the slot's state can tell (is this lease the pull request's own?) the pool
// checks in the command's transaction, with the holder and tenant `leaseOwner()` names.
import type {
  AcquireRequest,
  AcquireSpecificRequest,
  ReleaseRequest,
  Role,
  WhoamiAnswer,
} from '../protocol.ts';
import { FORCE_CONDITIONS } from '../protocol.ts';
import type { LeaveQueueRequest } from '../queue-protocol.ts';
import type { LeaseOwner } from './pool.ts';

export type Caller =
  | { role: 'admin' | 'gc' | 'read' }
  /** A deploy job signed in with its OIDC token: its holder is the token's pull request's. */
  | { role: 'pull-request'; holder: string; repository: string; tenant: string };

/** The one holder the gc role leases as (the sweeper's and cleanup's holder). */
export const GC_ROLE_HOLDER = 'gc';

/** What each role may do, in the words a refusal and `GET /api/whoami` use. */
export const ROLE_MAY: Readonly<Record<Role, string>> = {
  admin: 'do everything: read, lease, force, mark slots dirty, add and remove slots',
  gc: `read, acquire as holder '${GC_ROLE_HOLDER}' (without reuseHeld), renew and release its own leases, force only on the full condition of what it read (ifHolder, ifGeneration and ifLeaseVersion), extend a lease on that same condition (the keep label), and record the slots' activity; it may not add, remove or mark slots dirty`,
  read: 'read the pools, the slots and their history; it may change nothing',
  'pull-request':
    "read, and acquire, renew and release only its own pull request's lease (the holder <owner>/<repo>/pr-<n> of its OIDC token, in the pools its repository may lease in), and mark the slot of that lease dirty; it may never force, release clean, add or remove slots",
};

const ACTIONS: Readonly<Record<Role, WhoamiAnswer['actions']>> = {
  admin: { forceRelease: true, markDirty: true, addSlot: true, removeSlot: true },
  gc: { forceRelease: true, markDirty: false, addSlot: false, removeSlot: false },
  read: { forceRelease: false, markDirty: false, addSlot: false, removeSlot: false },
  'pull-request': { forceRelease: false, markDirty: false, addSlot: false, removeSlot: false },
};

export function whoami(caller: Caller): WhoamiAnswer {
  return {
    role: caller.role,
    holder: caller.role === 'pull-request' ? caller.holder : null,
    may: ROLE_MAY[caller.role],
    actions: ACTIONS[caller.role],
  };
}

/** The message of a 403: what was refused, the role, and what that role may do. */
export function forbiddenMessage(caller: Caller, refused: string): string {
  const who =
    caller.role === 'pull-request' ? `the pull-request role (${caller.holder})` : `the ${caller.role} role`;
  return `${who} may not ${refused}. It may ${ROLE_MAY[caller.role]}`;
}

/** The holder and tenant a pool must find on the lease a pull-request caller renews, releases or marks; undefined for the others. */
export function leaseOwner(caller: Caller): LeaseOwner | undefined {
  return caller.role === 'pull-request' ? { holder: caller.holder, tenant: caller.tenant } : undefined;
}

/** What a caller may not do on these write routes whatever their body: undefined when it may call them. */
export function routeRefusal(
  caller: Caller,
  route: 'slots' | 'lease' | 'extend' | 'mark-dirty' | 'activity' | 'test',
): string | undefined {
  if (caller.role === 'admin') return undefined;
  if (caller.role === 'read') return 'change anything';
  switch (route) {
    case 'slots':
      return 'add or remove slots';
    case 'test':
      return 'use the test routes';
    case 'mark-dirty':
      return caller.role === 'gc' ? 'mark slots dirty' : undefined;
    // What a slot spent is gc's record (its sweep read it); a deploy job must not write another's.
    case 'activity':
      return caller.role === 'gc' ? undefined : "record the slots' activity";
    case 'lease':
      return undefined;
    // Keeping a pull request's lease past its end is gc's (the keep label it read); a deploy job
    // extends its own lease by renewing it.
    case 'extend':
      return caller.role === 'gc' ? undefined : 'extend a lease it does not hold (only gc keeps a lease)';
  }
}

/** A force of the gc role must carry every condition, so it can only end the lease it read. */
function unconditionalForce(
  body: Partial<Record<(typeof FORCE_CONDITIONS)[number], unknown>>,
): string | undefined {
  const missing = FORCE_CONDITIONS.filter((field) => body[field] === undefined);
  return missing.length === 0 ? undefined : `force without ${missing.join(' and ')}`;
}

/** The holder a new lease may be taken for: the pull request's own, the gc role's one. */
function holderRefusal(caller: Caller, holder: string): string | undefined {
  const own = caller.role === 'pull-request' ? caller.holder : caller.role === 'gc' ? GC_ROLE_HOLDER : holder;
  return holder === own ? undefined : `acquire for holder ${JSON.stringify(holder)}`;
}

export function acquireSpecificRefusal(caller: Caller, body: AcquireSpecificRequest): string | undefined {
  if (caller.role === 'admin') return undefined;
  const holder = holderRefusal(caller, body.holder);
  if (holder !== undefined || body.force !== true) return holder;
  return caller.role === 'pull-request' ? 'force a slot' : unconditionalForce(body);
}

export function acquireRefusal(caller: Caller, body: AcquireRequest): string | undefined {
  if (caller.role === 'admin') return undefined;
  const holder = holderRefusal(caller, body.holder);
  if (holder !== undefined) return holder;
  return caller.role === 'gc' && body.reuseHeld === true ? 'acquire with reuseHeld' : undefined;
}

/** Only the waiter itself (the pull request's own holder, the gc role's one) or an admin takes a waiter out of the queue. */
export function leaveQueueRefusal(caller: Caller, body: LeaveQueueRequest): string | undefined {
  if (caller.role === 'admin') return undefined;
  const own = caller.role === 'pull-request' ? caller.holder : GC_ROLE_HOLDER;
  return body.holder === own ? undefined : `take ${JSON.stringify(body.holder)} out of the queue`;
}

export function releaseRefusal(caller: Caller, body: ReleaseRequest): string | undefined {
  if (caller.role === 'admin') return undefined;
  // Only an erase may say a slot is clean: a pull request's job runs the pull request's code, so its
  // word that its own data is gone would hand that data to the next tenant.
  if (caller.role === 'pull-request' && body.clean === true)
    return 'release a slot clean: only an erase (gc, or an admin) may say a slot is clean. Release it without clean; the next gc or acquirer erases it';
  if (body.force !== true) return undefined;
  return caller.role === 'pull-request' ? 'force a release' : unconditionalForce(body);
}

// The semaphore's answers, checked field by field before use: a broken or hostile server gets a clear
// error naming the field (never its value), not a half-drawn table. Shapes: docs/semaphore-protocol.md.

export class BadAnswerError extends Error {}

/**
 * @template T
 * @typedef {(value: unknown, where: string) => T} Reader
 */

/** @param {string} where @param {string} expected @returns {never} */
function bad(where, expected) {
  throw new BadAnswerError(`the semaphore sent a bad answer: ${where || 'the answer'} is not ${expected}`);
}

/** @type {Reader<string>} */
const text = (value, where) => (typeof value === 'string' ? value : bad(where, 'a string'));
/** @type {Reader<number>} */
const count = (value, where) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    ? value
    : bad(where, 'a whole number');
/** @type {Reader<number>} */
const amount = (value, where) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0
    ? value
    : bad(where, 'a number of at least 0');
/** @type {Reader<boolean>} */
const flag = (value, where) => (typeof value === 'boolean' ? value : bad(where, 'true or false'));
/** @type {Reader<Record<string, unknown>>} */
export const record = (value, where) =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? /** @type {Record<string, unknown>} */ (value)
    : bad(where, 'an object');

/** @template T @param {Reader<T>} read @returns {Reader<T | null>} */
const nullable = (read) => (value, where) => (value === null ? null : read(value, where));
/** Fields newer semaphores send: absent reads as `fallback`. @template T @param {Reader<T>} read @param {T} fallback @returns {Reader<T>} */
const optional = (read, fallback) => (value, where) => (value === undefined ? fallback : read(value, where));
/** @template T @param {Reader<T>} read @returns {Reader<T[]>} */
const list = (read) => (value, where) =>
  Array.isArray(value) ? value.map((item, index) => read(item, `${where}[${index}]`)) : bad(where, 'a list');

/**
 * An object with these fields, each read by its reader; other fields are dropped.
 * @template {Record<string, Reader<unknown>>} S
 * @param {S} fields
 * @returns {Reader<{ [K in keyof S]: ReturnType<S[K]> }>}
 */
const object = (fields) => (value, where) => {
  const source = record(value, where);
  const entries = Object.entries(fields).map(([name, read]) => [
    name,
    read(source[name], where ? `${where}.${name}` : name),
  ]);
  return /** @type {{ [K in keyof S]: ReturnType<S[K]> }} */ (Object.fromEntries(entries));
};

/** @type {Reader<'available' | 'leased'>} */
const leaseState = (value, where) =>
  value === 'available' || value === 'leased' ? value : bad(where, "'available' or 'leased'");

const readPoolSummary = object({ type: text, slots: count, leased: count, expired: count, dirty: count });

/** gc's record of the slot's last hour (the protocol's activity record); the page reads what it draws. */
const readActivity = object({
  from: count,
  until: count,
  at: count,
  usdPerHour: amount,
  stillRunning: flag,
  figures: object({ workerRequests: amount, objectRequests: amount, alarms: amount, activeSeconds: amount }),
  buckets: list(object({ requests: amount, alarms: amount, usd: amount })),
  // What the slot's current (or last) lease cost so far, and whether it was parked for spend.
  leaseCost: optional(nullable(object({ usd: amount, coveredMs: amount, missingMs: amount })), null),
  parkedForSpend: optional(nullable(object({ at: count, usdPerHour: amount })), null),
});

export const readSlot = object({
  type: text,
  slug: text,
  leaseState,
  holder: nullable(text),
  leasedUntil: nullable(count),
  expired: flag,
  generation: count,
  leaseVersion: optional(nullable(count), null),
  keptUntil: optional(nullable(count), null),
  dirty: flag,
  lastHolder: nullable(text),
  lastAcquiredAt: nullable(count),
  lastReleasedAt: nullable(count),
  eraseFailures: optional(count, 0),
  lastEraseFailure: optional(nullable(object({ step: text, message: text, at: count })), null),
  activity: optional(nullable(readActivity), null),
});

const readEvent = object({
  at: count,
  event: text,
  holder: nullable(text),
  generation: count,
  detail: record,
});

export const readPools = object({ now: count, pools: list(readPoolSummary) });
const readWaiter = object({ position: count, holder: text, waitingSince: count });
// The pool's fair queue; a semaphore older than the queue reads as nobody waiting.
const readQueue = optional(object({ length: count, waiters: list(readWaiter) }), { length: 0, waiters: [] });
export const readSlots = object({ now: count, resources: list(readSlot), queue: readQueue });
export const readEvents = object({ events: list(readEvent) });
export const readRelease = object({
  released: flag,
  dirty: flag,
  conditionFailed: optional(flag, false),
  holder: optional(nullable(text), null),
  generation: optional(nullable(count), null),
  leaseVersion: optional(nullable(count), null),
});
export const readWhoami = object({
  role: text,
  actions: object({ forceRelease: flag, markDirty: flag, addSlot: flag, removeSlot: flag }),
});
export const readConfig = object({
  repository: nullable(text),
  repositoryProblem: optional(nullable(text), null),
});

/**
 * @typedef {ReturnType<typeof readSlot>} Slot
 * @typedef {ReturnType<typeof readQueue>} Queue
 * @typedef {ReturnType<typeof readActivity>} Activity
 * @typedef {ReturnType<typeof readEvent>} SlotEvent
 * @typedef {ReturnType<typeof readWhoami>} Whoami
 */

// The protocol's pool and slot names: 1-63 of a-z, 0-9 and '-', starting and ending with a letter or
// digit, with at least one letter.
const IDENTIFIER = /^(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** @param {string} name */
export function isIdentifier(name) {
  return IDENTIFIER.test(name);
}

// The semaphore's answers, checked field by field before the page uses them (the page is a client
// like any other: a broken or hostile server gets a clear error, not a half-drawn table). Errors name
// the field, never its value. The shapes are the protocol's (docs/semaphore-protocol.md).

export class BadAnswerError extends Error {}

/**
 * @param {string} where
 * @param {string} expected
 * @returns {never}
 */
function bad(where, expected) {
  throw new BadAnswerError(`the semaphore sent a bad answer: ${where} is not ${expected}`);
}

/** @param {unknown} value @param {string} where @returns {Record<string, unknown>} */
function object(value, where) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(where, 'an object');
  return /** @type {Record<string, unknown>} */ (value);
}

/** @param {unknown} value @param {string} where @returns {string} */
function text(value, where) {
  return typeof value === 'string' ? value : bad(where, 'a string');
}

/** @param {unknown} value @param {string} where @returns {string | null} */
function textOrNull(value, where) {
  return value === null ? null : text(value, where);
}

/** @param {unknown} value @param {string} where @returns {number} */
function count(value, where) {
  return Number.isSafeInteger(value) && /** @type {number} */ (value) >= 0
    ? /** @type {number} */ (value)
    : bad(where, 'a whole number');
}

/** @param {unknown} value @param {string} where @returns {number | null} */
function countOrNull(value, where) {
  return value === null ? null : count(value, where);
}

/** @param {unknown} value @param {string} where @returns {boolean} */
function flag(value, where) {
  return typeof value === 'boolean' ? value : bad(where, 'true or false');
}

/**
 * @template T
 * @param {unknown} value
 * @param {string} where
 * @param {(item: unknown, where: string) => T} read
 * @returns {T[]}
 */
function list(value, where, read) {
  if (!Array.isArray(value)) bad(where, 'a list');
  return /** @type {unknown[]} */ (value).map((item, index) => read(item, `${where}[${index}]`));
}

/**
 * @typedef {{ type: string, slots: number, leased: number, expired: number, dirty: number }} PoolSummary
 * @typedef {{ now: number, pools: PoolSummary[] }} PoolsAnswer
 * @typedef {{ step: string, message: string, at: number }} EraseFailure
 * @typedef {{
 *   type: string, slug: string, leaseState: 'available' | 'leased', holder: string | null,
 *   leasedUntil: number | null, expired: boolean, generation: number, dirty: boolean,
 *   lastHolder: string | null, lastAcquiredAt: number | null, lastReleasedAt: number | null,
 *   eraseFailures: number, lastEraseFailure: EraseFailure | null
 * }} Slot
 * @typedef {{ now: number, resources: Slot[] }} SlotsAnswer
 * @typedef {{ at: number, event: string, holder: string | null, generation: number, detail: Record<string, unknown> }} SlotEvent
 * @typedef {{ released: boolean, dirty: boolean, conditionFailed: boolean, holder: string | null, generation: number | null }} ReleaseAnswer
 * @typedef {{ repository: string | null, repositoryProblem: string | null }} ConsoleConfig
 */

/** @param {unknown} value @returns {PoolsAnswer} */
export function readPools(value) {
  const answer = object(value, 'the answer');
  return {
    now: count(answer.now, 'now'),
    pools: list(answer.pools, 'pools', (item, where) => {
      const pool = object(item, where);
      return {
        type: text(pool.type, `${where}.type`),
        slots: count(pool.slots, `${where}.slots`),
        leased: count(pool.leased, `${where}.leased`),
        expired: count(pool.expired, `${where}.expired`),
        dirty: count(pool.dirty, `${where}.dirty`),
      };
    }),
  };
}

/** @param {unknown} value @param {string} [where] @returns {Slot} */
export function readSlot(value, where = 'the answer') {
  const slot = object(value, where);
  const leaseState =
    slot.leaseState === 'leased' || slot.leaseState === 'available' ? slot.leaseState : undefined;
  // Optional fields of newer semaphores (erase failures): absent means none recorded.
  const failure =
    slot.lastEraseFailure === undefined || slot.lastEraseFailure === null
      ? null
      : object(slot.lastEraseFailure, `${where}.lastEraseFailure`);
  return {
    type: text(slot.type, `${where}.type`),
    slug: text(slot.slug, `${where}.slug`),
    leaseState: leaseState ?? bad(`${where}.leaseState`, "'available' or 'leased'"),
    holder: textOrNull(slot.holder, `${where}.holder`),
    leasedUntil: countOrNull(slot.leasedUntil, `${where}.leasedUntil`),
    expired: flag(slot.expired, `${where}.expired`),
    generation: count(slot.generation, `${where}.generation`),
    dirty: flag(slot.dirty, `${where}.dirty`),
    lastHolder: textOrNull(slot.lastHolder, `${where}.lastHolder`),
    lastAcquiredAt: countOrNull(slot.lastAcquiredAt, `${where}.lastAcquiredAt`),
    lastReleasedAt: countOrNull(slot.lastReleasedAt, `${where}.lastReleasedAt`),
    eraseFailures: slot.eraseFailures === undefined ? 0 : count(slot.eraseFailures, `${where}.eraseFailures`),
    lastEraseFailure:
      failure === null
        ? null
        : {
            step: text(failure.step, `${where}.lastEraseFailure.step`),
            message: text(failure.message, `${where}.lastEraseFailure.message`),
            at: count(failure.at, `${where}.lastEraseFailure.at`),
          },
  };
}

/** @param {unknown} value @returns {SlotsAnswer} */
export function readSlots(value) {
  const answer = object(value, 'the answer');
  return { now: count(answer.now, 'now'), resources: list(answer.resources, 'resources', readSlot) };
}

/** @param {unknown} value @returns {SlotEvent[]} */
export function readEvents(value) {
  return list(object(value, 'the answer').events, 'events', (item, where) => {
    const event = object(item, where);
    return {
      at: count(event.at, `${where}.at`),
      event: text(event.event, `${where}.event`),
      holder: textOrNull(event.holder, `${where}.holder`),
      generation: count(event.generation, `${where}.generation`),
      detail: object(event.detail, `${where}.detail`),
    };
  });
}

/** @param {unknown} value @returns {ReleaseAnswer} */
export function readRelease(value) {
  const answer = object(value, 'the answer');
  return {
    released: flag(answer.released, 'released'),
    dirty: flag(answer.dirty, 'dirty'),
    conditionFailed:
      answer.conditionFailed === undefined ? false : flag(answer.conditionFailed, 'conditionFailed'),
    holder: answer.holder === undefined ? null : textOrNull(answer.holder, 'holder'),
    generation: answer.generation === undefined ? null : count(answer.generation, 'generation'),
  };
}

/** @param {unknown} value @returns {ConsoleConfig} */
export function readConfig(value) {
  const answer = object(value, 'the answer');
  return {
    repository: textOrNull(answer.repository, 'repository'),
    repositoryProblem:
      answer.repositoryProblem === undefined ? null : text(answer.repositoryProblem, 'repositoryProblem'),
  };
}

// The protocol's pool and slot names: 1-63 of a-z, 0-9 and '-', starting and ending with a letter or
// digit, with at least one letter.
const IDENTIFIER = /^(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** @param {string} name */
export function isIdentifier(name) {
  return IDENTIFIER.test(name);
}

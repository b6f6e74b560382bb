// The semaphore's /api, called with the signed-in token as the bearer header. The token goes into
// that header and nowhere else: never a URL, never a message, never the console.
import {
  readConfig,
  readEvents,
  readPools,
  readRelease,
  readSlot,
  readSlots,
  readWhoami,
  record,
} from './answers.js';
import { observeServerNow } from './clock.js';

/** Longest server message the page shows; the rest is cut. */
const MAX_MESSAGE = 300;

export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status, 0 when the semaphore could not be reached
   * @param {string} code the protocol's error code, or `network` / `bad_answer`
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** @param {string} segment */
const part = (segment) => encodeURIComponent(segment);

/** @param {unknown} body @param {number} status @returns {ApiError} */
function errorOf(body, status) {
  const error = typeof body === 'object' && body !== null && 'error' in body ? body.error : undefined;
  const fields =
    typeof error === 'object' && error !== null ? /** @type {Record<string, unknown>} */ (error) : {};
  const code = typeof fields.code === 'string' ? fields.code : 'unknown';
  const message =
    typeof fields.message === 'string' ? fields.message.slice(0, MAX_MESSAGE) : `HTTP ${status}`;
  return new ApiError(status, code, message);
}

export class Api {
  #token;

  /** @param {string} token */
  constructor(token) {
    this.#token = token;
  }

  /**
   * @template T
   * @param {import('./answers.js').Reader<T>} read checks the answer
   * @param {'GET' | 'POST' | 'DELETE'} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<T>}
   */
  async #call(read, method, path, body) {
    /** @type {Record<string, string>} */
    const headers = { authorization: `Bearer ${this.#token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const sentAt = Date.now();
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
        redirect: 'error',
      });
    } catch (error) {
      throw new ApiError(
        0,
        'network',
        `could not reach the semaphore (${error instanceof Error ? error.message : 'network error'})`,
      );
    }
    const receivedAt = Date.now();
    let answer;
    try {
      answer = await response.json();
    } catch {
      throw new ApiError(
        response.status,
        'bad_answer',
        `the semaphore answered HTTP ${response.status} without JSON`,
      );
    }
    if (!response.ok) throw errorOf(answer, response.status);
    if (Number.isSafeInteger(answer?.now)) observeServerNow(answer.now, sentAt, receivedAt);
    return read(answer, '');
  }

  /** Checks the token, too: the first call after signing in. */
  config() {
    return this.#call(readConfig, 'GET', '/api/console/config');
  }

  whoami() {
    return this.#call(readWhoami, 'GET', '/api/whoami');
  }

  pools() {
    return this.#call(readPools, 'GET', '/api/pools');
  }

  /** @param {string} type */
  slots(type) {
    return this.#call(readSlots, 'GET', `/api/resources?type=${part(type)}`);
  }

  /** @param {string} type @param {string} slug */
  slot(type, slug) {
    return this.#call(readSlot, 'GET', `/api/resources/${part(type)}/${part(slug)}`);
  }

  /** @param {string} type @param {string} slug @param {number} limit the newest `limit` events */
  async events(type, slug, limit) {
    const path = `/api/resources/${part(type)}/${part(slug)}/events?limit=${limit}`;
    return (await this.#call(readEvents, 'GET', path)).events;
  }

  /**
   * Releases only the lease the page showed (holder, generation, version): the semaphore checks.
   * @param {{ type: string, slug: string, holder: string, generation: number, leaseVersion: number | null, note: string }} shown
   */
  forceRelease({ type, slug, holder, generation, leaseVersion, note }) {
    const ifLeaseVersion = leaseVersion ?? undefined;
    const request = {
      type,
      slug,
      force: true,
      ifHolder: holder,
      ifGeneration: generation,
      ifLeaseVersion,
      note,
    };
    return this.#call(readRelease, 'POST', '/api/resources/release', request);
  }

  /** @param {{ type: string, slug: string, note: string }} request */
  markDirty(request) {
    return this.#call(readSlot, 'POST', '/api/resources/mark-dirty', request);
  }

  /** @param {{ type: string, slug: string, dirty: boolean, note: string }} request */
  add({ type, slug, dirty, note }) {
    return this.#call(readSlot, 'POST', '/api/resources', {
      type,
      slug,
      note,
      ...(dirty ? { dirty: true } : {}),
    });
  }

  /**
   * Removes the slot only at the generation shown and, unless `allowDirty`, clean.
   * @param {{ type: string, slug: string, generation: number, allowDirty: boolean, note: string }} request
   */
  async remove({ type, slug, generation, allowDirty, note }) {
    // No body: the condition and note are query parameters.
    const query = new URLSearchParams({
      ifGeneration: String(generation),
      allowDirty: String(allowDirty),
      note,
    });
    await this.#call(record, 'DELETE', `/api/resources/${part(type)}/${part(slug)}?${query}`);
  }
}

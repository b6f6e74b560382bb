// Shared by the semaphore tests: raw HTTP calls (to see exact statuses and bodies) and bounded polling.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { SemaphoreClient, SemaphoreError } from '../../src/semaphore/client.ts';
import {
  type LocalSemaphore,
  type LocalSemaphoreOptions,
  startLocalSemaphore,
} from '../../src/semaphore/local.ts';
import type { Slot } from '../../src/semaphore/protocol.ts';

export interface RawAnswer {
  status: number;
  body: unknown;
  text: string;
}

export interface RawOptions {
  body?: unknown;
  /** Sent as is (no JSON encoding) when a string. */
  rawBody?: string | ReadableStream<Uint8Array>;
  /** `undefined`: the right token; `null`: no Authorization header. */
  authorization?: string | null;
}

export async function raw(
  semaphore: LocalSemaphore,
  method: string,
  path: string,
  options: RawOptions = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = {};
  const authorization =
    options.authorization === undefined ? `Bearer ${semaphore.token}` : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${semaphore.url}${path}`, {
    method,
    headers,
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}

/** Asserts a protocol error answer and returns it. */
export function expectError(
  answer: RawAnswer,
  status: number,
  code: string,
): { message: string; issues?: unknown } {
  expect({
    status: answer.status,
    code: (answer.body as { error?: { code?: string } })?.error?.code,
  }).toEqual({
    status,
    code,
  });
  return (answer.body as { error: { message: string; issues?: unknown } }).error;
}

/** The SemaphoreError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function semaphoreErrorOf(promise: Promise<unknown>): Promise<SemaphoreError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SemaphoreError);
  return error as SemaphoreError;
}

export function clientFor(semaphore: LocalSemaphore): SemaphoreClient {
  return new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
}

/** One local semaphore for a whole test file: started before its tests, stopped after them. */
export function semaphoreForFile(options: LocalSemaphoreOptions = {}): {
  readonly semaphore: LocalSemaphore;
  readonly client: SemaphoreClient;
} {
  let started: { semaphore: LocalSemaphore; client: SemaphoreClient } | undefined;
  beforeAll(async () => {
    const semaphore = await startLocalSemaphore(options);
    started = { semaphore, client: clientFor(semaphore) };
  });
  afterAll(async () => {
    await started?.semaphore.stop();
  });
  const get = () => {
    if (started === undefined) throw new Error('the local semaphore is used before beforeAll started it');
    return started;
  };
  return {
    get semaphore() {
      return get().semaphore;
    },
    get client() {
      return get().client;
    },
  };
}

/**
 * Runs `before` against a semaphore that persists its state to a fresh directory, stops it, and runs
 * `after` against a new semaphore on the same directory: what a restart keeps.
 */
export async function acrossRestart(
  before: (client: SemaphoreClient) => Promise<void>,
  after: (client: SemaphoreClient) => Promise<void>,
): Promise<void> {
  const persistDir = await mkdtemp(join(tmpdir(), 'semaphore-restart-'));
  try {
    for (const step of [before, after]) {
      const semaphore = await startLocalSemaphore({ persistDir });
      try {
        await step(clientFor(semaphore));
      } finally {
        await semaphore.stop();
      }
    }
  } finally {
    await rm(persistDir, { recursive: true, force: true });
  }
}

/**
 * Removes a slot as it is now: read, then removed on the condition of the generation just read,
 * dirty or not (tests that are not about the removal's condition).
 */
export async function removeAsItIs(
  client: SemaphoreClient,
  type: string,
  slug: string,
  options: { note?: string } = {},
): Promise<void> {
  const { generation } = await client.find(type, slug);
  await client.remove(type, slug, { ifGeneration: generation, allowDirty: true, ...options });
}

/** Polls `check` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function pollUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the server's own clock says the slot's lease expired. */
export async function waitForExpiry(client: SemaphoreClient, type: string, slug: string): Promise<void> {
  await pollUntil(`the lease of ${type}/${slug} to expire`, async () => {
    const { resources } = await client.list(type);
    return resources.find((slot) => slot.slug === slug)?.expired === true ? true : undefined;
  });
}

let poolCounter = 0;
/** A pool type no other test uses, so tests sharing one semaphore do not see each other. */
export function freshPool(name: string): string {
  poolCounter += 1;
  return `${name}-${poolCounter}`;
}

/** Waits until the server's clock is past `at`, so the next change gets a later timestamp than `at`. */
export async function waitForServerTimeAfter(
  client: SemaphoreClient,
  type: string,
  at: number,
): Promise<void> {
  await pollUntil(`the server clock to pass ${at}`, async () =>
    (await client.list(type)).now > at ? true : undefined,
  );
}

/** The record of a slot just added at `at`, as the protocol defines a new slot. */
export function newSlotRecord(type: string, slug: string, at: number): Slot {
  return {
    type,
    slug,
    data: {},
    leaseState: 'available',
    holder: null,
    leasedUntil: null,
    expired: false,
    generation: 0,
    leaseVersion: null,
    keptUntil: null,
    dirty: false,
    lastHolder: null,
    lastAcquiredAt: null,
    lastReleasedAt: null,
    createdAt: at,
    updatedAt: at,
    eraseFailures: 0,
    lastEraseFailure: null,
    activity: null,
  };
}

// The semaphore protocol, described in docs/semaphore-protocol.md (running the Worker: docs/semaphore.md).
// One set of zod schemas serves both ends: the Worker validates requests with them and the
// client validates answers with them, so the two cannot drift apart.
import * as z from '../zod.ts';
import { lazySchema } from './lazy-schema.ts';

export const MIN_LEASE_MS = 1_000;
export const MAX_LEASE_MS = 2_592_000_000; // 30 days
export const MAX_DATA_BYTES = 8 * 1024;
/** Levels of objects and arrays in `data`, the data object itself counting as 1. */
export const MAX_DATA_DEPTH = 32;
export const MAX_BODY_BYTES = 64 * 1024;
/**
 * The limits below fit together: the largest answer (a listing of MAX_SLOTS_PER_POOL slots, each with
 * MAX_DATA_BYTES of data and the longest holders and erase failure; MAX_EVENTS_LIMIT of the largest
 * events; MAX_POOLS pools) stays under MAX_ANSWER_BYTES, the most a client reads of one answer.
 * test/semaphore/limits.unit.test.ts checks the arithmetic.
 */
export const MAX_SLOTS_PER_POOL = 256;
export const MAX_POOLS = 1_000;
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
export const MAX_HOLDER_CODE_POINTS = 200;
export const MAX_NOTE_CODE_POINTS = 200;
export const MAX_ERASE_STEP_CODE_POINTS = 100;
export const MAX_ERASE_MESSAGE_CODE_POINTS = 500;
export const MAX_REQUEST_ID_CODE_POINTS = 100;
export const DEFAULT_EVENTS_LIMIT = 50;
/** Waiters a listing names (its `queue.length` counts them all): the answer stays bounded however many wait. */
export const MAX_LISTED_WAITERS = 100;
export const MAX_EVENTS_LIMIT = 500;

/** What a bearer token can be, as an Authorization header carries it: printable ASCII without spaces. */
export const BEARER_TOKEN = /^[\x21-\x7e]+$/;

/**
 * The one rule for a pool's name and a slot's slug, everywhere (the protocol, the slot config, the
 * settings, the CLI): 1-63 of a-z, 0-9 and '-', starting and ending with a letter or digit, with at
 * least one letter. A slug is a DNS label and a resource name part, so no '_' and no upper case.
 */
export const IDENTIFIER = /^(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** IDENTIFIER in words, for messages. */
export const IDENTIFIER_RULE =
  "1-63 characters of a-z, 0-9 and '-', start and end with a letter or digit and contain a letter";
// Unicode's control characters (Cc) are exactly U+0000-U+001F and U+007F-U+009F, which a holder may not contain.
const CONTROL_CHARACTER = /\p{Cc}/u;

const codePoints = (value: string): number => [...value].length;

const identifier = (what: string) =>
  z.string().regex(IDENTIFIER, {
    error: `${what} must be ${IDENTIFIER_RULE}`,
  });

export const poolTypeSchema = lazySchema(() => identifier('type'));
export const slugSchema = lazySchema(() => identifier('slug'));

/**
 * Free text that people read (holders, notes, erase failures): well-formed Unicode (a lone surrogate
 * cannot be stored faithfully), 1-`max` code points, and no control characters, so a value can never
 * break a log line or start a new one.
 */
const plainText = (what: string, max: number) =>
  z
    .string()
    .refine((value) => value.isWellFormed(), { error: `${what} must be well-formed Unicode` })
    .refine((value) => codePoints(value) >= 1 && codePoints(value) <= max, {
      error: `${what} must be 1-${max} characters`,
    })
    .refine((value) => !CONTROL_CHARACTER.test(value), {
      error: `${what} must not contain control characters (U+0000-U+001F, U+007F-U+009F)`,
    });

/**
 * A holder is a name, never prose: 1-200 of ASCII letters, digits and `-_.:@/`, nothing that can look
 * like another character (a Cyrillic р, a no-break space) or write a sentence into a page.
 */
export const HOLDER = /^[A-Za-z0-9_.:@/-]{1,200}$/;
/** HOLDER in words, for messages. */
export const HOLDER_RULE = '1-200 characters of ASCII letters, digits and - _ . : @ /, no spaces';

/** Whether a holder follows the rule; one stored by an older semaphore may not, and is shown flagged. */
export function isHolderName(holder: string): boolean {
  return HOLDER.test(holder);
}

/** The holder of a new lease (acquire, acquire-specific). */
export const holderSchema = lazySchema(() =>
  z.string().regex(HOLDER, { error: `holder must be ${HOLDER_RULE}` }),
);
/**
 * A holder as a semaphore may have stored it: older ones took any text without control characters.
 * Answers and a force's `ifHolder` take such a holder as it is (never rewritten), so a client can
 * still show it, flagged, and end its lease.
 */
export const storedHolderSchema = lazySchema(() => plainText('holder', MAX_HOLDER_CODE_POINTS));
/** An operator's note, kept in the event the call writes (`detail.note`). */
export const noteSchema = lazySchema(() => plainText('note', MAX_NOTE_CODE_POINTS));
/** Which erase step failed and why, reported with a dirty release (see `eraseFailures`). */
export const eraseFailureSchema = lazySchema(() =>
  z.strictObject({
    step: plainText('step', MAX_ERASE_STEP_CODE_POINTS),
    message: plainText('message', MAX_ERASE_MESSAGE_CODE_POINTS),
  }),
);

export const leaseMsSchema = lazySchema(() =>
  z
    .int({ error: 'leaseMs must be an integer number of milliseconds' })
    .min(MIN_LEASE_MS, { error: `leaseMs must be at least ${MIN_LEASE_MS}` })
    .max(MAX_LEASE_MS, { error: `leaseMs must be at most ${MAX_LEASE_MS} (30 days)` }),
);

export const requestIdSchema = lazySchema(() =>
  z.string().refine((value) => codePoints(value) >= 1 && codePoints(value) <= MAX_REQUEST_ID_CODE_POINTS, {
    error: `requestId must be 1-${MAX_REQUEST_ID_CODE_POINTS} characters`,
  }),
);

/** True when `value` nests deeper than `limit`; never looks deeper than that, so it cannot overflow. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  return Object.values(value).some((child) => nestsDeeperThan(child, limit - 1));
}

export const slotDataSchema = lazySchema(() =>
  z
    .record(z.string(), z.unknown(), { error: 'data must be a JSON object' })
    // Checked first and alone: measuring the size serialises the value, which a deep enough one overflows.
    .refine((value) => !nestsDeeperThan(value, MAX_DATA_DEPTH), {
      error: `data must nest objects and arrays at most ${MAX_DATA_DEPTH} levels deep`,
      abort: true,
    })
    .refine((value) => new TextEncoder().encode(JSON.stringify(value)).byteLength <= MAX_DATA_BYTES, {
      error: `data must be at most ${MAX_DATA_BYTES} bytes of UTF-8 JSON`,
    }),
);

/**
 * A lease id is a UUID (RFC 9562: 32 hex digits in groups of 8-4-4-4-12, joined by hyphens); the
 * Worker sends random (version 4) ones in lower case. Nothing else, so a lease id is safe to print
 * and to put in a suggested command.
 */
export const leaseIdSchema = lazySchema(() =>
  z.uuid({ error: 'leaseId must be a UUID (8-4-4-4-12 hex digits)' }),
);

export const generationSchema = lazySchema(() =>
  z
    .int({ error: 'generation must be a non-negative integer' })
    .nonnegative({ error: 'generation must be a non-negative integer' }),
);

/** A lease's version: 1 when it begins, one more with every renew or extend (`reuseHeld`). */
export const leaseVersionSchema = lazySchema(() =>
  z
    .int({ error: 'leaseVersion must be a positive integer' })
    .positive({ error: 'leaseVersion must be a positive integer' }),
);

/**
 * The condition of a conditional force: the server changes the slot only while its lease is still
 * `ifHolder`'s, the slot is still at `ifGeneration` (the fencing token read from the listing) and the
 * lease is still at `ifLeaseVersion` (no renew since), so "take away pr-7's lease" can never take away
 * the lease pr-8 got in between, nor the one pr-7 renewed after the read (a reopened pull request).
 */
const forceConditionFields = () => ({
  ifHolder: storedHolderSchema.optional(),
  ifGeneration: generationSchema.optional(),
  ifLeaseVersion: leaseVersionSchema.optional(),
});

export const FORCE_CONDITIONS = ['ifHolder', 'ifGeneration', 'ifLeaseVersion'] as const;

/** A condition only makes sense on a force: without it the call never takes anyone's live lease. */
function conditionNeedsForce(
  body: { force?: boolean | undefined } & Partial<Record<(typeof FORCE_CONDITIONS)[number], unknown>>,
  context: z.RefinementCtx,
): void {
  if (body.force === true) return;
  for (const field of FORCE_CONDITIONS) {
    if (body[field] !== undefined) {
      context.addIssue({
        code: 'custom',
        path: [field],
        message: `${field} is a condition on force: true; send it only together with force: true`,
      });
    }
  }
}

// Request bodies are strict: a misspelt optional field (`claen`, `forse`) must be refused, not
// silently ignored, because ignoring it changes what the call does.
export const addRequestSchema = lazySchema(() =>
  z.strictObject({
    type: poolTypeSchema,
    slug: slugSchema,
    data: slotDataSchema.optional(),
    /** Adopt a slot that already holds data: it starts dirty, so the next gc erases it. */
    dirty: z.boolean().optional(),
    note: noteSchema.optional(),
  }),
);

export const markDirtyRequestSchema = lazySchema(() =>
  z.strictObject({
    type: poolTypeSchema,
    slug: slugSchema,
    note: noteSchema.optional(),
  }),
);

export const acquireSpecificRequestSchema = lazySchema(() =>
  z
    .strictObject({
      type: poolTypeSchema,
      slug: slugSchema,
      holder: holderSchema,
      leaseMs: leaseMsSchema,
      force: z.boolean().optional(),
      ...forceConditionFields(),
      requestId: requestIdSchema.optional(),
    })
    .superRefine(conditionNeedsForce),
);

export const acquireRequestSchema = lazySchema(() =>
  z.strictObject({
    type: poolTypeSchema,
    holder: holderSchema,
    leaseMs: leaseMsSchema,
    allowedSlugs: z
      .array(slugSchema)
      .min(1, { error: 'allowedSlugs must not be empty (leave it out to allow every slot)' })
      .refine((slugs) => new Set(slugs).size === slugs.length, { error: 'allowedSlugs must be unique' })
      .optional(),
    /** When `holder` already holds a live lease in the pool, extend and answer that one (`reused: true`). */
    reuseHeld: z.boolean().optional(),
    requestId: requestIdSchema.optional(),
    /** Wait in the pool's queue: join it (or keep its place) when no slot may be taken now (issue 31). */
    wait: z.boolean().optional(),
  }),
);

export const renewRequestSchema = lazySchema(() =>
  z.strictObject({
    type: poolTypeSchema,
    slug: slugSchema,
    leaseId: leaseIdSchema,
    leaseMs: leaseMsSchema,
  }),
);

/**
 * `POST /api/resources/extend` (issue 31's keep label): gc moves the end of a lease it does not hold
 * (a pull request's) later, only while the slot still has the lease gc read: the three conditions are
 * required, so the check and the change are one transaction and never a check-then-act. `leaseMs`
 * from the server's now, never later than `lastAcquiredAt + maxHeldMs` (the keep's cap, checked by the
 * server against the lease's own start), and never earlier than the lease's end already is.
 */
export const extendRequestSchema = lazySchema(() =>
  z.strictObject({
    type: poolTypeSchema,
    slug: slugSchema,
    ifHolder: storedHolderSchema,
    ifGeneration: generationSchema,
    ifLeaseVersion: leaseVersionSchema,
    leaseMs: leaseMsSchema,
    maxHeldMs: leaseMsSchema,
    note: noteSchema.optional(),
  }),
);

export const releaseRequestSchema = lazySchema(() =>
  z
    .strictObject({
      type: poolTypeSchema,
      slug: slugSchema,
      leaseId: leaseIdSchema.optional(),
      force: z.boolean().optional(),
      ...forceConditionFields(),
      clean: z.boolean().optional(),
      eraseFailure: eraseFailureSchema.optional(),
      note: noteSchema.optional(),
    })
    .superRefine(conditionNeedsForce)
    .superRefine((body, context) => {
      if (body.eraseFailure !== undefined && body.clean === true) {
        context.addIssue({
          code: 'custom',
          path: ['eraseFailure'],
          message: 'an erase that failed leaves the slot dirty: send eraseFailure without clean: true',
        });
      }
    })
    .superRefine((body, context) => {
      // `force: false` counts as absent.
      if (body.leaseId !== undefined && body.force === true) {
        context.addIssue({
          code: 'custom',
          path: ['force'],
          message:
            'send either leaseId (release your own lease) or force: true (release any lease), not both',
        });
      } else if (body.leaseId === undefined && body.force !== true) {
        context.addIssue({
          code: 'custom',
          path: ['leaseId'],
          message: 'leaseId is required unless force is true',
        });
      }
    }),
);

export const listQuerySchema = lazySchema(() =>
  z.object({
    type: z
      .string({ error: 'the query parameter type is required: GET /api/resources?type=<pool>' })
      .pipe(poolTypeSchema),
  }),
);

export const slotPathSchema = lazySchema(() => z.object({ type: poolTypeSchema, slug: slugSchema }));

/**
 * `DELETE /api/resources/{type}/{slug}?ifGeneration=…&allowDirty=true&note=…`: a delete has no body, so
 * its condition and note are query parameters. `ifGeneration` is the generation the caller saw: a slot
 * leased since (even one whose lease lapsed again) is not removed. A dirty slot may hold a tenant's
 * data, which no sweep erases once the slot leaves the pool: it is removed only with `allowDirty=true`.
 */
export const deleteQuerySchema = lazySchema(() =>
  z.object({
    note: noteSchema.optional(),
    ifGeneration: z
      .string({
        error:
          'the query parameter ifGeneration is required: the generation of the slot as you saw it (GET the slot), so a slot leased since is not removed',
      })
      .regex(/^[0-9]{1,15}$/, { error: 'ifGeneration must be a non-negative integer' })
      .transform(Number),
    allowDirty: z
      .enum(['true', 'false'], { error: 'allowDirty must be true or false' })
      .transform((value) => value === 'true')
      .optional(),
  }),
);

export const eventsQuerySchema = lazySchema(() =>
  z.object({
    limit: z
      .string()
      .regex(/^[0-9]{1,4}$/, { error: `limit must be an integer from 1 to ${MAX_EVENTS_LIMIT}` })
      .transform(Number)
      .pipe(
        z
          .int()
          .min(1, { error: `limit must be an integer from 1 to ${MAX_EVENTS_LIMIT}` })
          .max(MAX_EVENTS_LIMIT, { error: `limit must be an integer from 1 to ${MAX_EVENTS_LIMIT}` }),
      )
      .optional(),
  }),
);

export type AddRequest = z.infer<typeof addRequestSchema>;
export type MarkDirtyRequest = z.infer<typeof markDirtyRequestSchema>;
export type EraseFailure = z.infer<typeof eraseFailureSchema>;
export type AcquireSpecificRequest = z.infer<typeof acquireSpecificRequestSchema>;
export type AcquireRequest = z.infer<typeof acquireRequestSchema>;
export type RenewRequest = z.infer<typeof renewRequestSchema>;
export type ReleaseRequest = z.infer<typeof releaseRequestSchema>;
export type ExtendRequest = z.infer<typeof extendRequestSchema>;

// Answers are validated loosely (unknown fields are dropped) so a newer server may add fields, but
// every name a caller prints or acts on (pool, slug, holder, lease id, erase failure) follows the same
// rules as in a request: an answer is data from another system and may be hostile.
/** The latest instant a JavaScript Date holds: a later "time" from a server is not a time. */
const MAX_EPOCH_MS = 8_640_000_000_000_000;
export const epochMs = lazySchema(() => z.int().nonnegative().max(MAX_EPOCH_MS));
const jsonObject = lazySchema(() => z.record(z.string(), z.unknown()));

export const slotSchema = lazySchema(() =>
  z.object({
    type: poolTypeSchema,
    slug: slugSchema,
    data: jsonObject,
    leaseState: z.enum(['available', 'leased']),
    holder: storedHolderSchema.nullable(),
    leasedUntil: epochMs.nullable(),
    expired: z.boolean(),
    generation: generationSchema,
    /** The current lease's version (null when available): a force pins it with `ifLeaseVersion`. */
    leaseVersion: leaseVersionSchema.nullable(),
    /**
     * Set while gc keeps the current lease (its last change was an extend): the most it may be kept
     * to. Null otherwise; absent from a Worker older than the keep.
     */
    keptUntil: epochMs.nullable().optional(),
    dirty: z.boolean(),
    lastHolder: storedHolderSchema.nullable(),
    lastAcquiredAt: epochMs.nullable(),
    lastReleasedAt: epochMs.nullable(),
    createdAt: epochMs,
    updatedAt: epochMs,
    /** Erases that failed in a row (dirty releases with `eraseFailure`); a clean release resets it to 0. */
    eraseFailures: z.int().nonnegative(),
    lastEraseFailure: z.object({ ...eraseFailureSchema.shape, at: epochMs }).nullable(),
    /** The slot's last hour at Cloudflare as gc last read it; absent from a Worker older than the record. */
    activity: storedActivitySchema.nullable().optional(),
  }),
);

export const leaseSchema = lazySchema(() =>
  z.object({
    type: poolTypeSchema,
    slug: slugSchema,
    data: jsonObject,
    leaseId: leaseIdSchema,
    holder: storedHolderSchema,
    expiresAt: epochMs,
    generation: z.int().positive(),
    leaseVersion: leaseVersionSchema,
    wasDirty: z.boolean(),
    previousHolder: storedHolderSchema.nullable(),
    /** `acquire` with `reuseHeld`: the holder's live lease was extended instead of a new one taken. */
    reused: z.boolean(),
    /** This acquire ended an expired lease (whose holder may have left data behind). */
    tookExpired: z.boolean(),
  }),
);

export const EVENT_KINDS = [
  'added',
  'deleted',
  'acquired',
  'took-expired',
  'evicted',
  'renewed',
  'released',
  'force-released',
  'marked-dirty',
] as const;

export const semaphoreEventSchema = lazySchema(() =>
  z.object({
    at: epochMs,
    event: z.enum(EVENT_KINDS),
    slug: slugSchema,
    holder: storedHolderSchema.nullable(),
    generation: generationSchema,
    detail: jsonObject,
  }),
);

export const healthAnswerSchema = lazySchema(() => z.object({ ok: z.literal(true), version: z.string() }));
/** One waiter of a pool's queue (issue 31): its place (1 is next), its holder, and since when it waits. */
export const waiterSchema = lazySchema(() =>
  z.object({ position: z.int().positive(), holder: storedHolderSchema, waitingSince: epochMs }),
);
/** A pool's queue in a listing: how many wait, and the first MAX_LISTED_WAITERS of them in order. */
export const poolQueueSchema = lazySchema(() =>
  z.object({ length: z.int().nonnegative(), waiters: z.array(waiterSchema).max(MAX_LISTED_WAITERS) }),
);
/** `queue`: absent from a Worker older than the fair queue. */
export const listAnswerSchema = lazySchema(() =>
  z.object({ now: epochMs, resources: z.array(slotSchema), queue: poolQueueSchema.optional() }),
);
export const deleteAnswerSchema = lazySchema(() => z.object({ deleted: z.literal(true) }));
/**
 * `holder` and `leaseVersion` are of the lease the call released, or of the current one (null: none)
 * when it released nothing; `generation` is the slot's. `conditionFailed`: a force's condition
 * (ifHolder, ifGeneration, ifLeaseVersion) did not match, so nothing changed.
 */
export const releaseAnswerSchema = lazySchema(() =>
  z.object({
    released: z.boolean(),
    dirty: z.boolean(),
    holder: storedHolderSchema.nullable(),
    generation: generationSchema,
    leaseVersion: leaseVersionSchema.nullable(),
    conditionFailed: z.boolean(),
  }),
);
/**
 * `extended`: the lease's end moved later. Otherwise a failed condition (`conditionFailed`: renewed,
 * taken or released since the read) or an end already at or past what the call allows (the cap).
 * `holder`, `leaseVersion` and `leasedUntil` are of the slot's current lease (null: none). `queue`:
 * how many wait for a slot of the pool and how long the first has waited (ms), what keeping costs.
 */
export const extendAnswerSchema = lazySchema(() =>
  z.object({
    extended: z.boolean(),
    holder: storedHolderSchema.nullable(),
    generation: generationSchema,
    leaseVersion: leaseVersionSchema.nullable(),
    leasedUntil: epochMs.nullable(),
    conditionFailed: z.boolean(),
    queue: z.object({ length: z.int().nonnegative(), oldestWaitMs: z.int().nonnegative() }),
  }),
);
export type ExtendAnswer = z.infer<typeof extendAnswerSchema>;
export const eventsAnswerSchema = lazySchema(() => z.object({ events: z.array(semaphoreEventSchema) }));
/** One pool in `GET /api/pools`: `leased` counts expired leases too; `expired` is the part of them. */
export const poolSummarySchema = lazySchema(() =>
  z.object({
    type: poolTypeSchema,
    slots: z.int().positive(),
    leased: z.int().nonnegative(),
    expired: z.int().nonnegative(),
    dirty: z.int().nonnegative(),
  }),
);
export const poolsAnswerSchema = lazySchema(() =>
  z.object({ now: epochMs, pools: z.array(poolSummarySchema) }),
);

/**
 * Who a caller is to the semaphore: `admin` (SEMAPHORE_TOKEN), `gc` (SEMAPHORE_GC_TOKEN), `read`
 * (SEMAPHORE_READ_TOKEN), or `pull-request`, a deploy job signed in with its OIDC token, whose holder
 * (`pr-<n>`) comes from the token. What each may do is in roles.ts.
 */
export const ROLES = ['admin', 'gc', 'read', 'pull-request'] as const;
export type Role = (typeof ROLES)[number];

/** `GET /api/whoami`: the caller's role, its holder (pull-request only), what it may do, in words and as the console's actions. */
export const whoamiAnswerSchema = lazySchema(() =>
  z.object({
    role: z.enum(ROLES),
    holder: holderSchema.nullable(),
    may: plainText('may', 1_000),
    actions: z.object({
      forceRelease: z.boolean(),
      markDirty: z.boolean(),
      addSlot: z.boolean(),
      removeSlot: z.boolean(),
    }),
  }),
);

export const ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'already_exists',
  'leased',
  'dirty',
  'none_available',
  'condition_failed',
  'limit_reached',
  'request_id_taken',
  'too_large',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const issueSchema = lazySchema(() =>
  z.object({
    path: z.array(z.union([z.string(), z.number()])),
    message: z.string(),
  }),
);
/** A waiting acquire's place in its 409 `none_available`: its position (1 is next) of `length` waiters. */
export const queuePlaceSchema = lazySchema(() =>
  z
    .object({ position: z.int().positive(), length: z.int().positive() })
    .refine((place) => place.position <= place.length, { error: 'position must be at most length' }),
);
export const errorBodySchema = lazySchema(() =>
  z.object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      issues: z.array(issueSchema).optional(),
      // A place that breaks its rules is dropped, not the error: the refusal itself still holds.
      queue: queuePlaceSchema.optional().catch(undefined),
    }),
  }),
);

export type Slot = z.infer<typeof slotSchema>;
export type Lease = z.infer<typeof leaseSchema>;
export type SemaphoreEvent = z.infer<typeof semaphoreEventSchema>;
export type EventKind = (typeof EVENT_KINDS)[number];
export type HealthAnswer = z.infer<typeof healthAnswerSchema>;
export type ListAnswer = z.infer<typeof listAnswerSchema>;
export type Waiter = z.infer<typeof waiterSchema>;
export type PoolQueue = z.infer<typeof poolQueueSchema>;
export type QueuePlace = z.infer<typeof queuePlaceSchema>;
export type ReleaseAnswer = z.infer<typeof releaseAnswerSchema>;
export type PoolSummary = z.infer<typeof poolSummarySchema>;
export type PoolsAnswer = z.infer<typeof poolsAnswerSchema>;
export type WhoamiAnswer = z.infer<typeof whoamiAnswerSchema>;
export type Issue = z.infer<typeof issueSchema>;
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** zod issues in the protocol's `issues` shape. */
export function toIssues(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
    message: issue.message,
  }));
}

/** One line naming every problem and where it is: `leaseMs: leaseMs must be at least 1000`. */
export function describeIssues(issues: readonly Issue[]): string {
  return issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ` : '') + issue.message)
    .join('; ');
}

// Activity: what a slot's compute did at Cloudflare in the last hour, as gc read it from Cloudflare's
// analytics (src/spend/), kept per slot so the console and `status` show it without a Cloudflare token.
// A record is numbers only: figures, twelve five-minute buckets and a dollar estimate.

/** Buckets a record may carry: the last hour's twelve five-minute parts (what gc writes). */
export const MAX_ACTIVITY_BUCKETS = 12;
/** The largest figure a record may carry; a number past it is not a count of anything an hour does. */
export const MAX_ACTIVITY_FIGURE = 1e15;

const figure = lazySchema(() =>
  z
    .number({ error: 'must be a number' })
    .finite({ error: 'must be a finite number' })
    .nonnegative({ error: 'must not be negative' })
    .max(MAX_ACTIVITY_FIGURE, { error: `must be at most ${MAX_ACTIVITY_FIGURE}` }),
);

export const activityFiguresSchema = lazySchema(() =>
  z.strictObject({
    workerRequests: figure,
    workerSubrequests: figure,
    workerCpuMs: figure,
    objectRequests: figure,
    alarms: figure,
    websocketMessages: figure,
    activeSeconds: figure,
    gbSeconds: figure,
    rowsRead: figure,
    rowsWritten: figure,
    storedBytes: figure,
  }),
);

/** What gc writes for a slot: the window it read, what it found, the estimate and whether parking failed. */
export const activityRecordSchema = lazySchema(() =>
  z
    .strictObject({
      from: epochMs,
      until: epochMs,
      usdPerHour: figure,
      figures: activityFiguresSchema,
      /** Oldest first, each covering an equal part of the window. */
      buckets: z
        .array(z.strictObject({ requests: figure, alarms: figure, usd: figure }))
        .max(MAX_ACTIVITY_BUCKETS, { error: `buckets must be at most ${MAX_ACTIVITY_BUCKETS}` }),
      /** A free slot whose compute ran after its park (and grace): gc marked it dirty to park it again. */
      stillRunning: z.boolean(),
    })
    .refine((record) => record.until > record.from, { error: 'until must be after from', path: ['until'] }),
);

/**
 * A live lease parked for spend: when the server marked it, the lease (generation) it marked, and what
 * the read that parked it found it spending. The lease stays with its holder; the next deploy runs again.
 */
export const parkedForSpendSchema = lazySchema(() =>
  z.object({ at: epochMs, generation: generationSchema, usdPerHour: figure }),
);
export type ParkedForSpend = z.infer<typeof parkedForSpendSchema>;

/**
 * What a lease cost so far, summed from gc's reads (each counted once): dollars, the end of the last
 * time counted, the time the reads covered and the time no read covered (missing, never guessed).
 */
export const leaseCostSchema = lazySchema(() =>
  z.object({ usd: figure, coveredUntil: epochMs, coveredMs: figure, missingMs: figure }),
);
export type LeaseCost = z.infer<typeof leaseCostSchema>;

/** A slot's record as listings show it: what gc wrote, when (server time), and its last spend alert. */
export const storedActivitySchema = lazySchema(() =>
  z.object({
    ...activityRecordSchema.shape,
    at: epochMs,
    /** When a spend alert about this slot's lease was last allowed (see `alert`), or null. */
    alertedAt: epochMs.nullable(),
    /** Present when the slot's current lease was parked for spend (see `overPark`). */
    parkedForSpend: parkedForSpendSchema.optional(),
    /** What the slot's current (or last) lease cost so far, from gc's reads; absent before its first read. */
    leaseCost: leaseCostSchema.optional(),
  }),
);

export const recordActivityRequestSchema = lazySchema(() =>
  z.strictObject({
    type: poolTypeSchema,
    slots: z
      .array(
        z.strictObject({
          slug: slugSchema,
          activity: activityRecordSchema,
          /**
           * The slot's live lease spends above the caller's threshold: the server allows one alert per
           * lease (generation) a day, and answers whether this one is it.
           */
          alert: z.boolean().optional(),
          /**
           * The generation the caller measured the lease at: the alert is allowed only while the slot is
           * still at it, so a lease taken since the caller's listing is neither alerted in the last
           * holder's name nor has its own alert of the day used up.
           */
          ifGeneration: generationSchema.optional(),
          /**
           * The slot's live lease spends above the caller's park threshold in this read. Counted per
           * lease (with ifGeneration) and per read (`activity.from`, so a retry counts once): the
           * second such read in a row marks the lease parked for spend, and the answer's
           * `parkForSpend` names it. Any other read of the lease starts the count again.
           */
          overPark: z.boolean().optional(),
        }),
      )
      .min(1, { error: 'slots must not be empty' })
      .max(MAX_SLOTS_PER_POOL, { error: `slots must be at most ${MAX_SLOTS_PER_POOL}` })
      .refine((slots) => new Set(slots.map((slot) => slot.slug)).size === slots.length, {
        error: 'slots must name each slug once',
      }),
  }),
);

/** `recorded`: slots whose record was written (unknown slugs are skipped); `alerted`: the alerts allowed. */
export const recordActivityAnswerSchema = lazySchema(() =>
  z.object({
    recorded: z.array(slugSchema),
    alerted: z.array(slugSchema),
    /** Leases this read marked parked for spend (`overPark`): the caller parks their compute. Absent when none. */
    parkForSpend: z.array(slugSchema).optional(),
  }),
);

export type ActivityRecord = z.infer<typeof activityRecordSchema>;
export type StoredActivity = z.infer<typeof storedActivitySchema>;
export type RecordActivityRequest = z.infer<typeof recordActivityRequestSchema>;
export type RecordActivityAnswer = z.infer<typeof recordActivityAnswerSchema>;

// The GraphQL Analytics API's answer to the spend query (query.ts), validated before any figure is
// used: an answer is data from another system. Rows are loose (Cloudflare may add fields); every
// number the estimate reads must be a non-negative number no larger than a count can be, and every
// time a time.
import * as z from '../zod.ts';

/**
 * At most 2^53: past it a number counts nothing exactly, and finite figures that large add up to
 * Infinity over a few rows ("$Infinity/h"). 50,000 rows of it still sum to a finite number.
 */
const amount = z.number().nonnegative().max(Number.MAX_SAFE_INTEGER);
/** A sum Cloudflare leaves null when no row had the field. */
const sum = amount.nullish().transform((value) => value ?? 0);
const time = z
  .string()
  .max(40)
  .refine((value) => Number.isFinite(Date.parse(value)), { error: 'is not a time' })
  .transform((value) => Date.parse(value));
/** Names and ids are shown and compared, never run: bounded, and refused with control characters. */
const name = z
  .string()
  .max(200)
  .refine((value) => !/\p{Cc}/u.test(value), { error: 'has control characters' });

const workersRow = z.looseObject({
  dimensions: z.looseObject({ scriptName: name, datetimeFiveMinutes: time }),
  sum: z.looseObject({ requests: sum, subrequests: sum, cpuTimeUs: sum }),
});

const objectsRow = z.looseObject({
  dimensions: z.looseObject({
    scriptName: name,
    namespaceId: name,
    type: name.nullish(),
    datetimeFiveMinutes: time,
  }),
  sum: z.looseObject({ requests: sum }),
});

const namespacesRow = z.looseObject({
  dimensions: z.looseObject({ scriptName: name, namespaceId: name }),
});

const computeRow = z.looseObject({
  dimensions: z.looseObject({ namespaceId: name, datetimeFiveMinutes: time }),
  sum: z.looseObject({
    activeTime: sum,
    duration: amount.nullish(),
    rowsRead: sum,
    rowsWritten: sum,
    inboundWebsocketMsgCount: sum,
  }),
});

const storageRow = z.looseObject({
  dimensions: z.looseObject({ namespaceId: name }),
  max: z.looseObject({ storedBytes: sum }),
});

const rows = <T extends z.ZodType>(row: T) =>
  z
    .array(row)
    .nullish()
    .transform((list) => list ?? []);

const spendAccountSchema = z.looseObject({
  workers: rows(workersRow),
  objects: rows(objectsRow),
  namespaces: rows(namespacesRow),
  compute: rows(computeRow),
  storage: rows(storageRow),
});
export type SpendAccount = z.output<typeof spendAccountSchema>;

/** One error of a GraphQL answer: Cloudflare's have a message, maybe a path and an extension code. */
const graphQlErrorSchema = z.looseObject({
  message: z.string(),
  extensions: z.looseObject({ code: z.string().nullish() }).nullish(),
});
export type GraphQlError = z.output<typeof graphQlErrorSchema>;

export const spendAnswerSchema = z.looseObject({
  data: z
    .looseObject({
      viewer: z.looseObject({ accounts: z.array(spendAccountSchema) }).nullish(),
    })
    .nullish(),
  errors: z.array(graphQlErrorSchema).nullish(),
});

// Input schemas of the twin: the seed (programmatic, `--seed` file, POST /__twin/seed) and fault rules.
import { z } from 'zod';

const lifecycleCondition = z.union([
  z.object({ type: z.literal('Age'), maxAge: z.number().int().nonnegative() }),
  z.object({ type: z.literal('Date'), date: z.string().min(1) }),
]);

/** One R2 lifecycle rule as the API stores it (docs/cloudflare.md#r2-lifecycle-rules). */
export const lifecycleRuleSchema = z.looseObject({
  id: z.string().min(1, 'every rule needs a non-empty id'),
  enabled: z.boolean(),
  conditions: z.looseObject({ prefix: z.string().optional() }),
  deleteObjectsTransition: z.object({ condition: lifecycleCondition }).optional(),
  abortMultipartUploadsTransition: z
    .object({ condition: z.object({ type: z.literal('Age'), maxAge: z.number().int().nonnegative() }) })
    .optional(),
  storageClassTransitions: z
    .array(z.object({ condition: lifecycleCondition, storageClass: z.literal('InfrequentAccess') }))
    .optional(),
});
export type LifecycleRule = z.infer<typeof lifecycleRuleSchema>;

export const jurisdictionSchema = z.enum(['default', 'eu', 'us', 'fedramp', 'fedramp-high']);
export type Jurisdiction = z.infer<typeof jurisdictionSchema>;

export const twinSeedSchema = z.strictObject({
  d1: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        /** Run once at seed time, several `;`-separated statements allowed (triggers too). */
        sql: z.string().optional(),
      }),
    )
    .optional(),
  kv: z
    .array(
      z.strictObject({
        title: z.string().min(1),
        keys: z.record(z.string(), z.string()).optional(),
        /** `count` keys named `<prefix><n>` (n zero-padded), value `v<n>`. */
        generate: z
          .strictObject({ prefix: z.string(), count: z.number().int().nonnegative().max(1_000_000) })
          .optional(),
      }),
    )
    .optional(),
  r2: z
    .array(
      z.strictObject({
        bucket: z.string().min(3),
        jurisdiction: jurisdictionSchema.optional(),
        /** Omitted: the default multipart-abort rule every new bucket carries. */
        rules: z.array(lifecycleRuleSchema).max(1000).optional(),
        /** R2 Data Catalog is enabled: a lifecycle PUT with `cf-r2-data-catalog-check: true` is refused. */
        dataCatalog: z.boolean().optional(),
      }),
    )
    .optional(),
  workers: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        migrationTag: z.string().min(1).optional(),
        /** true: the script uses declarative `exports` instead of migrations. */
        exportsMode: z.boolean().optional(),
        classes: z
          .array(
            z.strictObject({
              name: z.string().regex(/^[A-Za-z_$][\w$]*$/, 'a JavaScript class name'),
              sqlite: z.boolean().optional(),
              /** A DO-backed container application is created for this class. */
              container: z.boolean().optional(),
              /** How many Durable Objects the namespace holds (default 1). */
              objects: z.number().int().nonnegative().max(100_000).optional(),
            }),
          )
          .optional(),
        /**
         * Durable Object bindings of the deployed script; omitted = one binding per own class.
         * `script_name` points at another Worker's class (that Worker cannot then delete it: 10061).
         */
        bindings: z
          .array(
            z.strictObject({
              name: z.string().min(1),
              class_name: z.string().min(1),
              script_name: z.string().min(1).optional(),
            }),
          )
          .optional(),
        /**
         * Worker previews, each with its own Durable Object namespaces: listed with the Worker's
         * name in `script` and the preview in `preview`.
         */
        previews: z
          .array(
            z.strictObject({
              slug: z.string().regex(/^[a-z0-9-]{1,63}$/, 'a preview slug: a-z, 0-9 and -'),
              classes: z.array(
                z.strictObject({
                  name: z.string().min(1),
                  objects: z.number().int().min(0).max(100_000).optional(),
                }),
              ),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
});
export type TwinSeed = z.infer<typeof twinSeedSchema>;

export const faultRuleSchema = z.strictObject({
  method: z.string().toUpperCase().optional(),
  /** A route template as in the request log, e.g. 'POST /accounts/:account/d1/database/:id/query'. */
  route: z.string().optional(),
  /** A regular expression tested against the path below /client/v4. */
  pathPattern: z.string().optional(),
  /** How many matching requests the rule affects; omitted = every one until cleared. */
  times: z.number().int().positive().optional(),
  status: z.number().int().min(200).max(599).optional(),
  retryAfter: z.number().nonnegative().optional(),
  delayMs: z.number().int().nonnegative().optional(),
  reset: z.literal(true).optional(),
  malformed: z.literal(true).optional(),
  successFalse: z.literal(true).optional(),
  /** KV bulk delete only: that many of the requested keys stay and come back in unsuccessful_keys. */
  unsuccessfulKeys: z.number().int().positive().optional(),
  /** The error code and message of the injected envelope (defaults depend on the status). */
  code: z.number().int().optional(),
  message: z.string().optional(),
});
export type FaultRule = z.input<typeof faultRuleSchema>;
export type ParsedFaultRule = z.output<typeof faultRuleSchema>;

/** Says which field of which input was wrong, as one line per issue. */
export function describeIssues(error: z.ZodError, where: string): string {
  return error.issues
    .map((issue) => `${where}: ${issue.path.length ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('\n');
}

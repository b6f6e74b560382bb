// Fault rules: each matching request consumes one of the rule's `times` and gets the injected behaviour.
import { z } from 'zod';

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

interface ActiveRule {
  rule: ParsedFaultRule;
  pattern: RegExp | undefined;
  remaining: number;
}

export class FaultTable {
  private rules: ActiveRule[] = [];

  add(rule: FaultRule): void {
    const parsed = faultRuleSchema.parse(rule);
    this.rules.push({
      rule: parsed,
      pattern: parsed.pathPattern === undefined ? undefined : new RegExp(parsed.pathPattern),
      remaining: parsed.times ?? Number.POSITIVE_INFINITY,
    });
  }

  clear(): void {
    this.rules = [];
  }

  /**
   * The first live rule matching this request, with one use consumed. `route` is the full template
   * ('GET /accounts/:account/d1/database'); a rule may name it with or without the method.
   */
  take(method: string, route: string, path: string): ParsedFaultRule | undefined {
    const template = route.slice(route.indexOf(' ') + 1);
    const active = this.rules.find(
      (a) =>
        a.remaining > 0 &&
        (a.rule.method === undefined || a.rule.method === method) &&
        (a.rule.route === undefined || a.rule.route === route || a.rule.route === template) &&
        (a.pattern === undefined || a.pattern.test(path)),
    );
    if (!active) return undefined;
    active.remaining -= 1;
    return active.rule;
  }

  list(): (ParsedFaultRule & { remaining: number | null })[] {
    return this.rules
      .filter((a) => a.remaining > 0)
      .map((a) => ({ ...a.rule, remaining: Number.isFinite(a.remaining) ? a.remaining : null }));
  }
}

// Step 4: make sure the bucket's managed lifecycle rule is in place. Objects are never deleted one by
// one: the rule is the reaper. A PUT replaces the whole rule set, so the rules are read first, the
// managed rule (by id) is replaced or added, every other rule (the default multipart-abort rule,
// the team's own rules) is sent back exactly as read, and nothing is sent when nothing changed.
// The PUT asks for R2 Data Catalog's check (as wrangler does unless forced): a bucket with the
// catalog enabled refuses it, and the step is refused rather than forced.

import { CloudflareCallError } from '../../cloudflare/call-error.ts';
import { formatDurationSeconds } from '../../text/duration.ts';
import { plural } from '../../text/words.ts';
import { type EraseContext, StepError, type StepOutcome } from '../step.ts';
import { getR2Lifecycle, type LifecycleRule, putR2Lifecycle } from './api.ts';
import { bucketNoun, type SlotR2 } from './config.ts';

export interface R2Details {
  jurisdiction: string;
  rule: 'added' | 'replaced' | 'unchanged';
  /** Ids of the other rules, kept as they were. */
  keptRules: string[];
}

/** A lifecycle PUT refused because the bucket's R2 Data Catalog could be left invalid. */
const DATA_CATALOG_CONFLICT = 10081;

export function managedRule(expire: SlotR2['expire']): LifecycleRule {
  return {
    id: expire.id,
    enabled: true,
    conditions: { prefix: expire.prefix },
    deleteObjectsTransition: { condition: { type: 'Age', maxAge: expire.afterSeconds } },
  };
}

/** JSON with sorted keys and a missing prefix read as "" (rules written without one, e.g. by wrangler, carry `conditions: {}`). */
function canonical(rule: LifecycleRule): string {
  const normalised = { ...rule, conditions: { ...rule.conditions, prefix: rule.conditions?.prefix ?? '' } };
  return JSON.stringify(normalised, (_, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
}

/** The rule set to send, or null when the bucket already has exactly the managed rule. */
export function withManagedRule(
  rules: readonly LifecycleRule[],
  wanted: LifecycleRule,
): { rules: LifecycleRule[]; change: 'added' | 'replaced' } | null {
  const index = rules.findIndex((rule) => rule.id === wanted.id);
  if (index === -1) return { rules: [...rules, wanted], change: 'added' };
  const current = rules[index];
  if (current && canonical(current) === canonical(wanted)) return null;
  return { rules: rules.map((rule, position) => (position === index ? wanted : rule)), change: 'replaced' };
}

export async function eraseR2(context: EraseContext, bucket: SlotR2): Promise<StepOutcome<R2Details>> {
  const { jurisdiction } = bucket;
  const where = bucketNoun(jurisdiction);
  const rules = await getR2Lifecycle(context.api, bucket.bucket, jurisdiction);
  const wanted = managedRule(bucket.expire);
  const keptRules = rules.filter((rule) => rule.id !== wanted.id).map((rule) => rule.id);
  const kept = keptRules.length > 0 ? `; kept ${plural(keptRules.length, 'other rule')}` : '';
  const next = withManagedRule(rules, wanted);
  if (next === null) {
    return {
      status: 'unchanged',
      summary: 'rules unchanged',
      details: { jurisdiction, rule: 'unchanged', keptRules },
    };
  }
  const details: R2Details = { jurisdiction, rule: next.change, keptRules };
  const prefix = bucket.expire.prefix === '' ? 'objects' : `objects under '${bucket.expire.prefix}'`;
  const what = `rule ${wanted.id} (${prefix} expire after ${formatDurationSeconds(bucket.expire.afterSeconds)})`;
  const verb = next.change === 'added' ? 'add' : 'replace';
  if (context.dryRun) return { status: 'would-change', summary: `would ${verb} ${what}${kept}`, details };
  try {
    await putR2Lifecycle(context.api, bucket.bucket, jurisdiction, next.rules);
  } catch (error) {
    if (error instanceof CloudflareCallError && error.codes.includes(DATA_CATALOG_CONFLICT)) {
      throw new StepError(
        'refused',
        `R2 Data Catalog is enabled on ${where} '${bucket.bucket}', and Cloudflare refused new lifecycle rules that could leave the catalog invalid (code ${DATA_CATALOG_CONFLICT}); preview-gc does not override that check. Set ${what} yourself if the catalog allows it, or take the bucket out of the slot config`,
      );
    }
    throw error;
  }
  return { status: 'done', summary: `${verb === 'add' ? 'added' : 'replaced'} ${what}${kept}`, details };
}

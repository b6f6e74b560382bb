// gc keeps each slot's last hour in the semaphore (its activity record, docs/semaphore-protocol.md),
// for the console's chart and for `status` without a Cloudflare token, and asks the semaphore to allow
// the day's spend alert of each live lease above the threshold: the semaphore decides, in the same
// transaction, so an alert comes once a day per lease however many runs race.
import type { SpendAlert } from '../report/model.ts';
import {
  type ActivityRecord,
  activityRecordSchema,
  describeIssues,
  type ListAnswer,
  type RecordActivityRequest,
  toIssues,
} from '../semaphore/protocol.ts';
import { type ActivityFigures, hasActivity, type SlotActivity } from '../spend/activity.ts';
import { computeUsd, usdPerHour } from '../spend/estimate.ts';
import { redactData } from '../text/redact.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';
import type { PoolSpend } from './spend.ts';

/** A request body kept under the semaphore's 64 KiB, with room to spare. */
const MAX_WRITE_BYTES = 56 * 1024;

/** The figures the semaphore keeps: rounded, so a record stays small and reads the same every time. */
function rounded(figures: Readonly<ActivityFigures>): ActivityFigures {
  return Object.fromEntries(
    Object.entries(figures).map(([key, value]) => [key, Math.round(value * 1000) / 1000]),
  ) as unknown as ActivityFigures;
}

const roundUsd = (usd: number) => Math.round(usd * 1e6) / 1e6;

function activityRecordOf(
  activity: SlotActivity,
  window: { from: number; until: number },
  stillRunning: boolean,
): ActivityRecord {
  return {
    from: window.from,
    until: window.until,
    usdPerHour: roundUsd(usdPerHour(activity.figures)),
    figures: rounded(activity.figures),
    buckets: activity.buckets.map((bucket) => ({
      requests: Math.round(bucket.workerRequests + bucket.objectRequests),
      alarms: Math.round(bucket.alarms),
      usd: roundUsd(computeUsd(bucket)),
    })),
    stillRunning,
  };
}

/**
 * Every read of a live lease is sent with the generation it measured: the semaphore adds its cost to
 * that lease's (once per read), and, while parking is on, one below the threshold starts the park
 * count again. null when the lease is not live.
 */
function countedForPark(
  slot: ListAnswer['resources'][number],
  usdPerHour: number,
  parkAbove: number | null,
): { ifGeneration: number; overPark?: true } | null {
  if (slot.leaseState !== 'leased' || slot.expired) return null;
  const over = parkAbove !== null && usdPerHour > parkAbove;
  return { ifGeneration: slot.generation, ...(over ? { overPark: true as const } : {}) };
}

const quiet = (record: { usdPerHour: number; figures: ActivityFigures; stillRunning: boolean }) =>
  !record.stillRunning && record.usdPerHour === 0 && !hasActivity(record.figures);

/** The requests that keep the records, each under the semaphore's body limit. */
function recordRequests(pool: string, entries: RecordActivityRequest['slots']): RecordActivityRequest[] {
  const requests: RecordActivityRequest[] = [];
  let current: RecordActivityRequest['slots'] = [];
  let size = 0;
  for (const entry of entries) {
    const bytes = JSON.stringify(entry).length + 1;
    if (current.length > 0 && size + bytes > MAX_WRITE_BYTES) {
      requests.push({ type: pool, slots: current });
      current = [];
      size = 0;
    }
    current.push(entry);
    size += bytes;
  }
  if (current.length > 0) requests.push({ type: pool, slots: current });
  return requests;
}

/**
 * Why the semaphore would refuse the record (a figure past its limit), or null: such a record is left
 * out of the write rather than have the whole request, every slot's record in it, refused.
 */
function refusalOf(record: ActivityRecord): string | null {
  const checked = activityRecordSchema.safeParse(record);
  return checked.success ? null : describeIssues(toIssues(checked.error).slice(0, 1));
}

/** The alerts to raise, and the live leases the semaphore marked parked for spend with this read. */
export interface KeptRecords {
  alerts: SpendAlert[];
  parkForSpend: string[];
}

/**
 * gc: keeps each slot's record in the semaphore (a slot quiet now and in its last record is not
 * written again, so a quiet pool writes nothing) and asks it to allow the day's alert for each live
 * lease above the threshold. Answers the alerts to raise. A write that fails, or a record the
 * semaphore would refuse, is a warning, and its alerts are raised anyway: a runaway told twice beats
 * one not told.
 */
export async function keepRecords(
  ctx: Pick<CommandContext, 'semaphore' | 'pool' | 'spend'>,
  listing: ListAnswer,
  spend: PoolSpend,
  warnings: string[],
): Promise<KeptRecords> {
  const redact = ctx.spend?.redact ?? ((text: string) => text);
  const window = { from: spend.summary.from ?? 0, until: spend.summary.until ?? 0 };
  const entries: RecordActivityRequest['slots'] = [];
  const alerting = new Map<string, SpendAlert>();
  const unkept = new Set<string>();
  for (const slot of listing.resources) {
    const activity = spend.read.get(slot.slug);
    const shown = spend.bySlug.get(slot.slug);
    if (activity === undefined || shown === undefined) continue;
    const record = activityRecordOf(activity, window, shown.stillRunning);
    const stored = slot.activity;
    const alert = shown.overAlert;
    const counted = countedForPark(slot, shown.usdPerHour, ctx.spend?.parkUsdPerHour ?? null);
    if (alert && slot.holder !== null)
      alerting.set(slot.slug, {
        slug: slot.slug,
        holder: slot.holder,
        generation: slot.generation,
        usdPerHour: shown.usdPerHour,
        burning: shown.burning,
      });
    if (
      !alert &&
      counted === null &&
      quiet(record) &&
      (stored === null || stored === undefined || quiet(stored))
    )
      continue;
    const refusal = refusalOf(record);
    if (refusal !== null) {
      unkept.add(slot.slug);
      warnings.push(
        `${slot.slug}'s activity was not kept in the semaphore (${refusal}): the console shows its last record, and a spend alert about it may repeat.`,
      );
      continue;
    }
    entries.push({
      slug: slot.slug,
      activity: record,
      ...(alert ? { alert: true, ifGeneration: slot.generation } : {}),
      ...counted,
    });
  }
  const allowed = new Set<string>();
  const parkForSpend: string[] = [];
  try {
    for (const request of recordRequests(ctx.pool, entries)) {
      const answer = await ctx.semaphore.recordActivity(redactData(request, redact));
      for (const slug of answer.alerted) allowed.add(slug);
      parkForSpend.push(...(answer.parkForSpend ?? []));
    }
  } catch (error) {
    warnings.push(
      `The slots' activity was not kept in the semaphore (${oneLineError(error)}): the console shows the last records it has, and today's spend alerts may repeat.`,
    );
    return { alerts: [...alerting.values()], parkForSpend };
  }
  return {
    alerts: [...alerting.values()].filter((alert) => allowed.has(alert.slug) || unkept.has(alert.slug)),
    parkForSpend,
  };
}

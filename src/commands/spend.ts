// What the slots' compute spent in the last hour, for gc and status: one analytics read for the whole
// pool (src/spend/), or, without one, the records gc kept in the semaphore; and which parked slots still
// run. gc parks those again (sweep.ts: its acquire, a condition the semaphore checks, is what makes
// them dirty), keeps each slot's record and raises the day's alerts (spend-records.ts). A live lease is never touched. A read that fails is one
// warning: spend is something to see, never a reason for a sweep to fail.
import { CloudflareCallError } from '../cloudflare/call-error.ts';
import type { PoolRow, SlotSpend, SpendBurning, SpendSummary } from '../report/model.ts';
import type { ListAnswer, Slot } from '../semaphore/protocol.ts';
import {
  type ActivityBucket,
  type ActivityFigures,
  addFigures,
  hasCompute,
  NO_ACTIVITY,
  type SlotActivity,
  windowEndingAt,
} from '../spend/activity.ts';
import { usdPerHour, whatBurns } from '../spend/estimate.ts';
import { PRICES_AS_OF } from '../spend/prices.ts';
import type { SpendSource } from '../spend/source.ts';
import { visible } from '../text/log-text.ts';
import { formatCount } from '../text/words.ts';
import { type CommandContext, GC_HOLDER } from './context.ts';
import { oneLineError } from './error-line.ts';

/** How long after its park a slot's compute may still wind down (the old version serving, alarms in flight). */
const PARK_GRACE_MS = 5 * 60_000;

/** A parked slot whose compute ran after its park and the grace after it. */
export interface StillRunning {
  slot: Slot;
  parkedAt: number;
  /** What ran from the end of the grace on. */
  after: ActivityFigures;
}

export interface PoolSpend {
  summary: SpendSummary;
  bySlug: Map<string, SlotSpend>;
  /** This run's read, by slug (empty when the figures are the semaphore's records). */
  read: Map<string, SlotActivity>;
  stillRunning: StillRunning[];
}

const isLive = (slot: Slot) => slot.leaseState === 'leased' && !slot.expired;

/**
 * Whether the slot was parked at its last release: released clean (a verified erase parked it), added
 * clean (trusted empty), or released dirty by gc itself because its compute was still running.
 */
function parkedAtLastRelease(slot: Slot): boolean {
  if (slot.leaseState !== 'available') return false;
  if (!slot.dirty) return true;
  return slot.activity?.stillRunning === true && slot.lastHolder === GC_HOLDER;
}

/** A parked slot's compute from its park plus the grace on; null when none (or when it was not parked). */
function computeAfterPark(slot: Slot, buckets: readonly ActivityBucket[]): StillRunning | null {
  if (!parkedAtLastRelease(slot)) return null;
  // A slot added clean was never parked: it was trusted empty from the moment it was added.
  const parkedAt = slot.lastReleasedAt ?? slot.createdAt;
  const after = buckets
    .filter((bucket) => bucket.start >= parkedAt + PARK_GRACE_MS)
    .reduce<ActivityFigures>((sum, bucket) => addFigures(sum, bucket), { ...NO_ACTIVITY });
  return hasCompute(after) ? { slot, parkedAt, after } : null;
}

function burningOf(activity: SlotActivity, classNames: ReadonlyMap<string, string>): SpendBurning | null {
  const burning = whatBurns(activity.figures, activity.namespaces);
  if (burning === null || burning.part === 'worker') return burning;
  return { ...burning, className: classNames.get(burning.namespaceId) ?? null };
}

function spendOfRead(
  slot: Slot,
  activity: SlotActivity,
  window: { from: number; until: number },
  alertUsdPerHour: number,
  stillRunning: boolean,
  classNames: ReadonlyMap<string, string>,
): SlotSpend {
  const usd = usdPerHour(activity.figures);
  return {
    source: 'read',
    from: window.from,
    until: window.until,
    usdPerHour: usd,
    figures: activity.figures,
    burning: burningOf(activity, classNames),
    stillRunning,
    overAlert: isLive(slot) && usd > alertUsdPerHour,
  };
}

function spendOfRecord(slot: Slot, alertUsdPerHour: number): SlotSpend | undefined {
  const record = slot.activity;
  if (record === null || record === undefined) return undefined;
  return {
    source: 'stored',
    from: record.from,
    until: record.until,
    usdPerHour: record.usdPerHour,
    figures: record.figures,
    burning: null,
    stillRunning: record.stillRunning,
    overAlert: isLive(slot) && record.usdPerHour > alertUsdPerHour,
  };
}

/** The read's failure as the run's one warning about it: what happened and what to do. */
function readProblem(error: unknown): string {
  const detail = visible(error instanceof CloudflareCallError ? error.detail : oneLineError(error));
  const refused =
    error instanceof CloudflareCallError &&
    (error.status === 401 || error.status === 403 || /not authorized|authz/i.test(error.detail));
  const what = refused
    ? "give the Cloudflare API token 'Account Analytics: Read' (README, step 2) to see what each slot costs"
    : 'the next run reads again';
  return `The spend read (Cloudflare's GraphQL Analytics API) did not answer: ${detail}. Nothing else is affected: the sweep went on without it; ${what}.`;
}

/**
 * The pool's spend for the last hour before the listing's time: this run's read when it has one,
 * else each slot's record in the semaphore. Never throws; a failed read is one warning.
 */
export async function poolSpend(
  ctx: Pick<CommandContext, 'spend'>,
  listing: ListAnswer,
  warnings: string[],
): Promise<PoolSpend | null> {
  const spend = ctx.spend;
  if (spend === undefined || spend === null) return null;
  const stored = () =>
    new Map(
      listing.resources.flatMap((slot) => {
        const record = spendOfRecord(slot, spend.alertUsdPerHour);
        return record === undefined ? [] : [[slot.slug, record] as const];
      }),
    );
  const summary = (source: SpendSummary['source'], fields: Partial<SpendSummary> = {}): SpendSummary => ({
    source,
    from: null,
    until: null,
    alertUsdPerHour: spend.alertUsdPerHour,
    pricesAsOf: PRICES_AS_OF,
    unexplained: null,
    truncated: [],
    ...fields,
  });
  if (spend.source === null)
    return { summary: summary('stored'), bySlug: stored(), read: new Map(), stillRunning: [] };
  const window = windowEndingAt(listing.now);
  let reading: Awaited<ReturnType<SpendSource['read']>>;
  try {
    reading = await spend.source.read(
      listing.resources.map((slot) => slot.slug),
      window,
      { explainAboveUsd: spend.alertUsdPerHour },
    );
  } catch (error) {
    warnings.push(readProblem(error));
    return { summary: summary('failed'), bySlug: stored(), read: new Map(), stillRunning: [] };
  }
  const stillRunning = listing.resources.flatMap((slot) => {
    const activity = reading.slots.get(slot.slug);
    const found = activity === undefined ? null : computeAfterPark(slot, activity.buckets);
    return found === null ? [] : [found];
  });
  const running = new Set(stillRunning.map((found) => found.slot.slug));
  const overAlert = listing.resources.some((slot) => {
    const activity = reading.slots.get(slot.slug);
    return activity !== undefined && isLive(slot) && usdPerHour(activity.figures) > spend.alertUsdPerHour;
  });
  // Which class burns is worth a request only when someone is to be told.
  const owners: ReadonlyMap<string, { className: string }> = overAlert
    ? await spend.source.owners()
    : new Map();
  const classNames = new Map([...owners].map(([id, owner]) => [id, owner.className]));
  const bySlug = new Map<string, SlotSpend>();
  for (const slot of listing.resources) {
    const activity = reading.slots.get(slot.slug);
    if (activity === undefined) continue;
    bySlug.set(
      slot.slug,
      spendOfRead(slot, activity, window, spend.alertUsdPerHour, running.has(slot.slug), classNames),
    );
  }
  if (reading.truncated.length > 0)
    warnings.push(
      `The spend read may be incomplete: ${reading.truncated.join(', ')} answered as many rows as a query may ask for, so the smallest figures may be missing.`,
    );
  return {
    summary: summary('read', {
      from: window.from,
      until: window.until,
      unexplained: reading.unexplained.namespaces > 0 ? reading.unexplained : null,
      truncated: reading.truncated,
    }),
    bySlug,
    read: reading.slots,
    stillRunning,
  };
}

/** "720 alarms, 2.1 object-hours of Durable Object time": what ran after a park, for a person. */
export function ranText(figures: Readonly<ActivityFigures>): string {
  const parts = [
    figures.alarms > 0 ? `${formatCount(Math.round(figures.alarms))} alarms` : '',
    figures.objectRequests - figures.alarms > 0
      ? `${formatCount(Math.round(figures.objectRequests - figures.alarms))} Durable Object requests`
      : '',
    figures.activeSeconds > 0 ? `${(figures.activeSeconds / 3600).toFixed(1)} object-hours active` : '',
    figures.workerSubrequests > 0
      ? `${formatCount(Math.round(figures.workerSubrequests))} Worker subrequests`
      : '',
  ];
  return parts.filter(Boolean).join(', ') || 'activity';
}

/** The pool's rows with each slot's spend beside them. */
export function withSpend(rows: PoolRow[] | null, spend: PoolSpend | null): PoolRow[] | null {
  if (rows === null || spend === null) return rows;
  return rows.map((row) => {
    const found = spend.bySlug.get(row.slug);
    return found === undefined ? row : { ...row, spend: found };
  });
}

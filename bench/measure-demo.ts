// Measurements 1 and 2 on the demo pool (three expired leases, two live, two dirty, two clean):
// the requests a sweep spends per reclaimed slot, by kind, next to the lower bound from the slots'
// data; then a second sweep over the same pool, which has nothing left to do (the quiet sweep).
import { DEMO_CONFIG_PATH, demoPlan } from '../demo/fixture.ts';
import { loadSlotConfig } from '../src/config/slot-config.ts';
import type { RunReport } from '../src/report/model.ts';
import { runGc } from './action.ts';
import {
  requestsByStep,
  resolutionLowerBound,
  STEP_KINDS,
  type StepKind,
  semaphoreLowerBound,
  slotLowerBound,
} from './bounds.ts';
import { accountShape, slotShape } from './shape.ts';
import { type BenchStack, seedPool } from './stack.ts';

export type StepCounts = Record<StepKind | 'resolution', number>;

export interface PerSlotResult {
  slotsReclaimed: number;
  /** Cloudflare requests of the whole run, by erase step; `resolution` = the name listings. */
  cloudflareByStep: StepCounts;
  /** The pacer's own counts, by request kind. */
  cloudflareByKind: Record<string, number>;
  /** The fewest requests for one slot of this shape, by step; resolution is the bound for the whole run. */
  lowerBoundPerSlot: StepCounts;
  /** Semaphore calls of the run, by what they did. */
  semaphoreByCall: Record<string, number>;
  semaphoreLowerBound: number;
  wallMs: number;
}

export interface QuietResult {
  semaphoreRequests: number;
  cloudflareRequests: number;
  /** The goal: one semaphore call (the listing) and no Cloudflare call. */
  goalMet: boolean;
}

/** What a semaphore call did, from its method and path. */
export function semaphoreCallName(request: { method: string; path: string }): string {
  const path = request.path.split('?')[0] ?? '';
  if (request.method === 'GET' && path === '/api/resources') return 'list';
  const action = /^\/api\/resources\/(acquire-specific|acquire|renew|release)$/.exec(path)?.[1];
  return action ?? `${request.method} ${path}`;
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** Throws unless every slot the run selected was reclaimed and the run succeeded. */
export function expectAllReclaimed(report: RunReport, exitCode: number | null, slots: number): void {
  const outcomes = report.slots.map(
    (slot) => `${slot.slug}: ${slot.outcome}${slot.problem ? ` (${slot.problem})` : ''}`,
  );
  const reclaimed = report.slots.filter((slot) => slot.outcome === 'reclaimed').length;
  if (exitCode !== 0 || reclaimed !== slots) {
    throw new Error(
      `bench: expected ${slots} slots reclaimed and exit 0, got ${reclaimed} and exit ${exitCode}:\n  ${[...report.problems, ...outcomes].join('\n  ')}`,
    );
  }
}

export async function measureDemo(
  stack: BenchStack,
): Promise<{ perSlot: PerSlotResult; quiet: QuietResult }> {
  const pool = 'bench-demo';
  const plan = demoPlan();
  const twin = await seedPool(stack, { pool, plan });
  try {
    const config = await loadSlotConfig(DEMO_CONFIG_PATH);
    const toReclaim = plan.filter((slot) => slot.state === 'expired' || slot.state === 'dirty');
    const before = twin.state();
    const shapes = toReclaim.map((slot) => slotShape(before, config, slot.slug));
    const [shape] = shapes;
    if (shape === undefined || shapes.some((other) => JSON.stringify(other) !== JSON.stringify(shape))) {
      throw new Error('bench: the demo slots to reclaim should all have the same shape');
    }

    const mark = stack.semaphoreMark();
    const run = await runGc({
      semaphore: stack.semaphore,
      twin,
      pool,
      inputs: { 'requests-per-second': '50' },
    });
    expectAllReclaimed(run.report, run.exitCode, toReclaim.length);
    const byKind = run.report.cloudflare?.byKind ?? {};
    const perSlot: PerSlotResult = {
      slotsReclaimed: toReclaim.length,
      cloudflareByStep: requestsByStep(byKind),
      cloudflareByKind: byKind,
      lowerBoundPerSlot: { ...slotLowerBound(shape), resolution: resolutionLowerBound(accountShape(before)) },
      semaphoreByCall: countBy(stack.semaphoreRequestsSince(mark), semaphoreCallName),
      semaphoreLowerBound: semaphoreLowerBound(toReclaim.length),
      wallMs: run.wallMs,
    };

    // The same pool again: every expired and dirty slot is clean now, the live leases are still live.
    const quietMark = stack.semaphoreMark();
    twin.resetRequests();
    const quietRun = await runGc({
      semaphore: stack.semaphore,
      twin,
      pool,
    });
    if (quietRun.exitCode !== 0 || quietRun.report.slots.length !== 0) {
      throw new Error(`bench: the second sweep found work to do: ${JSON.stringify(quietRun.report.slots)}`);
    }
    const semaphoreRequests = stack.semaphoreRequestsSince(quietMark).length;
    const cloudflareRequests = twin.requests().length;
    return {
      perSlot,
      quiet: {
        semaphoreRequests,
        cloudflareRequests,
        goalMet: semaphoreRequests === 1 && cloudflareRequests === 1,
      },
    };
  } finally {
    await twin.close();
  }
}

export const STEP_ROWS: readonly (StepKind | 'resolution')[] = [...STEP_KINDS, 'resolution'];

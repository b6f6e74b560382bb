// One cell of the fault matrix: a pool of its own with three slots (an expired pull-request lease for
// gc, a live one of a closed pull request for cleanup, and a live one nobody may touch), its own
// Cloudflare twin and semaphore proxy, one fault on one route. The cell's commands (gc, cleanup or
// both at once) run under the fault; where leases can be left behind, a healing cleanup and gc follow
// without it. Every check a person would care about is made, and every failure is collected as a line
// rather than thrown, so the matrix shows every cell.
import { setTimeout as sleep } from 'node:timers/promises';
import type { SlotConfig } from '../../../src/config/slot-config.ts';
import type { SlotReport } from '../../../src/report/model.ts';
import type { SemaphoreClient } from '../../../src/semaphore/client.ts';
import type { LocalSemaphore } from '../../../src/semaphore/local.ts';
import type { Slot } from '../../../src/semaphore/protocol.ts';
import { expectedExitCode, FAILED_OUTCOMES } from '../../support/exit-policy.ts';
import {
  type ExecutionKnobs,
  type InProcessRun,
  runActionInProcess,
  timingOut,
} from '../../support/in-process-action.ts';
import { secretLeaks, summaryEscapeProblems } from '../../support/run-checks.ts';
import { type SemaphoreProxy, startSemaphoreProxy } from '../../support/semaphore-proxy.ts';
import {
  eraseStepOf,
  isErased,
  requestsTouching,
  type SlotContents,
  slotContents,
  slotSeed,
} from '../../support/twin-slot.ts';
import { startTwin, type Twin } from '../../twin/twin.ts';
import {
  cloudflareFault,
  cloudflareRouteMatches,
  type FaultKind,
  HANG_TIMEOUT_MS,
  type SemaphoreRoute,
  semaphoreFault,
  semaphoreRouteOf,
} from './faults.ts';

/** The GC's lease in the matrix: short, so a lease a failed release leaves behind runs out quickly. */
export const GC_LEASE_MS = 4_000;
const LIVE_LEASE_MS = 3_600_000;
const PULL_REQUEST = 102;

export interface LoadedConfig {
  config: SlotConfig;
  path: string;
}

export interface MatrixEnv {
  semaphore: LocalSemaphore;
  /** Talks to the semaphore directly, never through a cell's proxy. */
  client: SemaphoreClient;
  /** One resource of every kind, so erases use every Cloudflare route. */
  fullSlot: LoadedConfig;
  /** Two cheap resources, for cells whose fault is on the semaphore's side. */
  smallSlot: LoadedConfig;
  cloudflareToken: string;
}

export type CellTarget =
  | { side: 'cloudflare'; route: string }
  | { side: 'semaphore'; route: SemaphoreRoute }
  | { side: 'none' };

export type Command = 'gc' | 'cleanup';

export interface CellSpec {
  id: number;
  target: CellTarget;
  fault: FaultKind | 'none';
  /** The commands run under the fault, at once. */
  commands: readonly Command[];
}

export interface RunSummary {
  /** The outcome of the one slot the run was after, or `run failed` for a run-level problem. */
  outcome: string;
  exitCode: number;
}

export interface CellResult {
  spec: CellSpec;
  runs: Partial<Record<Command, RunSummary>>;
  problems: string[];
  /** Routes seen under the fault (for the coverage check of the fault-free cell). */
  cloudflareRoutes: string[];
  semaphoreRoutes: string[];
}

interface Cell {
  env: MatrixEnv;
  spec: CellSpec;
  config: SlotConfig;
  configPath: string;
  pool: string;
  slugs: { expired: string; closed: string; live: string };
  twin: Twin;
  proxy: SemaphoreProxy;
  problems: string[];
}

function check(cell: Cell, ok: boolean, problem: string): void {
  if (!ok) cell.problems.push(problem);
}

async function listing(cell: Cell): Promise<{ now: number; slots: Map<string, Slot> }> {
  const answer = await cell.env.client.list(cell.pool);
  return { now: answer.now, slots: new Map(answer.resources.map((slot) => [slot.slug, slot])) };
}

/**
 * Waits until the given slots' leases have run out by the semaphore's clock: each look at the pool
 * says how long the latest of them still has, and the next look comes then. Fails after `ms`.
 */
async function waitForExpiry(
  cell: Cell,
  what: string,
  slugs: (pool: Map<string, Slot>) => string[],
  ms = 15_000,
) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const pool = await listing(cell);
    const left = slugs(pool.slots).map((slug) => (pool.slots.get(slug)?.leasedUntil ?? 0) - pool.now);
    if (left.every((ms) => ms <= 0)) return pool;
    await sleep(Math.max(20, ...left) + 5);
  }
  throw new Error(`cell ${cell.spec.id}: timed out waiting for ${what}`);
}

async function seedPool(cell: Cell): Promise<{ now: number; slots: Map<string, Slot> }> {
  const { client } = cell.env;
  const { expired, closed, live } = cell.slugs;
  for (const slug of [expired, closed, live]) await client.add({ type: cell.pool, slug });
  const take = (slug: string, holder: string, leaseMs: number) =>
    client.acquireSpecific({ type: cell.pool, slug, holder, leaseMs });
  await take(expired, 'pr-101', 1_000);
  await take(closed, `pr-${PULL_REQUEST}`, LIVE_LEASE_MS);
  await take(live, 'pr-103', LIVE_LEASE_MS);
  return waitForExpiry(cell, 'the short lease to expire', () => [expired]);
}

function injectFault(cell: Cell): void {
  const { target, fault } = cell.spec;
  if (fault === 'none' || target.side === 'none') return;
  if (target.side === 'cloudflare') cell.twin.faults.add(cloudflareFault(target.route, fault));
  else {
    const intervention = semaphoreFault(target.route, fault);
    cell.proxy.hooks.intervene = (request) =>
      semaphoreRouteOf(request) === target.route ? intervention : undefined;
  }
}

function clearFault(cell: Cell): void {
  cell.twin.faults.clear();
  cell.proxy.hooks.intervene = undefined;
}

/** In a hang cell the clients give up on the hung route early; every other call keeps its timeout. */
function knobsOf(cell: Cell, faulty: boolean): ExecutionKnobs {
  const knobs: ExecutionKnobs = { leaseMs: GC_LEASE_MS, ratePerSecond: 500 };
  const target = cell.spec.target;
  if (!faulty || cell.spec.fault !== 'hang' || target.side === 'none') return knobs;
  if (target.side === 'cloudflare') {
    const hung = (method: string, url: URL) => cloudflareRouteMatches(target.route, method, url.pathname);
    return { ...knobs, cloudflareFetch: timingOut(hung, HANG_TIMEOUT_MS) };
  }
  const hung = (method: string, url: URL) =>
    semaphoreRouteOf({ method, path: `${url.pathname}${url.search}` }) === target.route;
  return { ...knobs, semaphoreFetch: timingOut(hung, HANG_TIMEOUT_MS) };
}

function runAction(
  cell: Cell,
  command: 'gc' | 'cleanup',
  phase: 'faulty' | 'healing',
): Promise<InProcessRun> {
  return runActionInProcess(
    {
      command,
      config: cell.configPath,
      pool: cell.pool,
      'semaphore-url': cell.proxy.url,
      'semaphore-token': cell.env.semaphore.token,
      'cloudflare-api-token': cell.env.cloudflareToken,
      'cloudflare-account-id': cell.twin.accountId,
      'cloudflare-api-base-url': cell.twin.baseUrl,
      // Under the fault gc only takes expired leases, so it and cleanup work on separate slots.
      'reclaim-dirty': String(phase === 'healing'),
      // Slots in parallel, as by default: the healing sweep erases its slots at once.
      'parallel-slots': '3',
      ...(command === 'cleanup' ? { 'pull-request': String(PULL_REQUEST) } : {}),
    },
    knobsOf(cell, phase === 'faulty'),
  );
}

/** What a person sees is what happened: exit code, summary, outputs, no secrets, escaped text. */
function checkPresentation(cell: Cell, name: string, run: InProcessRun): void {
  const report = run.report;
  if (report === undefined) {
    cell.problems.push(`${name}: no report output`);
    return;
  }
  check(
    cell,
    run.exitCode === expectedExitCode(report),
    `${name}: exit code ${run.exitCode} contradicts the report`,
  );
  const headline = run.summary.split('\n')[0] ?? '';
  check(
    cell,
    headline.includes(run.exitCode === 1 ? '❌' : '✅'),
    `${name}: headline '${headline}' contradicts the exit code`,
  );
  if (report.problems.length > 0)
    check(cell, headline.includes('did not complete'), `${name}: the headline hides a run-level problem`);
  for (const slot of report.slots) {
    check(cell, run.summary.includes(`\`${slot.slug}\``), `${name}: the summary does not list ${slot.slug}`);
    const needsAttention = [...FAILED_OUTCOMES, 'deferred'].includes(slot.outcome);
    if (needsAttention) {
      const attention = run.summary.split('### What needs attention')[1] ?? '';
      check(
        cell,
        attention.includes(`\`${slot.slug}\``),
        `${name}: ${slot.slug} ${slot.outcome} is not under "What needs attention"`,
      );
      check(cell, (slot.problem ?? '') !== '', `${name}: ${slot.slug} ${slot.outcome} without a problem`);
    }
  }
  const failed = report.slots.filter((slot) => FAILED_OUTCOMES.includes(slot.outcome));
  check(
    cell,
    run.outputs.failed === String(failed.length),
    `${name}: output failed=${run.outputs.failed}, report ${failed.length}`,
  );
  for (const problem of summaryEscapeProblems(run.summary)) cell.problems.push(`${name}: ${problem}`);
  const leaks = secretLeaks(run, [cell.env.semaphore.token, cell.env.cloudflareToken]);
  check(cell, leaks.length === 0, `${name}: a token appears in ${leaks.join(', ')}`);
}

function describeSlot(slot: Slot | undefined): string {
  if (slot === undefined) return 'missing';
  return `${slot.leaseState}${slot.holder === null ? '' : ` by ${slot.holder}`}${slot.dirty ? ', dirty' : ', clean'}`;
}

/** A lease `gc` still holds must run out by itself within one GC lease. */
function heldByBoundedGcLease(slot: Slot | undefined, now: number): boolean {
  return slot?.holder === 'gc' && (slot.leasedUntil ?? Number.POSITIVE_INFINITY) <= now + GC_LEASE_MS;
}

/** The report's outcome for its slot is what the semaphore and the twin show. */
function checkOutcomeIsTrue(
  cell: Cell,
  name: string,
  slotReport: SlotReport,
  pool: { now: number; slots: Map<string, Slot> },
  logStart: number,
): void {
  const slot = pool.slots.get(slotReport.slug);
  const state = describeSlot(slot);
  const contents = slotContents(cell.twin, cell.config, slotReport.slug);
  const where = `${name}: ${slotReport.slug} ${slotReport.outcome} but the slot is ${state}`;
  const releasedDirty = slot?.leaseState === 'available' && slot.dirty;
  switch (slotReport.outcome) {
    case 'reclaimed':
      check(cell, slot?.leaseState === 'available' && !slot.dirty, where);
      check(
        cell,
        isErased(contents),
        `${name}: ${slotReport.slug} reclaimed but not erased: ${JSON.stringify(contents)}`,
      );
      break;
    case 'released':
    case 'erase-failed':
    case 'deferred':
    case 'interrupted':
      check(cell, releasedDirty, where);
      break;
    case 'release-failed':
      // The release may have reached the semaphore before its answer was lost; if not, the lease
      // still held (the pull request's, or the GC's own for at most one GC lease) ends by itself.
      check(
        cell,
        slot?.leaseState === 'available' ||
          heldByBoundedGcLease(slot, pool.now) ||
          (name === 'cleanup' && slot?.holder === `pr-${PULL_REQUEST}`),
        where,
      );
      break;
    case 'acquire-failed':
      check(
        cell,
        requestsTouching(cell.twin, cell.config, slotReport.slug, logStart).length === 0,
        `${name}: ${slotReport.slug} acquire-failed but its resources were called`,
      );
      check(cell, slot?.holder === 'pr-101' || heldByBoundedGcLease(slot, pool.now), where);
      break;
    default:
      cell.problems.push(`${name}: unexpected outcome ${slotReport.outcome} for ${slotReport.slug}`);
  }
  const target = cell.spec.target;
  const failedStep = slotReport.erase?.steps.find((step) => step.status === 'failed');
  if (target.side === 'cloudflare' && slotReport.erase !== null && slotReport.outcome !== 'reclaimed') {
    // The binding guard reads other Workers' bindings inside the first step that erases a store (D1
    // here): a fault there fails that step, and nothing of the store is erased.
    const expected = target.route === BINDINGS_READ ? 'd1' : eraseStepOf(target.route);
    check(
      cell,
      failedStep?.kind === expected,
      `${name}: the failed step is ${failedStep?.kind ?? 'none'}, not the one whose route failed`,
    );
  }
}

/** The run was after exactly this slot; a run-level problem means it touched nothing. */
function checkRun(
  cell: Cell,
  name: 'cleanup' | 'gc',
  run: InProcessRun,
  slug: string,
  pool: { now: number; slots: Map<string, Slot> },
  logStart: number,
): RunSummary {
  checkPresentation(cell, name, run);
  const report = run.report;
  if (report === undefined) return { outcome: 'no report', exitCode: run.exitCode };
  if (report.problems.length > 0) {
    check(cell, report.slots.length === 0, `${name}: a run-level problem and slot outcomes`);
    check(
      cell,
      requestsTouching(cell.twin, cell.config, slug, logStart).length === 0,
      `${name}: stopped, but ${slug} was erased`,
    );
    return { outcome: 'run failed', exitCode: run.exitCode };
  }
  const slotReport = report.slots.find((entry) => entry.slug === slug);
  check(
    cell,
    report.slots.length === 1 && slotReport !== undefined,
    `${name}: expected one slot ${slug}, got ${report.slots.map((s) => s.slug).join(', ') || 'none'}`,
  );
  if (slotReport === undefined) return { outcome: 'no slot', exitCode: run.exitCode };
  checkOutcomeIsTrue(cell, name, slotReport, pool, logStart);
  return { outcome: slotReport.outcome, exitCode: run.exitCode };
}

/**
 * Every lease gc took has ended (the slot is no longer gc's), or, when an acquire or release answer was
 * lost, gc still holds it for at most one GC lease and a failed run named the slot. (One gc lease per
 * slot per phase, so the pool's record is the whole story; the model test follows every lease.)
 */
function checkGcLeases(
  cell: Cell,
  slug: string,
  pool: { now: number; slots: Map<string, Slot> },
  runs: InProcessRun[],
): void {
  const slot = pool.slots.get(slug);
  if (slot?.holder !== 'gc') return;
  const named = runs.some(
    (run) =>
      run.exitCode === 1 &&
      run.report?.slots.some(
        (entry) => entry.slug === slug && ['acquire-failed', 'release-failed'].includes(entry.outcome),
      ),
  );
  check(
    cell,
    heldByBoundedGcLease(slot, pool.now) && named,
    `gc still holds ${slug} (generation ${slot.generation}), and not by a bounded lease of a failed run naming it`,
  );
}

/** The binding guard's read of a Worker's bindings (src/erase/binding-guard.ts). */
const BINDINGS_READ = 'GET /accounts/:account/workers/scripts/:name/settings';

/** What a live slot looked like before the commands ran. */
interface LiveSnapshot {
  slot: Slot;
  contents: SlotContents;
}

/** A slot's record but gc's spend record of it (`activity`: what the hour cost, the lease's cost so far). */
const leaseRecordOf = (slot: Slot | undefined) => {
  if (slot === undefined) return undefined;
  const { activity: _spendRecord, ...record } = slot;
  return record;
};

/**
 * The record is unchanged (`updatedAt` moves with every change), and so are its resources. gc's
 * spend read writes the live lease's hour to its activity record (its cost so far), which changes
 * neither the lease nor the slot: that write is the one call that may name the live slot.
 */
function checkLiveSlotUntouched(cell: Cell, live: string, before: LiveSnapshot, now: Slot | undefined): void {
  check(
    cell,
    JSON.stringify(leaseRecordOf(now)) === JSON.stringify(leaseRecordOf(before.slot)),
    `the live slot ${live} changed: ${describeSlot(now)}`,
  );
  // The binding guard reads every other Worker's bindings, the live slot's too: a read of its
  // settings changes nothing. Any other call naming the live slot's resources would.
  const touching = requestsTouching(cell.twin, cell.config, live).filter(
    (request) => request.route !== BINDINGS_READ,
  );
  check(cell, touching.length === 0, `a Cloudflare call touched the live slot ${live}`);
  const contents = slotContents(cell.twin, cell.config, live);
  check(
    cell,
    JSON.stringify(contents) === JSON.stringify(before.contents),
    `the live slot's data changed: ${JSON.stringify(contents)}`,
  );
  const mentions = cell.proxy.requests.filter(
    (request) =>
      request.method === 'POST' &&
      request.path !== '/api/resources/activity' &&
      request.body.includes(`"${live}"`),
  );
  check(
    cell,
    mentions.length === 0,
    `the commands sent ${mentions.length} semaphore calls naming the live slot`,
  );
}

/**
 * Once every lease gc left behind has run out, the next cleanup (if the pull request still holds its
 * slot) and sweep finish the job; a sweep with nothing left to do is one listing and, when the slots
 * have Workers, one Cloudflare call: the spend read.
 */
async function heal(cell: Cell): Promise<void> {
  const { expired, closed } = cell.slugs;
  await waitForExpiry(cell, "gc's leases to run out", (pool) =>
    [...pool.values()].filter((slot) => slot.holder === 'gc').map((slot) => slot.slug),
  );
  const stillHeld = (await listing(cell)).slots.get(closed)?.holder === `pr-${PULL_REQUEST}`;
  const healing = stillHeld
    ? [['healing cleanup', await runAction(cell, 'cleanup', 'healing')] as const]
    : [];
  const beforeSweep = await listing(cell);
  const quiet = [...beforeSweep.slots.values()].every((slot) =>
    slot.leaseState === 'leased' ? !slot.expired : !slot.dirty,
  );
  const sweep = await runAction(cell, 'gc', 'healing');
  for (const [name, run] of [...healing, ['healing gc', sweep] as const]) {
    checkPresentation(cell, name, run);
    check(cell, run.exitCode === 0, `${name} failed: ${run.log.split('\n').at(-1)}`);
  }
  if (quiet) {
    const calls = [sweep.report?.semaphoreRequests, sweep.report?.cloudflare?.requests];
    // The listing, and at most the spend read when the slots have Workers to read (docs/design.md,
    // invariant 6), whose record of each live lease's hour is one more semaphore call while a lease is
    // live (a read that failed, or one the last run's record makes needless, is not made).
    const reads = cell.config.resources.workers.length > 0 ? 1 : 0;
    const liveLease = [...beforeSweep.slots.values()].some((slot) => slot.leaseState === 'leased');
    check(
      cell,
      (calls[0] ?? 0) >= 1 && (calls[0] ?? 0) <= 1 + (liveLease ? 1 : 0) && (calls[1] ?? 0) <= reads,
      `a sweep with nothing to do made ${calls.join(' + ')} calls`,
    );
  }
  const healed = await listing(cell);
  for (const slug of [expired, closed]) {
    const slot = healed.slots.get(slug);
    check(
      cell,
      slot?.leaseState === 'available' && !slot.dirty,
      `after healing ${slug} is ${describeSlot(slot)}`,
    );
    check(cell, isErased(slotContents(cell.twin, cell.config, slug)), `after healing ${slug} is not erased`);
    check(cell, slot?.holder !== 'gc', `after healing gc still holds ${slug}`);
  }
}

export async function runCell(env: MatrixEnv, spec: CellSpec): Promise<CellResult> {
  const prefix = `m${spec.id}`;
  const slugs = { expired: `${prefix}-exp`, closed: `${prefix}-pr`, live: `${prefix}-live` };
  const slot = spec.target.side === 'semaphore' ? env.smallSlot : env.fullSlot;
  const [twin, proxy] = await Promise.all([
    startTwin({ token: env.cloudflareToken, seed: slotSeed(slot.config, Object.values(slugs)) }),
    startSemaphoreProxy(env.semaphore.url),
  ]);
  const cell: Cell = {
    env,
    spec,
    config: slot.config,
    configPath: slot.path,
    pool: `matrix-${spec.id}`,
    slugs,
    twin,
    proxy,
    problems: [],
  };
  try {
    const seeded = await seedPool(cell);
    // Live leases no command was asked to end: the live slot, and the closed pull request's when
    // cleanup does not run.
    const untouchable = spec.commands.includes('cleanup') ? [slugs.live] : [slugs.live, slugs.closed];
    const snapshots = new Map<string, LiveSnapshot>();
    for (const slug of untouchable) {
      const slot = seeded.slots.get(slug);
      if (slot === undefined) throw new Error(`${slug} was not seeded`);
      snapshots.set(slug, { slot, contents: slotContents(twin, cell.config, slug) });
    }

    injectFault(cell);
    const runs = await Promise.all(spec.commands.map((command) => runAction(cell, command, 'faulty')));
    clearFault(cell);
    const cloudflareRoutes = [...new Set(twin.requests().map((request) => request.route))];
    const semaphoreRoutes = [...new Set(proxy.requests.map(semaphoreRouteOf))];

    const after = await listing(cell);
    const target = { gc: slugs.expired, cleanup: slugs.closed };
    const result: CellResult = {
      spec,
      runs: Object.fromEntries(
        spec.commands.map((command, index) => [
          command,
          checkRun(cell, command, runs[index] as InProcessRun, target[command], after, 0),
        ]),
      ),
      problems: cell.problems,
      cloudflareRoutes,
      semaphoreRoutes,
    };
    for (const slug of [slugs.expired, slugs.closed]) checkGcLeases(cell, slug, after, runs);
    // A Cloudflare fault leaves dirty slots an ordinary sweep reclaims (as the fault-free cell shows);
    // a semaphore fault can leave leases behind, so those cells show the next runs recover.
    if (spec.target.side !== 'cloudflare') await heal(cell);
    const final = await listing(cell);
    for (const [slug, snapshot] of snapshots)
      checkLiveSlotUntouched(cell, slug, snapshot, final.slots.get(slug));
    return result;
  } finally {
    await proxy.close();
    await twin.close();
  }
}

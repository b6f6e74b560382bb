// The world of one model run: one pool of two slots on the real semaphore (with its test clock), a
// Cloudflare twin, pull requests and a person acting on the semaphore directly, and the runners: up
// to two GC runs (GitHub's and Depot's), a closed pull request's cleanup and the deploy jobs of three
// pull requests (acquire), which the plan moves forward one semaphore call or destructive Cloudflare
// call at a time. GC and cleanup run their slots in parallel (`parallel-slots` 1 to 3, the plan's
// choice): the plan also picks which of a runner's stopped calls goes on, and the invariants follow
// each lease of a runner on its own. Every lease the semaphore grants is logged in plan order, which
// is what the invariants are checked against, as they happen and at the end.
import type { SlotConfig } from '../../../src/config/slot-config.ts';
import { type SemaphoreClient, SemaphoreError } from '../../../src/semaphore/client.ts';
import type { LocalSemaphore } from '../../../src/semaphore/local.ts';
import type { Lease, ReleaseAnswer, Slot } from '../../../src/semaphore/protocol.ts';
import { expectedExitCode } from '../../support/exit-policy.ts';
import { secretLeaks, summaryEscapeProblems } from '../../support/run-checks.ts';
import { advanceClock } from '../../support/test-clock.ts';
import {
  eraseStepOf,
  isErased,
  slotContents,
  slotPathMarkers,
  slotSeed,
  tenantData,
  tenantsIn,
} from '../../support/twin-slot.ts';
import { startTwin, type Twin } from '../../twin/twin.ts';
import {
  type DeployPullRequest,
  type GcRunnerName,
  type HeldLease,
  type ReleaseBody,
  type RunFault,
  Runner,
  type RunnerName,
  type RunnerObserver,
  type StopKind,
} from './runner.ts';

export const GC_LEASE_MS = 30 * 60_000;
export const PR_LEASE_MS = 10 * 60_000;
/** A deploy's lease (`lease-minutes`, the shortest the action allows), so the model sees it expire. */
export const DEPLOY_LEASE_MINUTES = 60;
export const PERSON = 'manual-ana';
const ADVANCE_MS = {
  seconds: 20_000,
  'past-pr-lease': PR_LEASE_MS + 60_000,
  'past-gc-lease': GC_LEASE_MS + 60_000,
  'past-deploy-lease': DEPLOY_LEASE_MINUTES * 60_000 + 60_000,
};

/** A slot config and its file. */
export interface ModelConfig {
  config: SlotConfig;
  path: string;
}

export interface ModelEnv {
  semaphore: LocalSemaphore;
  client: SemaphoreClient;
  /** `own`: every slot names its own resources; `shared`: both slots of a world name the same ones. */
  configs: Record<SlotNames, ModelConfig>;
  cloudflareToken: string;
}

export type SlotNames = 'own' | 'shared';

export type SlotStart = 'clean' | 'dirty' | 'live' | 'expired';

/** How many slots a GC or cleanup run works on at once (its `parallel-slots`). */
export type ParallelSlots = 1 | 2 | 3;

export type Step =
  | { kind: 'pr-acquire' | 'pr-renew' | 'pr-release'; pr: number }
  | { kind: 'force'; slot: 0 | 1 }
  | { kind: 'person-release' }
  | { kind: 'advance'; by: keyof typeof ADVANCE_MS }
  | {
      kind: 'gc-start';
      runner: GcRunnerName;
      dryRun: boolean;
      fault: RunFault | null;
      parallelSlots: ParallelSlots;
    }
  /** A pull request closed: cleanup runs for it, and before each of its forces the slot may change hands. */
  | { kind: 'cleanup-start'; pr: number; change: HolderChange; parallelSlots: ParallelSlots }
  /** A pull request pushes: its deploy job starts (or, running, goes on one stop). */
  | { kind: 'deploy'; pr: DeployPullRequest; fault: RunFault | null }
  /** Moves the runner on `times` calls; `lane` picks which of its stopped calls goes on each time. */
  | { kind: 'gc-step'; runner: RunnerName; times: number; lane: number }
  /** Moves the runner on until one of its calls waits before that kind of call (or it ends). */
  | { kind: 'gc-until'; runner: RunnerName; before: StopKind };

/**
 * What happens to a slot between cleanup's read and its force: nothing, a person force-acquires it,
 * the closed pull request's lease ends and another pull request acquires the slot, or the pull
 * request renews the lease it holds (its deploy runs again: reopened), which changes neither holder
 * nor generation, only the lease's version.
 */
export type HolderChange = 'none' | 'person-forces' | 'pr-hands-over' | 'pr-renews';

/**
 * Who holds the slots that start held (live, expired or dirty): pr-90 and pr-91, or pr-90 both (a
 * pull request with two slots, whose cleanup works on both, in parallel when it may).
 */
export type StartHolders = 'one-each' | 'one-for-both';

export interface Plan {
  start: [SlotStart, SlotStart];
  holders: StartHolders;
  /** Whether the two slots name their own resources or share them (a config gc must refuse). */
  names: SlotNames;
  steps: Step[];
}

interface Grant {
  seq: number;
  slug: string;
  generation: number;
  holder: string;
  force: boolean;
}

interface Release {
  seq: number;
  runner: RunnerName;
  slug: string;
  generation: number | undefined;
  released: boolean;
  dirty: boolean;
}

/** What the model runs did, summed up, so a reader sees the runs were not vacuous. */
export const coverage: Record<string, number> = {};
function count(what: string): void {
  coverage[what] = (coverage[what] ?? 0) + 1;
}

export class World implements RunnerObserver {
  readonly violations: string[] = [];
  readonly trace: string[] = [];
  private seq = 0;
  private readonly grants: Grant[] = [];
  private readonly releases: Release[] = [];
  /** The leases of pull requests and the person, as they believe they hold them (one each, but pr-90's start). */
  private leases: Lease[] = [];
  private readonly runners = new Map<RunnerName, Runner>();
  /** The pull request the running cleanup is for, and what happens before each of its forces. */
  private cleanup: { pr: number; change: HolderChange } | undefined;
  /** Slots whose lease was renewed after a runner read it and before its force went out. */
  private readonly renewedBeforeForce = new Set<string>();
  private readonly finished: Runner[] = [];

  private readonly env: ModelEnv;
  readonly pool: string;
  /** Both end in 1, so that a `shared` config ({n}) gives them the same resources. */
  readonly slugs: [string, string];
  private readonly twin: Twin;
  private readonly names: SlotNames;

  private constructor(env: ModelEnv, pool: string, slugs: [string, string], twin: Twin, names: SlotNames) {
    this.env = env;
    this.pool = pool;
    this.slugs = slugs;
    this.twin = twin;
    this.names = names;
  }

  private get config(): SlotConfig {
    return this.env.configs[this.names].config;
  }

  static async create(
    env: ModelEnv,
    id: string,
    plan: Pick<Plan, 'start' | 'names' | 'holders'>,
  ): Promise<World> {
    const slugs: [string, string] = [`${id}-a-1`, `${id}-b-1`];
    const clean = slugs.filter((_, index) => plan.start[index] === 'clean');
    const { config } = env.configs[plan.names];
    // Shared resources are seeded once, empty only when both slots start clean.
    const seed =
      plan.names === 'own'
        ? slotSeed(config, slugs, clean)
        : slotSeed(config, [slugs[0]], clean.length === 2 ? [slugs[0]] : []);
    const twin = await startTwin({ token: env.cloudflareToken, seed });
    const world = new World(env, `model-${id}`, slugs, twin, plan.names);
    await world.seed(plan.start, plan.holders);
    return world;
  }

  async close(): Promise<void> {
    // A run that failed an invariant may leave a runner stopped mid-way: let every one finish.
    await this.drain();
    await this.twin.close();
  }

  private next(): number {
    this.seq += 1;
    return this.seq;
  }

  private violate(problem: string): void {
    this.violations.push(`${problem} (after: ${this.trace.slice(-6).join('; ')})`);
  }

  private async seed(start: Plan['start'], holders: StartHolders): Promise<void> {
    const { client } = this.env;
    for (const [index, slug] of this.slugs.entries()) {
      await client.add({ type: this.pool, slug });
      const state = start[index];
      if (state === 'clean') continue;
      const holder = `pr-${holders === 'one-for-both' ? 90 : 90 + index}`;
      const leaseMs = state === 'expired' ? 1_000 : PR_LEASE_MS;
      const lease = await client.acquireSpecific({ type: this.pool, slug, holder, leaseMs });
      if (lease === null) throw new Error(`model: ${slug} could not be leased`);
      this.grant(lease, false);
      if (state === 'dirty') await client.release({ type: this.pool, slug, leaseId: lease.leaseId });
      // A live pull request can hand its slot over (HolderChange) like the ones the plan starts.
      if (state === 'live') this.leases.push(lease);
    }
    if (start.includes('expired')) await advanceClock(this.env.semaphore, this.pool, 2_000);
    this.trace.push(`start ${start.join('/')} (${holders}), ${this.names} names`);
  }

  private grant(lease: Lease, force: boolean): void {
    const known = this.grants.some((g) => g.slug === lease.slug && g.generation === lease.generation);
    if (known) return;
    this.grants.push({
      seq: this.next(),
      slug: lease.slug,
      generation: lease.generation,
      holder: lease.holder,
      force,
    });
  }

  /** A tenant deploys into the slot it got (the one lease it holds now): new rows, keys and a redeployed Worker. */
  private moveIn(lease: Lease, who: string): void {
    this.twin.seed(tenantData(this.config, lease.slug, who));
    this.leases = [...this.leases.filter((held) => held.holder !== who), lease];
  }

  private leaseOf(holder: string): Lease | undefined {
    return this.leases.find((lease) => lease.holder === holder);
  }

  private forget(lease: Lease): void {
    this.leases = this.leases.filter((held) => held !== lease);
  }

  async play(plan: Plan): Promise<void> {
    for (const step of plan.steps) await this.apply(step);
    await this.drain();
  }

  private async drain(): Promise<void> {
    for (let running = this.running(); running.length > 0; running = this.running()) {
      for (const runner of running) await this.stepRunner(runner);
    }
  }

  private running(): Runner[] {
    return [...this.runners.values()];
  }

  private async stepRunner(runner: Runner, lane = 0): Promise<void> {
    if (runner.stopped.length > 1) {
      const call = runner.stopped[lane % runner.stopped.length];
      count('steps choosing among stopped calls of one runner');
      this.trace.push(`${runner.name} goes on before ${call?.kind} of ${call?.slug ?? 'the pool'}`);
    }
    await runner.step(lane);
    if (!runner.done) return;
    this.runners.delete(runner.name);
    this.finished.push(runner);
    if (isDeploy(runner)) await this.deployEnded(runner);
    count(kindOfRun(runner));
    if (runner.mostStoppedAtOnce >= 2) count(`${kindOfRun(runner)} with two or more calls stopped at once`);
    if (runner.faultInjected) count('faults injected');
    for (const slot of runner.result?.report?.slots ?? []) count(`outcome ${slot.outcome}`);
    const outcomes = runner.result?.report?.slots.map((slot) => `${slot.slug} ${slot.outcome}`) ?? [];
    this.trace.push(`${runner.name} ended ${runner.result?.exitCode}: ${outcomes.join(', ') || 'no slots'}`);
  }

  private async apply(step: Step): Promise<void> {
    switch (step.kind) {
      case 'pr-acquire':
        return this.pullRequestAcquires(`pr-${step.pr}`);
      case 'pr-renew':
      case 'pr-release':
        return this.endOrRenew(`pr-${step.pr}`, step.kind === 'pr-renew');
      case 'person-release':
        return this.endOrRenew(PERSON, false);
      case 'force':
        return this.personForces(this.slugs[step.slot]);
      case 'advance':
        return this.advance(ADVANCE_MS[step.by]);
      case 'gc-start':
        return this.gcStarts(step.runner, step.dryRun, step.fault ?? undefined, step.parallelSlots);
      case 'cleanup-start':
        return this.cleanupStarts(step.pr, step.change, step.parallelSlots);
      case 'deploy':
        return this.deployStarts(step.pr, step.fault ?? undefined);
      case 'gc-step':
        for (let i = 0; i < step.times; i++) {
          const runner = this.runners.get(step.runner);
          if (runner !== undefined) await this.stepRunner(runner, step.lane);
        }
        return;
      case 'gc-until':
        for (let runner = this.runners.get(step.runner); runner; runner = this.runners.get(step.runner)) {
          await this.stepRunner(runner);
          if (runner.stopped.some((call) => call.kind === step.before)) return;
        }
        return;
    }
  }

  private async pullRequestAcquires(holder: string): Promise<void> {
    if (this.leaseOf(holder) !== undefined) return;
    try {
      const lease = await this.env.client.acquire({ type: this.pool, holder, leaseMs: PR_LEASE_MS });
      this.grant(lease, false);
      this.moveIn(lease, holder);
      this.trace.push(`${holder} acquired ${lease.slug}#${lease.generation}`);
    } catch (error) {
      if (!(error instanceof SemaphoreError && error.code === 'none_available')) throw error;
      this.trace.push(`${holder} found no slot`);
    }
  }

  private async personForces(slug: string): Promise<void> {
    const lease = await this.env.client.acquireSpecific({
      type: this.pool,
      slug,
      holder: PERSON,
      leaseMs: PR_LEASE_MS,
      force: true,
    });
    if (lease === null) throw new Error('a force acquire answered null');
    this.grant(lease, true);
    this.moveIn(lease, PERSON);
    count('force acquires');
    this.trace.push(`${PERSON} forced ${slug}#${lease.generation}`);
  }

  private async gcStarts(
    name: RunnerName,
    dryRun: boolean,
    fault: RunFault | undefined,
    parallelSlots: ParallelSlots,
  ): Promise<void> {
    const running = this.runners.get(name);
    if (running !== undefined) return this.stepRunner(running);
    const runner = this.startRunner(name, dryRun, fault, {
      command: 'gc',
      'parallel-slots': String(parallelSlots),
    });
    const how = `${dryRun ? ' (dry run)' : ''}${fault ? ` with fault ${JSON.stringify(fault)}` : ''}, ${parallelSlots} at once`;
    this.trace.push(`${name} started${how}`);
    await runner.start();
  }

  private async endOrRenew(holder: string, renew: boolean): Promise<void> {
    const lease = this.leaseOf(holder);
    if (lease !== undefined) await this.endOrRenewLease(lease, renew);
  }

  private async endOrRenewLease(lease: Lease, renew: boolean): Promise<void> {
    const { holder } = lease;
    const { client } = this.env;
    if (renew) {
      const renewed = await client.renew({
        type: this.pool,
        slug: lease.slug,
        leaseId: lease.leaseId,
        leaseMs: PR_LEASE_MS,
      });
      if (renewed === null) this.forget(lease);
      this.trace.push(`${holder} renewed ${lease.slug}: ${renewed === null ? 'gone' : 'ok'}`);
      return;
    }
    const answer = await client.release({ type: this.pool, slug: lease.slug, leaseId: lease.leaseId });
    this.forget(lease);
    this.trace.push(`${holder} released ${lease.slug}: ${answer.released}`);
  }

  /**
   * Time passes. While a runner holds a lease, no more than one GC lease passes between two of its
   * fences: a single erase step never takes longer than the GC's lease (see docs/reliability.md).
   */
  private async advance(ms: number): Promise<void> {
    const held = this.running().flatMap((runner) => [...runner.held.values()]);
    if (held.some((lease) => lease.advancedSinceFence + ms >= GC_LEASE_MS)) {
      this.trace.push(`clock +${ms / 1000} s skipped (a runner is mid-step)`);
      return;
    }
    await advanceClock(this.env.semaphore, this.pool, ms);
    for (const lease of held) lease.advancedSinceFence += ms;
    this.trace.push(`clock +${ms / 1000} s`);
  }

  private async cleanupStarts(pr: number, change: HolderChange, parallelSlots: ParallelSlots): Promise<void> {
    const running = this.runners.get('cleanup');
    if (running !== undefined) return this.stepRunner(running);
    this.cleanup = { pr, change };
    const runner = this.startRunner('cleanup', false, undefined, {
      command: 'cleanup',
      'pull-request': String(pr),
      'parallel-slots': String(parallelSlots),
    });
    this.trace.push(
      `cleanup of pr-${pr} started${change === 'none' ? '' : `, ${change} before each force`}, ${parallelSlots} at once`,
    );
    await runner.start();
  }

  /** A pull request pushes: its deploy job (the action's acquire) starts, or goes on one stop. */
  private async deployStarts(pr: DeployPullRequest, fault: RunFault | undefined): Promise<void> {
    const name = `deploy-${pr}` as const;
    const running = this.runners.get(name);
    if (running !== undefined) return this.stepRunner(running);
    const runner = this.startRunner(name, false, fault, {
      command: 'acquire',
      'pull-request': String(pr),
      'lease-minutes': String(DEPLOY_LEASE_MINUTES),
    });
    this.trace.push(`${name} started${fault ? ` with fault ${JSON.stringify(fault)}` : ''}`);
    await runner.start();
  }

  /**
   * A deploy ended. With a slot handed over and still its own, the slot holds no one else's data (the
   * erase on acquire), and the pull request moves in; a deploy that handed nothing over holds no lease
   * it got this run (checked at the end, in verifyDeployLeases).
   */
  private async deployEnded(runner: Runner): Promise<void> {
    const acquired = runner.result?.report?.acquired;
    const lease = runner.lastLease;
    if (acquired === undefined || lease === null) return;
    const slot = await this.env.client.find(this.pool, acquired.slug);
    if (slot.holder !== acquired.holder || slot.generation !== acquired.generation) {
      count('hand-overs taken away before the deploy');
      return;
    }
    count(acquired.wasDirty ? 'hand-overs erased first' : 'hand-overs without an erase');
    const others = tenantsIn(this.twin, this.config, acquired.slug).filter((who) => who !== acquired.holder);
    if (others.length > 0)
      this.violate(`${runner.name} got ${acquired.slug} holding the data of ${others.join(', ')}`);
    this.moveIn(lease, acquired.holder);
    this.trace.push(`${acquired.holder} deployed into ${acquired.slug}#${acquired.generation}`);
  }

  /** The closed pull request's lease on `slug` ends, and another pull request acquires the slot. */
  private async handOver(slug: string): Promise<void> {
    const holding = this.leases.find((lease) => lease.slug === slug);
    if (holding !== undefined) await this.endOrRenewLease(holding, false);
    const taker = ['pr-1', 'pr-2', 'pr-3'].find((holder) => this.leaseOf(holder) === undefined);
    if (taker === undefined) return;
    const lease = await this.env.client.acquireSpecific({
      type: this.pool,
      slug,
      holder: taker,
      leaseMs: PR_LEASE_MS,
    });
    if (lease === null) return void this.trace.push(`${taker} could not take ${slug}`);
    this.grant(lease, false);
    this.moveIn(lease, taker);
    this.trace.push(`${taker} acquired ${slug}#${lease.generation}`);
  }

  private startRunner(
    name: RunnerName,
    dryRun: boolean,
    fault: RunFault | undefined,
    command: Record<string, string>,
  ): Runner {
    const runner = new Runner({
      name,
      dryRun,
      fault,
      leaseMs: GC_LEASE_MS,
      observer: this,
      inputs: {
        ...command,
        config: this.env.configs[this.names].path,
        pool: this.pool,
        'dry-run': String(dryRun),
        'semaphore-url': this.env.semaphore.url,
        'semaphore-token': this.env.semaphore.token,
        'cloudflare-api-token': this.env.cloudflareToken,
        'cloudflare-account-id': this.twin.accountId,
        'cloudflare-api-base-url': this.twin.baseUrl,
        // gc and cleanup name their `parallel-slots` in `command`; a deploy holds one slot anyway.
        // Slots in parallel stop on their own, each before its own calls: the runner lets one of them
        // go on at a time (the one the plan picks) and waits until every lane in flight is stopped
        // again (runner.ts), and the invariants follow each lease the runner holds on its own.
      },
    });
    this.runners.set(name, runner);
    return runner;
  }

  // RunnerObserver: what the semaphore answered the runners, in plan order.

  granted(runner: Runner, lease: Lease): void {
    this.grant(lease, false);
    this.trace.push(`${runner.name} acquired ${lease.slug}#${lease.generation}`);
  }

  note(line: string): void {
    this.trace.push(line);
  }

  fenced(_runner: Runner, held: HeldLease, ok: boolean): void {
    held.lastFence = { seq: this.next(), ok };
  }

  async beforeForce(runner: Runner, slug: string): Promise<void> {
    const change = runner.name === 'cleanup' ? this.cleanup?.change : undefined;
    if (change === undefined || change === 'none') return;
    if (change === 'pr-renews') return this.renewBeforeForce(slug);
    count('holder changes between a read and a force');
    if (change === 'person-forces') await this.personForces(slug);
    else await this.handOver(slug);
  }

  /** The lease on `slug` is renewed by its holder (a deploy of it runs again) after the force's read. */
  private async renewBeforeForce(slug: string): Promise<void> {
    const holding = this.leases.find((lease) => lease.slug === slug);
    if (holding === undefined) return;
    const renewed = await this.env.client.renew({
      type: this.pool,
      slug,
      leaseId: holding.leaseId,
      leaseMs: PR_LEASE_MS,
    });
    this.trace.push(
      `${holding.holder} renewed ${slug} before the force: ${renewed === null ? 'gone' : 'ok'}`,
    );
    if (renewed === null) return;
    count('renews between a read and a force');
    this.renewedBeforeForce.add(slug);
  }

  released(runner: Runner, request: ReleaseBody, answer: ReleaseAnswer): void {
    const { slug } = request;
    // The newest lease on the slot as the force goes out: the one a force releases, if any.
    const newest = this.grants.filter((g) => g.slug === slug).sort((a, b) => b.generation - a.generation)[0];
    this.releases.push({
      seq: this.next(),
      runner: runner.name,
      slug,
      generation: runner.held.get(slug)?.generation,
      released: answer.released,
      dirty: answer.dirty,
    });
    const how = request.force === true ? ' by force' : request.clean === true ? ' clean' : '';
    this.trace.push(`${runner.name} released ${slug}${how}: ${answer.released}`);
    if (request.force === true) this.checkForce(runner, request, answer, newest);
    this.renewedBeforeForce.delete(slug);
    // Clean means verified: a slot the semaphore now calls clean has nothing left in it.
    if (answer.released && !answer.dirty && !isErased(slotContents(this.twin, this.config, slug))) {
      this.violate(`${runner.name} released ${slug} clean, but it still holds data`);
    }
  }

  /**
   * Only cleanup forces, only the closed pull request's lease, and only on the condition of the
   * holder and generation it read: a force never releases anyone else's lease.
   */
  private checkForce(runner: Runner, request: ReleaseBody, answer: ReleaseAnswer, newest?: Grant): void {
    const closed = `pr-${this.cleanup?.pr}`;
    if (runner.name !== 'cleanup') this.violate(`${runner.name} sent a force release`);
    if (
      request.ifHolder !== closed ||
      request.ifGeneration === undefined ||
      request.ifLeaseVersion === undefined
    )
      this.violate(
        `cleanup of ${closed} forced without the condition of its lease: ${JSON.stringify(request)}`,
      );
    if (answer.conditionFailed) count('forces refused by their condition');
    if (answer.released && newest !== undefined && newest.holder !== closed)
      this.violate(`cleanup of ${closed} force-released the lease of ${newest.holder}#${newest.generation}`);
    // A force pins the lease as it read it: one renewed since is not the one read.
    if (answer.released && this.renewedBeforeForce.has(request.slug))
      this.violate(
        `cleanup of ${closed} force-released ${request.slug}, whose lease was renewed after its read`,
      );
  }

  /**
   * Never erase under someone else's live lease: the runner holds the slot's newest lease, or the
   * newer ones start with a person's force acquire made after its last fence (the fence stops the
   * erase before its next request that is due a renew; the step in flight finishes, even when the
   * person has let the slot go and someone else took it since).
   */
  async destructive(runner: Runner, method: string, path: string, slug: string | null): Promise<void> {
    count('destructive calls checked');
    await this.checkNameOwners(runner, method, path, slug);
    const held = slug === null ? undefined : runner.held.get(slug);
    const forced = (g: Grant) => g.slug === held?.slug && g.force && g.generation > held.generation;
    if (this.grants.some(forced)) count('destructive calls after a force (the step in flight)');
    const problem = this.destructiveProblem(runner, held, path);
    if (problem !== undefined) {
      this.violate(`${runner.name} ${method} ${path.replace(/^.*\/accounts\/[^/]+/, '')}: ${problem}`);
    }
  }

  /** The slot whose resources the path names; with shared names, the one the runner holds first. */
  slotOfChange(runner: Runner, path: string): string | null {
    const named = this.slugs.filter((slug) =>
      slotPathMarkers(this.twin, this.config, slug).some((marker) => `${path}/`.includes(marker)),
    );
    return named.find((slug) => runner.held.has(slug)) ?? named[0] ?? null;
  }

  /**
   * One owner per resource name: a change may touch another slot's resources (a config that gives two
   * slots one name) only while nobody holds that slot. The semaphore says who does, right now.
   */
  private async checkNameOwners(runner: Runner, method: string, path: string, slug: string | null) {
    const others = this.slugs.filter((other) => other !== slug);
    const touched = others.filter((slug) =>
      slotPathMarkers(this.twin, this.config, slug).some((marker) => `${path}/`.includes(marker)),
    );
    if (touched.length === 0) return;
    const listing = await this.env.client.list(this.pool);
    for (const slot of listing.resources.filter((candidate) => touched.includes(candidate.slug))) {
      if (slot.leaseState === 'leased' && !slot.expired)
        this.violate(
          `${runner.name} ${method} ${path.replace(/^.*\/accounts\/[^/]+/, '')} erased a name of ${slot.slug}, under the live lease of ${slot.holder}`,
        );
    }
  }

  /** Judged against the runner's lease on the slot the change touches (each slot in flight has its own). */
  private destructiveProblem(
    runner: Runner,
    current: HeldLease | undefined,
    path: string,
  ): string | undefined {
    const step = eraseStepOf(path);
    const change = { seq: this.next(), step };
    if (runner.dryRun) return 'a dry run changed something';
    if (current === undefined) return 'a change without a lease';
    const fence = current.lastFence;
    const previous = current.lastChange;
    current.lastChange = change;
    if (fence === null || !fence.ok) return 'a change without a successful fence';
    // Each erase step starts with a fence: a new step after the last change needs a newer one.
    if (previous !== null && previous.step !== step && fence.seq < previous.seq)
      return `the ${step} step started without renewing the lease`;
    const newer = this.grants.filter((g) => g.slug === current.slug && g.generation > current.generation);
    // A person's force after the runner's last fence ends its lease without its knowing: the step in
    // flight finishes (the accepted race), also when others take the slot after the person let go.
    const forced = newer.find((g) => g.force && g.seq > fence.seq);
    const stolen = newer.filter((g) => forced === undefined || g.seq < forced.seq);
    if (stolen.length === 0) return undefined;
    return `erased ${current.slug} under the lease of ${stolen.map((g) => `${g.holder}#${g.generation}`).join(', ')}`;
  }

  /** The invariants that are judged once every runner has finished. */
  async verify(): Promise<void> {
    const { client } = this.env;
    const listing = await client.list(this.pool);
    const slots = new Map(listing.resources.map((slot) => [slot.slug, slot]));
    for (const runner of this.finished) this.verifyRunner(runner);
    this.verifyGcLeases(slots, listing.now);
    this.verifyDeployLeases();
    // With shared names a clean slot's resources hold the other slot's data: only gc's refusal counts.
    for (const slot of this.names === 'own' ? listing.resources : []) {
      if (
        slot.leaseState === 'available' &&
        !slot.dirty &&
        !isErased(slotContents(this.twin, this.config, slot.slug))
      ) {
        this.violate(`${slot.slug} is available and clean, but holds data`);
      }
    }
    // The log the invariants were judged on is complete: every lease in the semaphore's own history is in it.
    for (const slug of this.slugs) {
      for (const event of await client.events(this.pool, slug, 500)) {
        if (!['acquired', 'took-expired', 'evicted'].includes(event.event)) continue;
        const logged = this.grants.some(
          (g) => g.slug === slug && g.generation === event.generation && g.holder === event.holder,
        );
        if (!logged)
          this.violate(`the model missed ${event.event} ${slug}#${event.generation} by ${event.holder}`);
      }
    }
  }

  private verifyRunner(runner: Runner): void {
    const run = runner.result;
    const report = run?.report;
    if (run === undefined || report === undefined) {
      this.violate(`${runner.name} left no report`);
      return;
    }
    const leaks = secretLeaks(run, [this.env.semaphore.token, this.env.cloudflareToken]);
    if (leaks.length > 0) this.violate(`${runner.name} showed a token in ${leaks.join(', ')}`);
    for (const problem of summaryEscapeProblems(run.summary)) this.violate(`${runner.name}: ${problem}`);
    if (run.exitCode !== expectedExitCode(report))
      this.violate(`${runner.name} exit code ${run.exitCode} contradicts its report`);
    // Forces are judged as they happen (checkForce); a force acquire is never automation's.
    if (
      runner.semaphoreCalls.some(
        (call) => call.path.endsWith('/acquire-specific') && /"force"\s*:\s*true/.test(call.body),
      )
    )
      this.violate(`${runner.name} sent a force acquire`);
    if (runner.dryRun) {
      const writes = runner.semaphoreCalls.filter((call) => call.method !== 'GET');
      if (writes.length > 0) this.violate(`dry run called ${writes.map((c) => c.path).join(', ')}`);
    }
    // Each slot counts the requests of its own erase: together no more than the run made, also when
    // its slots share the pacer in parallel.
    const erased = report.slots.reduce((sum, slot) => sum + (slot.erase?.requests ?? 0), 0);
    if (report.cloudflare !== null && erased > report.cloudflare.requests)
      this.violate(
        `${runner.name} counted ${erased} requests in its slots' erases, but made ${report.cloudflare.requests}`,
      );
    for (const slot of report.slots) {
      if (slot.outcome !== 'reclaimed') continue;
      // Reclaimed means erased and given back clean: the runner's own release took effect.
      const release = this.releases.find(
        (r) => r.runner === runner.name && r.slug === slot.slug && r.generation === slot.generation,
      );
      if (release?.released === true && !release.dirty) continue;
      this.violate(
        `${runner.name} reported ${slot.slug} reclaimed, but its release answered ${JSON.stringify(release ?? 'nothing')}`,
      );
    }
    // With shared names gc and acquire refuse the slots they would erase: that failure is the point.
    const refusedShared = report.slots.filter(
      (slot) => slot.outcome === 'erase-failed' && /both map to the/.test(slot.problem ?? ''),
    );
    for (const _ of refusedShared) count('shared names refused');
    if (this.names === 'shared' && report.slots.some((slot) => slot.outcome === 'reclaimed'))
      this.violate(`${runner.name} reclaimed a slot whose resources another slot names too`);
    if (this.names === 'shared' && report.acquired !== undefined)
      this.violate(
        `${runner.name} handed over ${report.acquired.slug}, whose resources another slot names too`,
      );
    if (
      !runner.faultInjected &&
      run.exitCode !== 0 &&
      refusedShared.length === 0 &&
      !deployFailedForItsWorld(runner)
    )
      this.violate(`${runner.name} failed without a fault: ${run.log.split('\n').at(-1)}`);
  }

  /** A deploy that handed no slot over keeps no lease it got in this run: released, or taken since. */
  private verifyDeployLeases(): void {
    for (const runner of this.finished.filter(
      (r) => isDeploy(r) && r.result?.report?.acquired === undefined,
    )) {
      for (const granted of runner.granted) {
        const [slug, generation] = granted.split('#');
        const ended = this.releases.some(
          (r) =>
            r.runner === runner.name && r.slug === slug && r.generation === Number(generation) && r.released,
        );
        const superseded = this.grants.some((g) => g.slug === slug && g.generation > Number(generation));
        if (!ended && !superseded && !runner.faultInjected)
          this.violate(`${runner.name} handed nothing over but kept its lease ${granted}`);
      }
    }
  }

  /** Every lease gc took ends released, taken over, or, when its answer was lost, runs out by itself. */
  private verifyGcLeases(slots: Map<string, Slot>, now: number): void {
    for (const grant of this.grants.filter((g) => g.holder === 'gc')) {
      const released = this.releases.some(
        (r) => r.slug === grant.slug && r.generation === grant.generation && r.released,
      );
      const superseded = this.grants.some((g) => g.slug === grant.slug && g.generation > grant.generation);
      if (released || superseded) continue;
      const slot = slots.get(grant.slug);
      const current = slot?.holder === 'gc' && slot.generation === grant.generation;
      if (
        current &&
        slot.leaseState === 'leased' &&
        (slot.leasedUntil ?? Number.POSITIVE_INFINITY) <= now + GC_LEASE_MS
      ) {
        const named = this.finished.some((runner) =>
          runner.result?.report?.slots.some(
            (s) => s.slug === grant.slug && ['acquire-failed', 'release-failed'].includes(s.outcome),
          ),
        );
        if (named) continue;
      }
      this.violate(
        `gc's lease ${grant.slug}#${grant.generation} was neither released nor ends by itself with a failed run naming it`,
      );
    }
  }
}

function isDeploy(runner: Runner): boolean {
  return runner.name.startsWith('deploy-');
}

/** What the coverage counts a finished run as. */
function kindOfRun(runner: Runner): string {
  if (isDeploy(runner)) return 'deploys';
  if (runner.name === 'cleanup') return 'cleanup runs';
  return runner.dryRun ? 'dry runs' : 'gc runs';
}

/**
 * Failures a deploy meets without any fault of its own: no slot could be had (both held, or needing
 * repair), or a person forced its slot away during the erase.
 */
function deployFailedForItsWorld(runner: Runner): boolean {
  if (!isDeploy(runner)) return false;
  const report = runner.result?.report;
  const problems = report?.problems.join(' ') ?? '';
  return /could be had/.test(problems) || report?.slots.some((slot) => slot.outcome === 'skipped') === true;
}

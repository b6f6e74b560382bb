// The world of one model run: one pool of two slots on the real semaphore (with its test clock), a
// Cloudflare twin, pull requests and a person acting on the semaphore directly, up to two GC runners
// (GitHub's and Depot's) and the deploy jobs of three pull requests (acquire), which the plan moves
// forward one semaphore call or destructive Cloudflare call at a time. Every lease the semaphore grants is logged in plan order, which is what
// the invariants are checked against, as they happen and at the end.
import type { SlotConfig } from '../../../src/config/slot-config.ts';
import { type SemaphoreClient, SemaphoreError } from '../../../src/semaphore/client.ts';
import type { LocalSemaphore } from '../../../src/semaphore/local.ts';
import type { Lease, Slot } from '../../../src/semaphore/protocol.ts';
import { expectedExitCode } from '../../support/exit-policy.ts';
import { secretLeaks, summaryEscapeProblems } from '../../support/run-checks.ts';
import { advanceClock } from '../../support/test-clock.ts';
import {
  eraseStepOf,
  isErased,
  slotContents,
  slotSeed,
  tenantData,
  tenantsIn,
} from '../../support/twin-slot.ts';
import { startTwin, type Twin } from '../../twin/twin.ts';
import {
  type DEPLOY_PULL_REQUESTS,
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

export interface ModelEnv {
  semaphore: LocalSemaphore;
  client: SemaphoreClient;
  config: SlotConfig;
  configPath: string;
  cloudflareToken: string;
}

export type SlotStart = 'clean' | 'dirty' | 'live' | 'expired';

export type Step =
  | { kind: 'pr-acquire' | 'pr-renew' | 'pr-release'; pr: number }
  | { kind: 'force'; slot: 0 | 1 }
  | { kind: 'person-release' }
  | { kind: 'advance'; by: keyof typeof ADVANCE_MS }
  | { kind: 'gc-start'; runner: RunnerName; dryRun: boolean; fault: RunFault | null }
  | { kind: 'gc-step'; runner: RunnerName; times: number }
  /** A pull request pushes: its deploy job starts (or, running, goes on one stop). */
  | { kind: 'deploy'; pr: (typeof DEPLOY_PULL_REQUESTS)[number]; fault: RunFault | null }
  /** Moves the runner on until it waits before that kind of call (or ends). */
  | { kind: 'gc-until'; runner: RunnerName; before: StopKind };

export interface Plan {
  start: [SlotStart, SlotStart];
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
  private readonly leases = new Map<string, Lease>();
  private readonly runners = new Map<RunnerName, Runner>();
  private readonly finished: Runner[] = [];

  private readonly env: ModelEnv;
  readonly pool: string;
  readonly slugs: [string, string];
  private readonly twin: Twin;

  private constructor(env: ModelEnv, pool: string, slugs: [string, string], twin: Twin) {
    this.env = env;
    this.pool = pool;
    this.slugs = slugs;
    this.twin = twin;
  }

  static async create(env: ModelEnv, id: string, start: Plan['start']): Promise<World> {
    const slugs: [string, string] = [`${id}-a`, `${id}-b`];
    const clean = slugs.filter((_, index) => start[index] === 'clean');
    const twin = await startTwin({ token: env.cloudflareToken, seed: slotSeed(env.config, slugs, clean) });
    const world = new World(env, `model-${id}`, slugs, twin);
    await world.seed(start);
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

  private async seed(start: Plan['start']): Promise<void> {
    const { client } = this.env;
    for (const [index, slug] of this.slugs.entries()) {
      await client.add({ type: this.pool, slug });
      const state = start[index];
      if (state === 'clean') continue;
      const holder = `pr-${90 + index}`;
      const leaseMs = state === 'expired' ? 1_000 : PR_LEASE_MS;
      const lease = await client.acquireSpecific({ type: this.pool, slug, holder, leaseMs });
      if (lease === null) throw new Error(`model: ${slug} could not be leased`);
      this.grant(lease, false);
      if (state === 'dirty') await client.release({ type: this.pool, slug, leaseId: lease.leaseId });
    }
    if (start.includes('expired')) await advanceClock(this.env.semaphore, this.pool, 2_000);
    this.trace.push(`start ${start.join('/')}`);
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

  /** A tenant deploys into the slot it got: new rows, keys and a redeployed Worker. */
  private moveIn(lease: Lease, who: string): void {
    this.twin.seed(tenantData(this.env.config, lease.slug, who));
    this.leases.set(who, lease);
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

  private async stepRunner(runner: Runner): Promise<void> {
    await runner.step();
    if (!runner.done) return;
    this.runners.delete(runner.name);
    this.finished.push(runner);
    if (isDeploy(runner)) await this.handOver(runner);
    count(isDeploy(runner) ? 'deploys' : runner.dryRun ? 'dry runs' : 'gc runs');
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
        return this.gcStarts(step.runner, step.dryRun, step.fault ?? undefined);
      case 'deploy':
        return this.gcStarts(`deploy-${step.pr}`, false, step.fault ?? undefined);
      case 'gc-step':
        for (let i = 0; i < step.times; i++) {
          const runner = this.runners.get(step.runner);
          if (runner !== undefined) await this.stepRunner(runner);
        }
        return;
      case 'gc-until':
        for (let runner = this.runners.get(step.runner); runner; runner = this.runners.get(step.runner)) {
          await this.stepRunner(runner);
          if (runner.waitingBefore === step.before) return;
        }
        return;
    }
  }

  private async pullRequestAcquires(holder: string): Promise<void> {
    if (this.leases.has(holder)) return;
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

  private async gcStarts(name: RunnerName, dryRun: boolean, fault: RunFault | undefined): Promise<void> {
    const running = this.runners.get(name);
    if (running !== undefined) return this.stepRunner(running);
    const runner = this.startRunner(name, dryRun, fault);
    const how = `${dryRun ? ' (dry run)' : ''}${fault ? ` with fault ${JSON.stringify(fault)}` : ''}`;
    this.trace.push(`${name} started${how}`);
    await runner.start();
  }

  private async endOrRenew(holder: string, renew: boolean): Promise<void> {
    const lease = this.leases.get(holder);
    if (lease === undefined) return;
    const { client } = this.env;
    if (renew) {
      const renewed = await client.renew({
        type: this.pool,
        slug: lease.slug,
        leaseId: lease.leaseId,
        leaseMs: PR_LEASE_MS,
      });
      if (renewed === null) this.leases.delete(holder);
      this.trace.push(`${holder} renewed ${lease.slug}: ${renewed === null ? 'gone' : 'ok'}`);
      return;
    }
    const answer = await client.release({ type: this.pool, slug: lease.slug, leaseId: lease.leaseId });
    this.leases.delete(holder);
    this.trace.push(`${holder} released ${lease.slug}: ${answer.released}`);
  }

  /**
   * Time passes, on the semaphore's clock only. While a runner holds a lease, no more than one GC
   * lease passes between two of its fences: a runner renews inside a long step by its own clock,
   * which a jump does not move (real time: long-step.test.ts; see docs/reliability.md).
   */
  private async advance(ms: number): Promise<void> {
    const holding = this.running().filter((runner) => runner.current !== null);
    if (holding.some((runner) => runner.advancedSinceFence + ms >= GC_LEASE_MS)) {
      this.trace.push(`clock +${ms / 1000} s skipped (a runner is mid-step)`);
      return;
    }
    await advanceClock(this.env.semaphore, this.pool, ms);
    for (const runner of holding) runner.advancedSinceFence += ms;
    this.trace.push(`clock +${ms / 1000} s`);
  }

  private startRunner(name: RunnerName, dryRun: boolean, fault: RunFault | undefined): Runner {
    const command: Record<string, string> = name.startsWith('deploy-')
      ? {
          command: 'acquire',
          'pull-request': name.slice('deploy-'.length),
          'lease-minutes': String(DEPLOY_LEASE_MINUTES),
        }
      : { command: 'gc' };
    const runner = new Runner({
      name,
      dryRun,
      fault,
      leaseMs: GC_LEASE_MS,
      observer: this,
      inputs: {
        ...command,
        config: this.env.configPath,
        pool: this.pool,
        'dry-run': String(dryRun),
        'semaphore-url': this.env.semaphore.url,
        'semaphore-token': this.env.semaphore.token,
        'cloudflare-api-token': this.env.cloudflareToken,
        'cloudflare-account-id': this.twin.accountId,
        'cloudflare-api-base-url': this.twin.baseUrl,
      },
    });
    this.runners.set(name, runner);
    return runner;
  }

  /**
   * A deploy ended. With a slot handed over and still its own, the slot holds no one else's data (the
   * erase on acquire), and the pull request moves in; a deploy that handed nothing over holds no lease
   * it got this run (checked at the end, in verifyDeployLeases).
   */
  private async handOver(runner: Runner): Promise<void> {
    const acquired = runner.result?.report?.acquired;
    const lease = runner.lastLease;
    if (acquired === undefined || lease === null) return;
    const slot = await this.env.client.find(this.pool, acquired.slug);
    if (slot.holder !== acquired.holder || slot.generation !== acquired.generation) {
      count('hand-overs taken away before the deploy');
      return;
    }
    count(acquired.wasDirty ? 'hand-overs erased first' : 'hand-overs without an erase');
    const others = tenantsIn(this.twin, this.env.config, acquired.slug).filter(
      (who) => who !== acquired.holder,
    );
    if (others.length > 0)
      this.violate(`${runner.name} got ${acquired.slug} holding the data of ${others.join(', ')}`);
    this.moveIn(lease, acquired.holder);
    this.trace.push(`${acquired.holder} deployed into ${acquired.slug}#${acquired.generation}`);
  }

  // RunnerObserver: what the semaphore answered the runners, in plan order.

  granted(runner: Runner, lease: Lease): void {
    this.grant(lease, false);
    this.trace.push(`${runner.name} acquired ${lease.slug}#${lease.generation}`);
  }

  note(line: string): void {
    this.trace.push(line);
  }

  fenced(runner: Runner, ok: boolean): void {
    runner.lastFence = { seq: this.next(), ok };
  }

  released(
    runner: Runner,
    slug: string,
    answer: { released: boolean; dirty: boolean },
    clean: boolean,
  ): void {
    this.releases.push({
      seq: this.next(),
      runner: runner.name,
      slug,
      generation: runner.current?.generation,
      ...answer,
    });
    this.trace.push(`${runner.name} released ${slug}${clean ? ' clean' : ''}: ${answer.released}`);
    // Clean means verified: a slot the semaphore now calls clean has nothing left in it.
    if (answer.released && !answer.dirty && !isErased(slotContents(this.twin, this.env.config, slug))) {
      this.violate(`${runner.name} released ${slug} clean, but it still holds data`);
    }
  }

  /**
   * Never erase under someone else's live lease: the runner holds the slot's newest lease, or the
   * newer ones start with a person's force acquire made after its last fence (the fence stops the
   * erase before its next request that is due a renew; the step in flight finishes, even when the
   * person has let the slot go and someone else took it since).
   */
  destructive(runner: Runner, method: string, path: string): void {
    count('destructive calls checked');
    const current = runner.current;
    const forced = (g: Grant) => g.slug === current?.slug && g.force && g.generation > current.generation;
    if (this.grants.some(forced)) count('destructive calls after a force (the step in flight)');
    const problem = this.destructiveProblem(runner, path);
    if (problem !== undefined) {
      this.violate(`${runner.name} ${method} ${path.replace(/^.*\/accounts\/[^/]+/, '')}: ${problem}`);
    }
  }

  private destructiveProblem(runner: Runner, path: string): string | undefined {
    const current = runner.current;
    const fence = runner.lastFence;
    const previous = runner.lastChange;
    const step = eraseStepOf(path);
    runner.lastChange = { seq: this.next(), step };
    if (runner.dryRun) return 'a dry run changed something';
    if (current === null) return 'a change without a lease';
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
    for (const slot of listing.resources) {
      if (
        slot.leaseState === 'available' &&
        !slot.dirty &&
        !isErased(slotContents(this.twin, this.env.config, slot.slug))
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
    if (runner.semaphoreCalls.some((call) => /"force"\s*:\s*true/.test(call.body)))
      this.violate(`${runner.name} sent a force call`);
    if (runner.dryRun) {
      const writes = runner.semaphoreCalls.filter((call) => call.method !== 'GET');
      if (writes.length > 0) this.violate(`dry run called ${writes.map((c) => c.path).join(', ')}`);
    }
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
    if (!runner.faultInjected && run.exitCode !== 0 && !failedForItsWorld(runner))
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

/**
 * Failures a deploy meets without any fault of its own: no slot could be had (both held, or needing
 * repair), or a person forced its slot away during the erase.
 */
function failedForItsWorld(runner: Runner): boolean {
  if (!isDeploy(runner)) return false;
  const report = runner.result?.report;
  const problems = report?.problems.join(' ') ?? '';
  return /could be had/.test(problems) || report?.slots.some((slot) => slot.outcome === 'skipped') === true;
}

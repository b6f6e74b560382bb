// One runner of the model: a GC run (GitHub's or Depot's), the cleanup of a closed pull request, or a
// pull request's deploy job (acquire). The real action in-process, whose semaphore and Cloudflare
// traffic passes through wrappers that (1) stop it before every semaphore call and every destructive
// Cloudflare call until the model lets it go on, so other actors act in between, (2) tell the world
// what the semaphore really answered, and (3) inject the run's one fault. With slots in parallel,
// each slot in flight (a lane of workThroughSlots) stops on its own: the runner keeps a queue of
// stopped calls and counts on the action's progress events to know how many lanes it waits for.
import type { ProgressEvent } from '../../../src/commands/context.ts';
import type { Lease, ReleaseAnswer } from '../../../src/semaphore/protocol.ts';
import { type InProcessRun, runActionInProcess } from '../../support/in-process-action.ts';

/** The deploy jobs of three pull requests, pr-11 to pr-13. */
export const DEPLOY_PULL_REQUESTS = [11, 12, 13] as const;
export type DeployPullRequest = (typeof DEPLOY_PULL_REQUESTS)[number];
export type DeployRunnerName = `deploy-${DeployPullRequest}`;
export type GcRunnerName = 'github' | 'depot';
/** GitHub's and Depot's gc, the cleanup of a closed pull request, and the deploy jobs. */
export type RunnerName = GcRunnerName | 'cleanup' | DeployRunnerName;
export type StopKind = 'list' | 'acquire' | 'renew' | 'release' | 'mark' | 'find' | 'change';

/** Calls that hand out a lease: gc's and cleanup's acquire-specific, and a deploy's acquire (any slot). */
const isAcquire = (pathname: string) =>
  pathname.endsWith('/acquire-specific') || pathname.endsWith('/resources/acquire');

function stopKindOf(pathname: string): StopKind {
  if (isAcquire(pathname)) return 'acquire';
  if (pathname.endsWith('/mark-dirty')) return 'mark';
  if (pathname.endsWith('/renew')) return 'renew';
  if (pathname.endsWith('/release')) return 'release';
  return pathname === '/api/resources' ? 'list' : 'find';
}

export type RunFault =
  /** lost: the semaphore did the work, the answer never arrived; refused: HTTP 500; garbled: invalid JSON after the work. */
  | { side: 'semaphore'; nth: number; kind: 'lost' | 'refused' | 'garbled' }
  /** The nth Cloudflare call answers 200 with success:false, or a body that is not JSON. */
  | { side: 'cloudflare'; nth: number; kind: 'refused' | 'malformed' };

/** What the runner reports to the world, which keeps the one log every invariant is checked on. */
export interface RunnerObserver {
  granted(runner: Runner, lease: Lease): void;
  /** The runner proved its lease on `held.slug` (an acquire or a renew), or learnt it is gone. */
  fenced(runner: Runner, held: HeldLease, ok: boolean): void;
  released(runner: Runner, request: ReleaseBody, answer: ReleaseAnswer): void;
  /** Right before a force goes out: the world may hand the slot to someone else now. */
  beforeForce(runner: Runner, slug: string): Promise<void>;
  /** The slot whose resources a Cloudflare path names (the runner's own one first), or null. */
  slotOfChange(runner: Runner, path: string): string | null;
  /** Checked before the call goes out (the world may look at the semaphore meanwhile). */
  destructive(runner: Runner, method: string, path: string, slug: string | null): Promise<void>;
  note(line: string): void;
}

/** What a release asked for, as the semaphore received it. */
export interface ReleaseBody {
  slug: string;
  clean?: boolean;
  force?: boolean;
  ifHolder?: string;
  ifGeneration?: number;
  ifLeaseVersion?: number;
}

/** A lease the runner knows it holds, from its acquire answer until it sends the release. */
export interface HeldLease {
  slug: string;
  generation: number;
  /** Its last fence (the acquire, then each renew): the model log's sequence number and the answer. */
  lastFence: { seq: number; ok: boolean } | null;
  /** The latest change under it: its sequence number and the erase step it belongs to. */
  lastChange: { seq: number; step: string } | null;
  /** Server time the model moved the clock on since the lease was last acquired or renewed. */
  advancedSinceFence: number;
}

/** A call the runner is stopped before, and the slot it is about (none for a listing or a deploy's acquire). */
export interface StoppedCall {
  kind: StopKind;
  slug: string | null;
  resume: () => void;
}

export interface RunnerOptions {
  name: RunnerName;
  dryRun: boolean;
  fault: RunFault | undefined;
  inputs: Record<string, string>;
  leaseMs: number;
  observer: RunnerObserver;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Calls an erase makes to change something; reads (listings, the D1 table list) are not among them. */
export function isDestructive(method: string, pathname: string, body: string): boolean {
  if (method === 'PUT' || method === 'DELETE') return true;
  if (method !== 'POST') return false;
  return (
    pathname.endsWith('/bulk/delete') || (pathname.endsWith('/query') && /\b(DELETE|DROP)\b/i.test(body))
  );
}

function bodyText(init: RequestInit | undefined): string {
  return typeof init?.body === 'string' ? init.body : '';
}

/** The slot a semaphore call is about: its body's `slug`, or a single slot's path (a find). */
function slugOfCall(pathname: string, body: string): string | null {
  const slug = (parse(body) as { slug?: unknown } | undefined)?.slug;
  if (typeof slug === 'string') return slug;
  const path = /^\/api\/resources\/[^/]+\/([^/]+)$/.exec(pathname);
  return path === null ? null : decodeURIComponent(path[1] as string);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class Runner {
  readonly name: RunnerName;
  readonly dryRun: boolean;
  readonly fault: RunFault | undefined;
  /** The leases the runner knows it holds, by slot: one per slot in flight. */
  readonly held = new Map<string, HeldLease>();
  /** Its last acquire answer, whole (a deploy's lease, which the pull request keeps). */
  lastLease: Lease | null = null;
  /** Leases the semaphore granted this run (slug#generation), reused ones included. */
  readonly granted: string[] = [];
  faultInjected = false;
  readonly semaphoreCalls: { method: string; path: string; body: string }[] = [];
  readonly destructiveCalls: string[] = [];
  result: InProcessRun | undefined;
  /** The calls the runner waits before now, in the order they stopped: one per lane at most. */
  readonly stopped: StoppedCall[] = [];
  /** The most calls of this run that waited at once (two or more: slots in parallel, interleaved). */
  mostStoppedAtOnce = 0;
  private calls = { semaphore: 0, cloudflare: 0 };
  private readonly options: RunnerOptions;
  /** Slots started and not finished (workThroughSlots' lanes at work). */
  private slotsInFlight = 0;
  private waiting: (() => void)[] = [];

  constructor(options: RunnerOptions) {
    this.options = options;
    this.name = options.name;
    this.dryRun = options.dryRun;
    this.fault = options.fault;
  }

  get done(): boolean {
    return this.result !== undefined;
  }

  /** Starts the run and returns once it waits before its first semaphore call. */
  async start(): Promise<void> {
    void runActionInProcess(this.options.inputs, {
      leaseMs: this.options.leaseMs,
      ratePerSecond: 1_000,
      semaphoreFetch: (inner) => this.semaphoreFetch(inner),
      cloudflareFetch: (inner) => this.cloudflareFetch(inner),
      onProgress: (event) => this.progressed(event),
    }).then((result) => {
      this.result = result;
      this.changed();
    });
    await this.settled();
  }

  /**
   * Lets one stopped call go on (`pick`, modulo the calls stopped: the plan chooses the lane) and
   * returns once the runner is settled again.
   */
  async step(pick = 0): Promise<void> {
    const [call] = this.stopped.splice(pick % Math.max(1, this.stopped.length), 1);
    call?.resume();
    await this.settled();
  }

  private progressed(event: ProgressEvent): void {
    if (event.kind === 'slot-started') this.slotsInFlight += 1;
    else if (event.kind === 'slot-finished') this.slotsInFlight -= 1;
    else return;
    this.changed();
  }

  /**
   * Settled: the run ended, or each of its flows waits before a call: every slot in flight, or the
   * command's own flow while no slot is (before the first slot starts and after the last one ends).
   * A flow that runs (between calls, or waiting on a timer or an answer) keeps the runner unsettled.
   * A slot whose work throws (a bug, not an outcome) sends no `slot-finished`: the runner then waits
   * for it until the test's timeout, which fails the test rather than letting a lane run unwatched.
   */
  private get isSettled(): boolean {
    return this.done || this.stopped.length >= Math.max(1, this.slotsInFlight);
  }

  /**
   * Judged after each event (a call stops, a slot starts or finishes, the run ends), once the
   * action's synchronous turn is over: a lane that finishes a slot starts its next slot in the same
   * turn, and must not be taken for a lane that ended.
   */
  private changed(): void {
    queueMicrotask(() => {
      if (!this.isSettled) return;
      const waiting = this.waiting;
      this.waiting = [];
      for (const wake of waiting) wake();
    });
  }

  private settled(): Promise<void> {
    if (this.isSettled) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private stop(kind: StopKind, slug: string | null): Promise<void> {
    return new Promise<void>((resume) => {
      this.stopped.push({ kind, slug, resume });
      this.mostStoppedAtOnce = Math.max(this.mostStoppedAtOnce, this.stopped.length);
      this.changed();
    });
  }

  private takeFault(side: RunFault['side'], nth: number): RunFault['kind'] | undefined {
    if (this.fault?.side !== side || this.fault.nth !== nth) return undefined;
    this.faultInjected = true;
    return this.fault.kind;
  }

  private semaphoreFetch(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const url = new URL(String(input));
      const body = bodyText(init);
      await this.stop(stopKindOf(url.pathname), slugOfCall(url.pathname, body));
      const method = init?.method ?? 'GET';
      const request = parse(body) as ReleaseBody | undefined;
      if (request?.force === true) await this.options.observer.beforeForce(this, request.slug);
      this.semaphoreCalls.push({ method, path: `${url.pathname}${url.search}`, body });
      this.calls.semaphore += 1;
      const fault = this.takeFault('semaphore', this.calls.semaphore);
      if (fault === 'refused') {
        const error = { error: { code: 'internal', message: 'model fault: the semaphore failed' } };
        return new Response(JSON.stringify(error), { status: 500, headers: JSON_HEADERS });
      }
      const headers = { ...(init?.headers as Record<string, string>), 'accept-encoding': 'identity' };
      const response = await inner(input, { ...init, headers });
      const text = await response.text();
      // The world learns what the semaphore did even when the runner never does.
      if (response.ok) this.observe(url.pathname, body, parse(text), fault === undefined || fault === 'lost');
      if (fault === 'lost')
        throw new TypeError('fetch failed', { cause: new Error('ECONNRESET (model fault)') });
      if (fault === 'garbled') return new Response('{"leaseId": ', { status: 200, headers: JSON_HEADERS });
      return new Response(text, { status: response.status, headers: JSON_HEADERS });
    };
  }

  /** `known`: the runner will see this answer (a lost one is retried and seen then). */
  private observe(pathname: string, requestBody: string, answer: unknown, known: boolean): void {
    const request = parse(requestBody) as ReleaseBody | undefined;
    const { observer } = this.options;
    if (isAcquire(pathname) && answer !== null && answer !== undefined) {
      const lease = answer as Lease;
      observer.granted(this, lease);
      this.granted.push(`${lease.slug}#${lease.generation}`);
      if (known) {
        this.lastLease = lease;
        const held: HeldLease = {
          slug: lease.slug,
          generation: lease.generation,
          lastFence: null,
          lastChange: null,
          advancedSinceFence: 0,
        };
        this.held.set(lease.slug, held);
        // A fresh lease proves the slot is the runner's just like a renew does.
        observer.fenced(this, held, true);
      }
    }
    const renewed = request?.slug === undefined ? undefined : this.held.get(request.slug);
    if (pathname.endsWith('/renew') && known && renewed !== undefined) {
      observer.fenced(this, renewed, answer !== null);
      observer.note(`${this.name} renewed ${renewed.slug}: ${answer === null ? 'gone' : 'ok'}`);
      if (answer !== null) renewed.advancedSinceFence = 0;
    }
    if (pathname.endsWith('/release') && request?.slug !== undefined) {
      observer.released(this, request, answer as ReleaseAnswer);
      this.held.delete(request.slug);
    }
  }

  private cloudflareFetch(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const method = (init?.method ?? 'GET').toUpperCase();
      if (isDestructive(method, url.pathname, bodyText(init))) {
        const slug = this.options.observer.slotOfChange(this, url.pathname);
        await this.stop('change', slug);
        this.destructiveCalls.push(`${method} ${url.pathname}`);
        await this.options.observer.destructive(this, method, url.pathname, slug);
      }
      this.calls.cloudflare += 1;
      const fault = this.takeFault('cloudflare', this.calls.cloudflare);
      if (fault === 'refused') {
        const refusal = { success: false, errors: [{ code: 10002, message: 'model fault' }], result: null };
        return new Response(JSON.stringify(refusal), { status: 200, headers: JSON_HEADERS });
      }
      if (fault === 'malformed')
        return new Response('{"success": tr', { status: 200, headers: JSON_HEADERS });
      return inner(input, init);
    };
  }
}

// One runner of the model: a GC run (GitHub's or Depot's), the cleanup of a closed pull request, or a
// pull request's deploy job (acquire). The real action in-process, whose semaphore and Cloudflare
// traffic passes through wrappers that (1) stop it before every semaphore call and every destructive
// Cloudflare call until the model lets it go on, so other actors act in between, (2) tell the world
// what the semaphore really answered, and (3) inject the run's one fault.
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
  fenced(runner: Runner, ok: boolean): void;
  released(runner: Runner, request: ReleaseBody, answer: ReleaseAnswer): void;
  /** Right before a force goes out: the world may hand the slot to someone else now. */
  beforeForce(runner: Runner, slug: string): Promise<void>;
  /** Checked before the call goes out (the world may look at the semaphore meanwhile). */
  destructive(runner: Runner, method: string, path: string): Promise<void>;
  note(line: string): void;
}

/** What a release asked for, as the semaphore received it. */
export interface ReleaseBody {
  slug: string;
  clean?: boolean;
  force?: boolean;
  ifHolder?: string;
  ifGeneration?: number;
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
  /** The lease the runner knows it holds (its last acquire answer), until it sends the release. */
  current: { slug: string; generation: number } | null = null;
  /** Its last acquire answer, whole (a deploy's lease, which the pull request keeps). */
  lastLease: Lease | null = null;
  /** Leases the semaphore granted this run (slug#generation), reused ones included. */
  readonly granted: string[] = [];
  /** Its last fence (renew) of the current lease: the model log's sequence number and the answer. */
  lastFence: { seq: number; ok: boolean } | null = null;
  /** The runner's latest change: its sequence number and the erase step it belongs to. */
  lastChange: { seq: number; step: string } | null = null;
  /** Server time the model moved the clock on since the runner last acquired or renewed. */
  advancedSinceFence = 0;
  faultInjected = false;
  readonly semaphoreCalls: { method: string; path: string; body: string }[] = [];
  readonly destructiveCalls: string[] = [];
  result: InProcessRun | undefined;
  /** Where the runner waits now: before a semaphore call (`list`, `acquire`, `renew`, `release`) or a `change`. */
  waitingBefore: StopKind | null = null;
  private calls = { semaphore: 0, cloudflare: 0 };
  private readonly options: RunnerOptions;
  private resume: (() => void) | null = null;
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
    }).then((result) => {
      this.result = result;
      this.arrived();
    });
    await this.settled();
  }

  /** Lets the runner go on to its next stop (or to its end). */
  async step(): Promise<void> {
    const resume = this.resume;
    this.resume = null;
    resume?.();
    await this.settled();
  }

  private arrived(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  private settled(): Promise<void> {
    if (this.done || this.resume !== null) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private async stop(kind: StopKind): Promise<void> {
    await new Promise<void>((resolve) => {
      this.waitingBefore = kind;
      this.resume = resolve;
      this.arrived();
    });
    this.waitingBefore = null;
  }

  private takeFault(side: RunFault['side'], nth: number): RunFault['kind'] | undefined {
    if (this.fault?.side !== side || this.fault.nth !== nth) return undefined;
    this.faultInjected = true;
    return this.fault.kind;
  }

  private semaphoreFetch(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const url = new URL(String(input));
      await this.stop(stopKindOf(url.pathname));
      const method = init?.method ?? 'GET';
      const body = bodyText(init);
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
        this.current = { slug: lease.slug, generation: lease.generation };
        this.lastChange = null;
        this.advancedSinceFence = 0;
        // A fresh lease proves the slot is the runner's just like a renew does.
        observer.fenced(this, true);
      }
    }
    if (pathname.endsWith('/renew') && known) {
      observer.fenced(this, answer !== null);
      observer.note(`${this.name} renewed: ${answer === null ? 'gone' : 'ok'}`);
      if (answer !== null) this.advancedSinceFence = 0;
    }
    if (pathname.endsWith('/release') && request?.slug !== undefined) {
      observer.released(this, request, answer as ReleaseAnswer);
      this.current = null;
    }
  }

  private cloudflareFetch(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const method = (init?.method ?? 'GET').toUpperCase();
      if (isDestructive(method, url.pathname, bodyText(init))) {
        await this.stop('change');
        this.destructiveCalls.push(`${method} ${url.pathname}`);
        await this.options.observer.destructive(this, method, url.pathname);
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

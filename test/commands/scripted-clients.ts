// Injected clients for the unit tests of the commands. The semaphore is the real SemaphoreClient with
// the calls the commands make answered by the test, so each test states what the semaphore says; a
// call nobody scripted goes to a transport that refuses it. The eraser stands for the Cloudflare side:
// it runs its steps one after another, asking the fence before each, as the SlotEraser contract says.

import type { CommandContext, EraseOutcome, EraseRequest, SlotEraser } from '../../src/commands/context.ts';
import { ACTION_PLACE } from '../../src/config/run-place.ts';
import type { EraseStepReport } from '../../src/report/model.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import type {
  AcquireSpecificRequest,
  ExtendAnswer,
  ExtendRequest,
  Lease,
  MarkDirtyRequest,
  RecordActivityAnswer,
  RecordActivityRequest,
  ReleaseAnswer,
  ReleaseRequest,
  RenewRequest,
  Slot,
} from '../../src/semaphore/protocol.ts';
import { newSlotRecord } from '../semaphore/helpers.ts';
import { everyKind } from '../support/every-kind.ts';

export const POOL = 'preview-slot';
export const NOW = 1_784_000_000_000;
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** A slot of the pool, free and clean unless `fields` say otherwise. */
export function slotRecord(slug: string, fields: Partial<Slot> = {}): Slot {
  return {
    ...newSlotRecord(POOL, slug, NOW - 100 * HOUR),
    generation: 3,
    updatedAt: NOW - 10 * HOUR,
    ...fields,
  };
}

/** A slot whose pull request's lease ran out `ago` before now: what a sweep takes back. */
export function expiredSlot(slug: string, ago = 2 * HOUR): Slot {
  return slotRecord(slug, {
    leaseState: 'leased',
    holder: 'pr-10',
    leasedUntil: NOW - ago,
    expired: true,
    dirty: true,
  });
}

export type SemaphoreCall =
  | { op: 'list' }
  | { op: 'find'; slug: string }
  | { op: 'acquire-specific'; request: AcquireSpecificRequest }
  | { op: 'renew'; request: RenewRequest }
  | { op: 'release'; request: ReleaseRequest }
  | { op: 'extend'; request: ExtendRequest }
  | { op: 'mark-dirty'; request: MarkDirtyRequest }
  | { op: 'record-activity'; request: RecordActivityRequest };

const refuseUnscripted: typeof fetch = async (input) => {
  throw new Error(`the test did not script ${String(input)}`);
};

/** The lease a healthy semaphore hands over for `request`: the slot's next generation. */
export function leaseFor(request: AcquireSpecificRequest, generation = 4): Lease {
  return {
    type: request.type,
    slug: request.slug,
    data: {},
    leaseId: `lease-${request.slug}-${generation}`,
    holder: request.holder,
    expiresAt: NOW + request.leaseMs,
    generation,
    leaseVersion: 1,
    wasDirty: true,
    previousHolder: 'pr-10',
    reused: false,
    tookExpired: true,
  };
}

/** The release answer of a semaphore that saw the GC's own lease (no condition was sent). */
export function releaseAnswer(released: boolean, dirty: boolean): ReleaseAnswer {
  return { released, dirty, holder: 'gc', generation: 4, leaseVersion: 1, conditionFailed: false };
}

export class ScriptedSemaphore extends SemaphoreClient {
  readonly calls: SemaphoreCall[] = [];
  listing: { now: number; resources: Slot[] } = { now: NOW, resources: [] };
  // What the semaphore answers; each starts as a healthy semaphore would answer.
  answerAcquire: (request: AcquireSpecificRequest) => Promise<Lease | null> = async (request) =>
    leaseFor(request);
  answerRenew: (request: RenewRequest) => Promise<Lease | null> = async (request) =>
    leaseFor({ type: request.type, slug: request.slug, holder: 'gc', leaseMs: request.leaseMs });
  answerRelease: (request: ReleaseRequest) => Promise<ReleaseAnswer> = async (request) =>
    releaseAnswer(true, request.clean !== true);
  /** A semaphore whose lease is still the one read: extended by leaseMs from the listing's now. */
  answerExtend: (request: ExtendRequest) => Promise<ExtendAnswer> = async (request) => ({
    extended: true,
    holder: request.ifHolder,
    generation: request.ifGeneration,
    leaseVersion: request.ifLeaseVersion + 1,
    leasedUntil: this.listing.now + request.leaseMs,
    conditionFailed: false,
    queue: { length: 0, oldestWaitMs: 0 },
  });
  answerFind: (slug: string) => Promise<Slot> = async (slug) => {
    throw new Error(`the test did not script find(${slug})`);
  };
  /** A semaphore that keeps every record and allows every alert asked for. */
  answerRecordActivity: (request: RecordActivityRequest) => Promise<RecordActivityAnswer> = async (
    request,
  ) => ({
    recorded: request.slots.map((slot) => slot.slug),
    alerted: request.slots.filter((slot) => slot.alert === true).map((slot) => slot.slug),
  });

  constructor() {
    super({ baseUrl: 'http://127.0.0.1:9', token: 'scripted', fetch: refuseUnscripted });
  }

  override get requestCount(): number {
    return this.calls.length;
  }

  override async list(): Promise<{ now: number; resources: Slot[] }> {
    this.calls.push({ op: 'list' });
    return this.listing;
  }

  override find(_type: string, slug: string): Promise<Slot> {
    this.calls.push({ op: 'find', slug });
    return this.answerFind(slug);
  }

  override acquireSpecific(request: AcquireSpecificRequest): Promise<Lease | null> {
    this.calls.push({ op: 'acquire-specific', request });
    return this.answerAcquire(request);
  }

  override renew(request: RenewRequest): Promise<Lease | null> {
    this.calls.push({ op: 'renew', request });
    return this.answerRenew(request);
  }

  override release(request: ReleaseRequest): Promise<ReleaseAnswer> {
    this.calls.push({ op: 'release', request });
    return this.answerRelease(request);
  }

  override extend(request: ExtendRequest): Promise<ExtendAnswer> {
    this.calls.push({ op: 'extend', request });
    return this.answerExtend(request);
  }

  override async markDirty(request: MarkDirtyRequest): Promise<Slot> {
    this.calls.push({ op: 'mark-dirty', request });
    return slotRecord(request.slug, { dirty: true });
  }

  override recordActivity(request: RecordActivityRequest): Promise<RecordActivityAnswer> {
    this.calls.push({ op: 'record-activity', request });
    return this.answerRecordActivity(request);
  }

  /** The operations in order, e.g. `['list', 'acquire-specific preview-1', 'release preview-1 clean']`. */
  trace(): string[] {
    return this.calls.map((call) => {
      if (call.op === 'list') return 'list';
      if (call.op === 'find') return `find ${call.slug}`;
      if (call.op === 'release') {
        return `release ${call.request.slug}${call.request.clean === true ? ' clean' : ' dirty'}`;
      }
      if (call.op === 'record-activity')
        return `record-activity ${call.request.slots.map((slot) => `${slot.slug}${slot.alert ? ' alert' : ''}`).join(', ')}`;
      return `${call.op} ${call.request.slug}`;
    });
  }
}

export interface ScriptedStep {
  kind: EraseStepReport['kind'];
  /** What the step does to the account; it may throw, as a broken eraser would. */
  run?: (slug: string) => void | Promise<void>;
}

/** The eraser's record: the requests it got and the steps that changed something, as `slug kind`. */
export interface ScriptedEraser extends SlotEraser {
  requests: EraseRequest[];
  changed: string[];
}

const DEFAULT_STEPS: ScriptedStep[] = [{ kind: 'compute' }, { kind: 'd1' }, { kind: 'kv' }, { kind: 'r2' }];

export function scriptedEraser(
  steps: readonly ScriptedStep[] = DEFAULT_STEPS,
  refusals: Record<string, string> = {},
): ScriptedEraser {
  const eraser: ScriptedEraser = {
    requests: [],
    changed: [],
    refusal: (slug) => refusals[slug] ?? null,
    checkCredentials: async () => null,
    resources: async (slug) => ({
      resources: everyKind({
        workers: [{ name: `app-${slug}` }],
        d1: [{ name: `app-${slug}-db`, id: `uuid-of-app-${slug}-db` }],
      }),
    }),
    async erase(request): Promise<EraseOutcome> {
      eraser.requests.push(request);
      const reports: EraseStepReport[] = [];
      const report = (step: ScriptedStep, status: EraseStepReport['status']) =>
        reports.push({
          kind: step.kind,
          resource: `app-${request.slug}`,
          status,
          summary: status,
          requests: 1,
        });
      for (const step of steps) {
        if (!(await request.fence())) return { status: 'fenced', steps: reports, requests: reports.length };
        if (request.dryRun) {
          report(step, 'would-change');
          continue;
        }
        await step.run?.(request.slug);
        eraser.changed.push(`${request.slug} ${step.kind}`);
        report(step, 'done');
      }
      return { status: 'complete', steps: reports, requests: reports.length };
    },
  };
  return eraser;
}

export function commandContext(
  semaphore: ScriptedSemaphore,
  eraser: SlotEraser,
  fields: Partial<CommandContext> = {},
): CommandContext {
  return {
    pool: POOL,
    poolSource: "the config's `pool:` key",
    place: ACTION_PLACE,
    semaphore,
    eraser,
    cloudflareUsage: () => null,
    github: null,
    parallelSlots: 1,
    signal: new AbortController().signal,
    progress: () => {},
    now: () => NOW,
    ...fields,
  };
}

// The read's rows, slot by slot. A Worker is a slot's when the slot config names it for that slot; a
// Durable Object namespace is a slot's when its invocations name one of the slot's Workers. The
// periodic and storage datasets name no Worker, only the namespace, so their rows go where the
// invocations (the slots' and the whole account's) put the namespace; a namespace active without a
// single invocation in the hour anywhere is "unexplained" until a namespace listing names its Worker.
import {
  type ActivityBucket,
  type ActivityFigures,
  addFigures,
  BUCKET_MS,
  emptyBuckets,
  type NamespaceActivity,
  NO_ACTIVITY,
  type SlotActivity,
} from './activity.ts';
import type { SpendAccount } from './answer.ts';
import { computeUsd, usdPerHour } from './estimate.ts';
import { OBJECT_GB } from './prices.ts';
import { ROW_LIMIT } from './query.ts';

interface Attribution {
  slots: Map<string, SlotActivity>;
  /** Namespaces with compute that no invocation of the hour ties to a Worker, and what they did. */
  unexplained: { namespaceId: string; figures: ActivityFigures }[];
  /** Datasets that answered as many rows as the query allows: they may have left some out. */
  truncated: string[];
}

type Window = { from: number; until: number };

interface SlotTally {
  buckets: ActivityBucket[];
  namespaces: Map<string, NamespaceActivity>;
  storedBytes: number;
}

function add(target: ActivityFigures, more: Partial<ActivityFigures>): void {
  Object.assign(target, addFigures(target, more));
}

/** A compute row's figures: active time in seconds, and its billed GB-s. */
function computeOf(row: SpendAccount['compute'][number]): Partial<ActivityFigures> {
  const activeSeconds = row.sum.activeTime / 1e6;
  return {
    activeSeconds,
    // `duration` is the billed GB-s; where it is missing, active time at 128 MB is what it bills.
    gbSeconds: row.sum.duration ?? activeSeconds * OBJECT_GB,
    rowsRead: row.sum.rowsRead,
    rowsWritten: row.sum.rowsWritten,
    websocketMessages: row.sum.inboundWebsocketMsgCount,
  };
}

/** The slots' figures as rows are added, dataset by dataset. */
class Tallies {
  readonly #window: Window;
  readonly #slugOfScript = new Map<string, string>();
  readonly #tallies = new Map<string, SlotTally>();
  readonly #scriptOfNamespace: Map<string, string>;
  readonly #unexplained = new Map<string, ActivityFigures>();

  constructor(
    scriptsOf: ReadonlyMap<string, readonly string[]>,
    window: Window,
    known: ReadonlyMap<string, string>,
  ) {
    this.#window = window;
    this.#scriptOfNamespace = new Map(known);
    for (const [slug, scripts] of scriptsOf) {
      this.#tallies.set(slug, { buckets: emptyBuckets(window), namespaces: new Map(), storedBytes: 0 });
      for (const script of scripts) if (!this.#slugOfScript.has(script)) this.#slugOfScript.set(script, slug);
    }
  }

  /** An invocation row names its namespace's Worker: the account-wide ones place the periodic rows. */
  learnNamespace(namespaceId: string, script: string): void {
    this.#scriptOfNamespace.set(namespaceId, script);
  }

  #tallyOf(script: string | undefined): SlotTally | undefined {
    const slug = script === undefined ? undefined : this.#slugOfScript.get(script);
    return slug === undefined ? undefined : this.#tallies.get(slug);
  }

  #bucket(tally: SlotTally, start: number): ActivityBucket | undefined {
    if (start < this.#window.from || start >= this.#window.until) return undefined;
    return tally.buckets[Math.floor((start - this.#window.from) / BUCKET_MS)];
  }

  #namespace(tally: SlotTally, namespaceId: string, script: string): NamespaceActivity {
    let namespace = tally.namespaces.get(namespaceId);
    if (namespace === undefined) {
      namespace = { namespaceId, script, figures: { ...NO_ACTIVITY } };
      tally.namespaces.set(namespaceId, namespace);
    }
    return namespace;
  }

  /** Figures of a Worker's five minutes (its own requests: no namespace). */
  addWorker(script: string, start: number, figures: Partial<ActivityFigures>): void {
    const tally = this.#tallyOf(script);
    const bucket = tally && this.#bucket(tally, start);
    if (bucket !== undefined) add(bucket, figures);
  }

  /** Figures of a namespace's five minutes; a namespace no Worker is known for is unexplained. */
  addNamespace(namespaceId: string, start: number, figures: Partial<ActivityFigures>): void {
    const script = this.#scriptOfNamespace.get(namespaceId);
    if (script === undefined) {
      this.#unexplained.set(
        namespaceId,
        addFigures(this.#unexplained.get(namespaceId) ?? NO_ACTIVITY, figures),
      );
      return;
    }
    const tally = this.#tallyOf(script);
    const bucket = tally && this.#bucket(tally, start);
    if (tally === undefined || bucket === undefined) return;
    add(bucket, figures);
    add(this.#namespace(tally, namespaceId, script).figures, figures);
  }

  /** A namespace's storage over the hour (a level, not a flow: it is in no bucket). */
  addStorage(namespaceId: string, storedBytes: number): void {
    const script = this.#scriptOfNamespace.get(namespaceId);
    const tally = this.#tallyOf(script);
    if (script === undefined || tally === undefined) return;
    add(this.#namespace(tally, namespaceId, script).figures, { storedBytes });
    tally.storedBytes += storedBytes;
  }

  slots(): Map<string, SlotActivity> {
    const slots = new Map<string, SlotActivity>();
    for (const [slug, tally] of this.#tallies) {
      const flows = tally.buckets.reduce<ActivityFigures>((sum, bucket) => addFigures(sum, bucket), {
        ...NO_ACTIVITY,
      });
      slots.set(slug, {
        figures: { ...flows, storedBytes: tally.storedBytes },
        buckets: tally.buckets,
        namespaces: [...tally.namespaces.values()].sort(
          (a, b) => usdPerHour(b.figures) - usdPerHour(a.figures),
        ),
      });
    }
    return slots;
  }

  unexplained(): Attribution['unexplained'] {
    return [...this.#unexplained]
      .map(([namespaceId, figures]) => ({ namespaceId, figures }))
      .sort((a, b) => computeUsd(b.figures) - computeUsd(a.figures));
  }
}

/**
 * `scriptsOf`: each slot's Workers, by slug. `knownNamespaces`: namespaces a listing tied to a Worker
 * (only when the invocations left some compute unexplained).
 */
export function attribute(
  account: SpendAccount,
  scriptsOf: ReadonlyMap<string, readonly string[]>,
  window: Window,
  knownNamespaces: ReadonlyMap<string, string> = new Map(),
): Attribution {
  const tallies = new Tallies(scriptsOf, window, knownNamespaces);
  for (const row of [...account.objects, ...account.namespaces])
    tallies.learnNamespace(row.dimensions.namespaceId, row.dimensions.scriptName);
  for (const { dimensions, sum } of account.workers) {
    // The summed CPU time is in microseconds: every request's, as billed, not requests × a median.
    tallies.addWorker(dimensions.scriptName, dimensions.datetimeFiveMinutes, {
      workerRequests: sum.requests,
      workerSubrequests: sum.subrequests,
      workerCpuMs: sum.cpuTimeUs / 1000,
    });
  }
  for (const { dimensions, sum } of account.objects) {
    tallies.addNamespace(dimensions.namespaceId, dimensions.datetimeFiveMinutes, {
      objectRequests: sum.requests,
      alarms: dimensions.type === 'alarm' ? sum.requests : 0,
    });
  }
  for (const row of account.compute)
    tallies.addNamespace(row.dimensions.namespaceId, row.dimensions.datetimeFiveMinutes, computeOf(row));
  for (const row of account.storage) tallies.addStorage(row.dimensions.namespaceId, row.max.storedBytes);
  const lists = Object.entries(account) as [string, unknown][];
  return {
    slots: tallies.slots(),
    unexplained: tallies.unexplained(),
    truncated: lists
      .filter(([, rows]) => Array.isArray(rows) && rows.length >= ROW_LIMIT)
      .map(([name]) => name),
  };
}

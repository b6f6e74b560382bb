// A spend read scripted by the test: what each slot's compute did, bucket by bucket, as the analytics
// read (src/spend/source.ts) would hand it to the commands, and a record of what it was asked.
import type { SpendContext } from '../../src/commands/context.ts';
import {
  type ActivityFigures,
  addFigures,
  BUCKET_MS,
  emptyBuckets,
  NO_ACTIVITY,
  type SlotActivity,
} from '../../src/spend/activity.ts';
import type { SpendReading, SpendSource } from '../../src/spend/source.ts';

export interface ScriptedActivity {
  perBucket: Partial<ActivityFigures>;
  fromBucket?: number;
  untilBucket?: number;
  /** The Durable Object namespace the objects' figures are of. */
  namespace?: string;
}

export interface ScriptedSpend extends SpendSource {
  /** The slugs of each read, in order. */
  reads: string[][];
  /** What the next read answers per slug: figures in each five-minute bucket of [fromBucket, untilBucket). */
  activity: Map<string, ScriptedActivity>;
  /** Set to make the next reads fail as Cloudflare would. */
  failWith?: Error;
}

function slotActivity(window: { from: number }, scripted: ScriptedActivity | undefined): SlotActivity {
  const {
    perBucket = {},
    fromBucket = 0,
    untilBucket = Number.POSITIVE_INFINITY,
    namespace,
  } = scripted ?? {};
  const buckets = emptyBuckets(window).map((bucket, index) =>
    index >= fromBucket && index < untilBucket
      ? { ...addFigures(bucket, perBucket), start: bucket.start }
      : bucket,
  );
  const figures = buckets.reduce<ActivityFigures>((sum, bucket) => addFigures(sum, bucket), {
    ...NO_ACTIVITY,
  });
  const objects = { ...figures, workerRequests: 0, workerSubrequests: 0, workerCpuMs: 0 };
  return {
    figures,
    buckets,
    namespaces:
      namespace === undefined
        ? []
        : [{ namespaceId: namespace, script: `app-${namespace}`, figures: objects }],
  };
}

export function scriptedSpend(): ScriptedSpend {
  const spend: ScriptedSpend = {
    reads: [],
    activity: new Map(),
    async read(slugs, window): Promise<SpendReading> {
      spend.reads.push([...slugs]);
      if (spend.failWith !== undefined) throw spend.failWith;
      return {
        window,
        slots: new Map(slugs.map((slug) => [slug, slotActivity(window, spend.activity.get(slug))])),
        unexplained: { namespaces: 0, usdPerHour: 0 },
        truncated: [],
      };
    },
    owners: async () => new Map(),
  };
  return spend;
}

export function spendContext(source: SpendSource | null, alertUsdPerHour = 1): SpendContext {
  return { source, alertUsdPerHour, redact: (text) => text };
}

/** Five minutes of one Durable Object woken by alarms every ten seconds, active throughout: about $0.0005. */
export const ALARM_LOOP: Partial<ActivityFigures> = {
  objectRequests: 30,
  alarms: 30,
  activeSeconds: 300,
  gbSeconds: 38.4,
};

export { BUCKET_MS };

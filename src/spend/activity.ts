// What a slot's compute did at Cloudflare in the last hour, as the analytics read saw it: the figures
// the estimate prices, for the hour, for each five-minute part of it and for each Durable Object
// namespace. Plain data: it goes into the run report and (reduced) into the semaphore.

/** The last hour, in twelve parts: the read asks for whole five-minute buckets, as the datasets group them. */
export const BUCKET_MS = 5 * 60_000;
const WINDOW_MS = 60 * 60_000;
const BUCKETS = WINDOW_MS / BUCKET_MS;

export interface ActivityFigures {
  /** Requests to the slot's Workers. */
  workerRequests: number;
  /** Subrequests those made (fetch, bindings); a parked Worker makes none. */
  workerSubrequests: number;
  /** CPU milliseconds of those requests: the dataset's summed CPU time (`sum.cpuTimeUs`), as billed. */
  workerCpuMs: number;
  /** Invocations of the slot's Durable Objects (requests, RPC sessions, alarms). */
  objectRequests: number;
  /** The part of them that were alarms. */
  alarms: number;
  /** Incoming WebSocket messages (billed as requests, 20 to 1). */
  websocketMessages: number;
  /** Seconds the slot's Durable Objects were active (billed wall time, summed over objects). */
  activeSeconds: number;
  /** Their duration as billed, in GB-s (128 MB an object). */
  gbSeconds: number;
  rowsRead: number;
  rowsWritten: number;
  /** SQLite storage of the slot's Durable Objects, the most the hour saw. */
  storedBytes: number;
}

export const NO_ACTIVITY: Readonly<ActivityFigures> = {
  workerRequests: 0,
  workerSubrequests: 0,
  workerCpuMs: 0,
  objectRequests: 0,
  alarms: 0,
  websocketMessages: 0,
  activeSeconds: 0,
  gbSeconds: 0,
  rowsRead: 0,
  rowsWritten: 0,
  storedBytes: 0,
};

/** Two sets of figures as one: flows add up, storage (a level) is the larger. */
export function addFigures(
  a: Readonly<ActivityFigures>,
  b: Readonly<Partial<ActivityFigures>>,
): ActivityFigures {
  const sum = { ...a };
  for (const key of Object.keys(NO_ACTIVITY) as (keyof ActivityFigures)[]) {
    const more = b[key] ?? 0;
    sum[key] = key === 'storedBytes' ? Math.max(sum[key], more) : sum[key] + more;
  }
  return sum;
}

/** Whether the figures show compute: anything but storage, which stays after a park by design. */
export function hasActivity(figures: Readonly<ActivityFigures>): boolean {
  return (Object.keys(NO_ACTIVITY) as (keyof ActivityFigures)[]).some(
    (key) => key !== 'storedBytes' && figures[key] > 0,
  );
}

/**
 * Compute that a park should have stopped: Durable Objects invoked or active, or a Worker making
 * subrequests. Requests alone to a parked Worker are answered by the parked code (503, no
 * subrequest): they keep arriving at the slot's address, and parking again would not stop them.
 */
export function hasCompute(figures: Readonly<ActivityFigures>): boolean {
  return (
    figures.objectRequests > 0 ||
    figures.activeSeconds > 0 ||
    figures.gbSeconds > 0 ||
    figures.websocketMessages > 0 ||
    figures.workerSubrequests > 0
  );
}

export interface ActivityBucket extends ActivityFigures {
  /** Start of the five minutes (ms since the epoch). */
  start: number;
}

export interface NamespaceActivity {
  namespaceId: string;
  /** The Worker whose class it is (from the read's invocations). */
  script: string;
  figures: ActivityFigures;
}

export interface SlotActivity {
  figures: ActivityFigures;
  /** Oldest first, BUCKETS of them. */
  buckets: ActivityBucket[];
  /** The slot's Durable Object namespaces that did anything, costliest first. */
  namespaces: NamespaceActivity[];
}

/** The window of a read made at `now`: the last BUCKETS whole buckets, so no bucket is cut. */
export function windowEndingAt(now: number): { from: number; until: number } {
  const until = Math.floor(now / BUCKET_MS) * BUCKET_MS;
  return { from: until - WINDOW_MS, until };
}

/** Empty buckets for a window, oldest first. */
export function emptyBuckets(window: { from: number }): ActivityBucket[] {
  return Array.from({ length: BUCKETS }, (_, index) => ({
    ...NO_ACTIVITY,
    start: window.from + index * BUCKET_MS,
  }));
}

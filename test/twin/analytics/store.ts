// What the twin's Workers and Durable Objects "did", for the GraphQL Analytics API to report: the code
// in the twin never runs, so a test says what ran, per Worker and Durable Object namespace, as steady
// rates over a span of time. Each minute of a span is one event per dataset; a query aggregates the
// events in its window by the dimensions it asks for (routes.ts).

/** What ran each minute of a span. */
export interface ActivityRates {
  /** Worker requests (no namespaceId) or Durable Object requests of type `fetch` (with one). */
  requests?: number;
  /** Worker subrequests. */
  subrequests?: number;
  /** CPU time of each of the minute's Worker requests, in microseconds (summed as `cpuTimeUs`, the median as `cpuTimeP50`). */
  cpuTimeUs?: number;
  /** Durable Object alarm invocations. */
  alarms?: number;
  /** Seconds of Durable Object active time (summed over objects: 60 is one object active all minute). */
  activeSeconds?: number;
  rowsRead?: number;
  rowsWritten?: number;
  websocketMessages?: number;
  /** SQLite storage of the namespace (a level, not a rate). */
  storedBytes?: number;
}

export interface ActivitySpan {
  /** The Worker (`scriptName`): the one requested, or the one whose Durable Object class it is. */
  script: string;
  /** A Durable Object namespace of `script`'s; absent: the Worker's own requests. */
  namespaceId?: string;
  /** [from, until) in ms since the epoch; whole minutes are counted. */
  from: number;
  until: number;
  perMinute: ActivityRates;
}

/** One minute of one span, as the datasets see it. */
export interface ActivityEvent {
  at: number;
  span: ActivitySpan;
}

export const MINUTE_MS = 60_000;

export class AnalyticsStore {
  private readonly spans: ActivitySpan[] = [];
  /**
   * The HTTP status of a refused query (a token without Account Analytics Read, another account): the
   * docs' errors page says 403; answers with 200 and the same body have been observed too.
   */
  refusalStatus: 200 | 403 = 403;

  /** Adds what ran: `perMinute` every minute of [from, until). */
  add(span: ActivitySpan): void {
    this.spans.push({ ...span, perMinute: { ...span.perMinute } });
  }

  /** Forgets everything that ran (a test's next scene). */
  clear(): void {
    this.spans.length = 0;
  }

  /** Every minute of every span that starts in [from, until). */
  events(from: number, until: number): ActivityEvent[] {
    return this.spans.flatMap((span) => {
      const first = Math.max(Math.ceil(span.from / MINUTE_MS), Math.ceil(from / MINUTE_MS)) * MINUTE_MS;
      const last = Math.min(span.until, until);
      const events: ActivityEvent[] = [];
      for (let at = first; at < last; at += MINUTE_MS) events.push({ at, span });
      return events;
    });
  }

  state(): ActivitySpan[] {
    return this.spans.map((span) => ({ ...span }));
  }
}

// The GraphQL Analytics datasets the twin serves, each as Cloudflare names it: its dimensions, its
// `sum`/`max`/`quantiles` fields and how one minute of activity (store.ts) shows in it. The names are
// the ones docs/cloudflare.md#the-graphql-analytics-api sources (Cloudflare's docs, introspection
// results others published); docs/twin.md marks what is a stand-in.
import type { ActivityEvent } from './store.ts';

export type DimensionType = 'string' | 'Time' | 'Date';

/** One minute of a span as a dataset row before grouping. */
export interface DatasetRecord {
  dimensions: Record<string, string>;
  sum: Record<string, number>;
  max: Record<string, number>;
  /** Samples for the quantile fields, each with its weight (the requests it stands for). */
  quantiles: Record<string, { value: number; weight: number }>;
}

export interface Dataset {
  /** The field under `viewer.accounts`. */
  name: string;
  /** Its own dimensions (the time ones are added to every dataset). */
  dimensions: Record<string, DimensionType>;
  sum: readonly string[];
  max: readonly string[];
  /** `cpuTimeP50` is the 50th percentile of sample `cpuTime`. */
  quantiles: Record<string, string>;
  /** The records one minute of activity makes in this dataset. */
  records(event: ActivityEvent): DatasetRecord[];
}

const TIME_DIMENSIONS = [
  'datetime',
  'datetimeMinute',
  'datetimeFiveMinutes',
  'datetimeFifteenMinutes',
  'datetimeHour',
  'datetimeSixHours',
] as const;
const TIME_STEP_MS: Record<(typeof TIME_DIMENSIONS)[number], number> = {
  datetime: 1000,
  datetimeMinute: 60_000,
  datetimeFiveMinutes: 5 * 60_000,
  datetimeFifteenMinutes: 15 * 60_000,
  datetimeHour: 60 * 60_000,
  datetimeSixHours: 6 * 60 * 60_000,
};

/** `2026-12-01T10:05:00Z`: the datasets' time format, whole seconds. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The time dimensions of an event at `at`: each truncated to its step, and `date`. */
export function timeDimensions(at: number): Record<string, string> {
  const dimensions: Record<string, string> = { date: new Date(at).toISOString().slice(0, 10) };
  for (const name of TIME_DIMENSIONS)
    dimensions[name] = isoSeconds(Math.floor(at / TIME_STEP_MS[name]) * TIME_STEP_MS[name]);
  return dimensions;
}

export const TIME_DIMENSION_TYPES: Record<string, DimensionType> = {
  date: 'Date',
  ...Object.fromEntries(TIME_DIMENSIONS.map((name) => [name, 'Time' as const])),
};

const record = (
  event: ActivityEvent,
  dimensions: Record<string, string>,
  fields: Partial<DatasetRecord>,
): DatasetRecord => ({
  dimensions: { ...timeDimensions(event.at), ...dimensions },
  sum: fields.sum ?? {},
  max: fields.max ?? {},
  quantiles: fields.quantiles ?? {},
});

const workersInvocationsAdaptive: Dataset = {
  name: 'workersInvocationsAdaptive',
  dimensions: { scriptName: 'string', status: 'string', scriptVersion: 'string' },
  // `cpuTimeUs` is the summed CPU time of the rows' requests, in microseconds (docs/cloudflare.md
  // names its source); `quantiles.cpuTimeP50` the median of one request's.
  sum: ['requests', 'errors', 'subrequests', 'duration', 'wallTime', 'responseBodySize', 'cpuTimeUs'],
  max: ['cpuTime', 'wallTime'],
  quantiles: { cpuTimeP50: 'cpuTime', cpuTimeP99: 'cpuTime' },
  records(event) {
    const { span } = event;
    const rates = span.perMinute;
    if (span.namespaceId !== undefined || ((rates.requests ?? 0) === 0 && (rates.subrequests ?? 0) === 0))
      return [];
    const requests = rates.requests ?? 0;
    const cpuTime = rates.cpuTimeUs ?? 0;
    return [
      record(
        event,
        { scriptName: span.script, status: 'success', scriptVersion: 'twin' },
        {
          sum: {
            requests,
            errors: 0,
            subrequests: rates.subrequests ?? 0,
            duration: 0,
            wallTime: 0,
            responseBodySize: 0,
            cpuTimeUs: requests * cpuTime,
          },
          max: { cpuTime, wallTime: 0 },
          quantiles: { cpuTime: { value: cpuTime, weight: requests } },
        },
      ),
    ];
  },
};

const durableObjectsInvocationsAdaptiveGroups: Dataset = {
  name: 'durableObjectsInvocationsAdaptiveGroups',
  dimensions: { scriptName: 'string', namespaceId: 'string', type: 'string', status: 'string' },
  sum: ['requests', 'errors', 'responseBodySize', 'wallTime'],
  max: [],
  quantiles: {
    wallTimeP50: 'wallTime',
    wallTimeP99: 'wallTime',
    cpuTimeP50: 'cpuTime',
    cpuTimeP99: 'cpuTime',
  },
  records(event) {
    const { span } = event;
    if (span.namespaceId === undefined) return [];
    const invocations: [string, number][] = [
      ['fetch', span.perMinute.requests ?? 0],
      ['alarm', span.perMinute.alarms ?? 0],
    ];
    return invocations
      .filter(([, count]) => count > 0)
      .map(([type, requests]) =>
        record(
          event,
          { scriptName: span.script, namespaceId: span.namespaceId ?? '', type, status: 'success' },
          { sum: { requests, errors: 0, responseBodySize: 0, wallTime: 0 } },
        ),
      );
  },
};

const PERIODIC_SUMS = [
  'activeTime',
  'cpuTime',
  'duration',
  'exceededCpuErrors',
  'exceededMemoryErrors',
  'fatalInternalErrors',
  'inboundWebsocketMsgCount',
  'outboundWebsocketMsgCount',
  'rowsRead',
  'rowsWritten',
  'storageDeletes',
  'storageReadUnits',
  'storageWriteUnits',
  'subrequests',
] as const;

const durableObjectsPeriodicGroups: Dataset = {
  name: 'durableObjectsPeriodicGroups',
  dimensions: { namespaceId: 'string', coloCode: 'string', objectId: 'string', name: 'string' },
  sum: PERIODIC_SUMS,
  max: ['activeWebsocketConnections'],
  quantiles: {},
  records(event) {
    const { span } = event;
    const rates = span.perMinute;
    const active = rates.activeSeconds ?? 0;
    const compute =
      active + (rates.rowsRead ?? 0) + (rates.rowsWritten ?? 0) + (rates.websocketMessages ?? 0);
    if (span.namespaceId === undefined || compute === 0) return [];
    const sum: Record<string, number> = Object.fromEntries(PERIODIC_SUMS.map((field) => [field, 0]));
    // activeTime in microseconds; duration the GB-s it bills at 128 MB (Cloudflare's 0.128 GB).
    Object.assign(sum, {
      activeTime: active * 1e6,
      duration: active * 0.128,
      rowsRead: rates.rowsRead ?? 0,
      rowsWritten: rates.rowsWritten ?? 0,
      inboundWebsocketMsgCount: rates.websocketMessages ?? 0,
    });
    return [
      record(
        event,
        { namespaceId: span.namespaceId, coloCode: 'TWN', objectId: '', name: '' },
        { sum, max: { activeWebsocketConnections: 0 } },
      ),
    ];
  },
};

const durableObjectsSqlStorageGroups: Dataset = {
  name: 'durableObjectsSqlStorageGroups',
  dimensions: { namespaceId: 'string' },
  sum: [],
  max: ['storedBytes'],
  quantiles: {},
  records(event) {
    const { span } = event;
    const stored = span.perMinute.storedBytes ?? 0;
    if (span.namespaceId === undefined || stored === 0) return [];
    return [record(event, { namespaceId: span.namespaceId }, { max: { storedBytes: stored } })];
  },
};

export const DATASETS: readonly Dataset[] = [
  workersInvocationsAdaptive,
  durableObjectsInvocationsAdaptiveGroups,
  durableObjectsPeriodicGroups,
  durableObjectsSqlStorageGroups,
];

/** `durableObjectsPeriodicGroups` → `AccountDurableObjectsPeriodicGroups`: Cloudflare's type prefix. */
export function typePrefix(dataset: Dataset): string {
  return `Account${dataset.name[0]?.toUpperCase()}${dataset.name.slice(1)}`;
}

// Answers one dataset field of a query: the minutes of activity in the filter's window, made into the
// dataset's records, filtered, grouped by the dimensions the query selects, summed, ordered and cut to
// `limit`, as Cloudflare's group datasets answer.
import { type FieldNode, GraphQLError, type GraphQLResolveInfo, Kind } from 'graphql';
import type { Dataset, DatasetRecord } from './datasets.ts';
import { MAX_LIMIT } from './schema.ts';
import type { AnalyticsStore } from './store.ts';

type Filter = Record<string, unknown>;

const TIME = /^(date|datetime)/;

function comparable(field: string, value: unknown): number | string {
  if (TIME.test(field) && typeof value === 'string') return Date.parse(value);
  return typeof value === 'number' ? value : String(value);
}

function matchesOne(record: DatasetRecord, key: string, expected: unknown): boolean {
  const match = /^(.*?)(_in|_gt|_geq|_lt|_leq|_neq)?$/.exec(key);
  const field = match?.[1] ?? key;
  const operator = match?.[2] ?? '';
  const actual = record.dimensions[field];
  if (actual === undefined) return false;
  const a = comparable(field, actual);
  if (operator === '_in')
    return Array.isArray(expected) && expected.some((value) => comparable(field, value) === a);
  const b = comparable(field, expected);
  switch (operator) {
    case '_gt':
      return a > b;
    case '_geq':
      return a >= b;
    case '_lt':
      return a < b;
    case '_leq':
      return a <= b;
    case '_neq':
      return a !== b;
    default:
      return a === b;
  }
}

/** Keys of a filter are ANDed; `AND` and `OR` take lists of filters (Cloudflare's filtering page). */
function matches(record: DatasetRecord, filter: Filter | undefined): boolean {
  if (filter === undefined || filter === null) return true;
  return Object.entries(filter).every(([key, value]) => {
    if (value === undefined || value === null) return true;
    if (key === 'AND') return (value as Filter[]).every((inner) => matches(record, inner));
    if (key === 'OR') return (value as Filter[]).some((inner) => matches(record, inner));
    return matchesOne(record, key, value);
  });
}

/** The window of a filter: its `datetime_*` bounds (a query without them reads everything kept). */
function windowOf(filter: Filter | undefined): { from: number; until: number } {
  const bound = (key: string) =>
    typeof filter?.[key] === 'string' ? Date.parse(filter[key] as string) : undefined;
  return {
    from: bound('datetime_geq') ?? bound('datetime_gt') ?? 0,
    until: (bound('datetime_lt') ?? bound('datetime_leq') ?? Number.MAX_SAFE_INTEGER - 1) + 1,
  };
}

/** The subfields the query selects under `field` of this dataset field (e.g. the dimensions). */
function selected(info: GraphQLResolveInfo, field: string): string[] {
  const node = info.fieldNodes[0]?.selectionSet?.selections.find(
    (selection): selection is FieldNode => selection.kind === Kind.FIELD && selection.name.value === field,
  );
  return (node?.selectionSet?.selections ?? []).flatMap((selection) =>
    selection.kind === Kind.FIELD ? [selection.name.value] : [],
  );
}

interface Group {
  dimensions: Record<string, string>;
  count: number;
  sum: Record<string, number>;
  max: Record<string, number>;
  samples: Record<string, { value: number; weight: number }[]>;
}

/** A weighted percentile: the value below which `p` of the weight lies. */
function percentile(samples: readonly { value: number; weight: number }[], p: number): number | null {
  const sorted = [...samples].filter((sample) => sample.weight > 0).sort((a, b) => a.value - b.value);
  const total = sorted.reduce((sum, sample) => sum + sample.weight, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const sample of sorted) {
    seen += sample.weight;
    if (seen >= total * p) return sample.value;
  }
  return sorted.at(-1)?.value ?? null;
}

function grouped(records: readonly DatasetRecord[], dimensions: readonly string[]): Group[] {
  const groups = new Map<string, Group>();
  for (const record of records) {
    const key = JSON.stringify(dimensions.map((name) => record.dimensions[name]));
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        dimensions: Object.fromEntries(dimensions.map((name) => [name, record.dimensions[name] ?? ''])),
        count: 0,
        sum: {},
        max: {},
        samples: {},
      };
      groups.set(key, group);
    }
    group.count += 1;
    for (const [field, value] of Object.entries(record.sum))
      group.sum[field] = (group.sum[field] ?? 0) + value;
    for (const [field, value] of Object.entries(record.max))
      group.max[field] = Math.max(group.max[field] ?? 0, value);
    for (const [field, sample] of Object.entries(record.quantiles))
      group.samples[field] = [...(group.samples[field] ?? []), sample];
  }
  return [...groups.values()];
}

function sortKey(group: Group, order: string): { value: number | string; descending: boolean } {
  const match = /^(?:(sum|max)_)?(.+)_(ASC|DESC)$/.exec(order);
  const [, aggregate, field = '', direction] = match ?? [];
  const value =
    aggregate === 'sum'
      ? (group.sum[field] ?? 0)
      : aggregate === 'max'
        ? (group.max[field] ?? 0)
        : field === 'count'
          ? group.count
          : comparable(field, group.dimensions[field] ?? '');
  return { value, descending: direction === 'DESC' };
}

function ordered(groups: Group[], orderBy: readonly string[] | undefined): Group[] {
  if (orderBy === undefined || orderBy.length === 0) return groups;
  return [...groups].sort((a, b) => {
    for (const order of orderBy) {
      const x = sortKey(a, order);
      const y = sortKey(b, order);
      if (x.value === y.value) continue;
      const less = x.value < y.value ? -1 : 1;
      return x.descending ? -less : less;
    }
    return 0;
  });
}

export function resolveDataset(
  store: AnalyticsStore,
  dataset: Dataset,
  args: { limit: number; filter?: Filter; orderBy?: string[] },
  info: GraphQLResolveInfo,
): unknown[] {
  if (!(args.limit > 0 && args.limit <= MAX_LIMIT))
    throw new GraphQLError(`limit must be positive number and not greater than ${MAX_LIMIT}`);
  const window = windowOf(args.filter);
  const records = store
    .events(window.from, window.until)
    .flatMap((event) => dataset.records(event))
    .filter((record) => matches(record, args.filter));
  const groups = ordered(grouped(records, selected(info, 'dimensions')), args.orderBy).slice(0, args.limit);
  return groups.map((group) => ({
    count: group.count,
    dimensions: group.dimensions,
    sum: group.sum,
    max: group.max,
    quantiles: Object.fromEntries(
      Object.entries(dataset.quantiles).map(([field, sample]) => {
        const p = Number(`0.${/P(\d+)$/.exec(field)?.[1] ?? '5'}`);
        return [field, percentile(group.samples[sample] ?? [], p)];
      }),
    ),
  }));
}

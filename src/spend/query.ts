// The one GraphQL Analytics query a run sends: the last hour of every slot's Workers and Durable
// Objects, in five-minute buckets. docs/cloudflare.md#the-graphql-analytics-api says where each
// dataset, dimension and field comes from. Each filter is a variable of its dataset's own input type,
// so the query names no scalar type it cannot be sure of.

/** Rows a dataset answers at most; a dataset that answers this many may have left some out. */
export const ROW_LIMIT = 10_000;

/**
 * - `workers`: the slots' Workers' requests, subrequests and summed CPU time (what is billed);
 * - `objects`: the slots' Durable Object invocations by namespace and type (`alarm` counts alarms);
 * - `namespaces`: which Worker every namespace of the account that was invoked belongs to, so the
 *   periodic dataset (which has no script name) can be told apart by namespace;
 * - `compute`: every namespace's active time, duration, rows and WebSocket messages, costliest first;
 * - `storage`: every namespace's SQLite storage.
 */
const SPEND_QUERY = `query PreviewGcSpend(
  $accountTag: string!
  $slotWorkers: AccountWorkersInvocationsAdaptiveFilter_InputObject!
  $slotObjects: AccountDurableObjectsInvocationsAdaptiveGroupsFilter_InputObject!
  $allObjects: AccountDurableObjectsInvocationsAdaptiveGroupsFilter_InputObject!
  $compute: AccountDurableObjectsPeriodicGroupsFilter_InputObject!
  $storage: AccountDurableObjectsSqlStorageGroupsFilter_InputObject!
) {
  viewer {
    accounts(filter: { accountTag: $accountTag }) {
      workers: workersInvocationsAdaptive(limit: ${ROW_LIMIT}, filter: $slotWorkers) {
        dimensions { scriptName datetimeFiveMinutes }
        sum { requests subrequests cpuTimeUs }
      }
      objects: durableObjectsInvocationsAdaptiveGroups(limit: ${ROW_LIMIT}, filter: $slotObjects) {
        dimensions { scriptName namespaceId type datetimeFiveMinutes }
        sum { requests }
      }
      namespaces: durableObjectsInvocationsAdaptiveGroups(limit: ${ROW_LIMIT}, filter: $allObjects) {
        dimensions { scriptName namespaceId }
        sum { requests }
      }
      compute: durableObjectsPeriodicGroups(limit: ${ROW_LIMIT}, filter: $compute, orderBy: [sum_activeTime_DESC]) {
        dimensions { namespaceId datetimeFiveMinutes }
        sum { activeTime duration rowsRead rowsWritten inboundWebsocketMsgCount }
      }
      storage: durableObjectsSqlStorageGroups(limit: ${ROW_LIMIT}, filter: $storage) {
        dimensions { namespaceId }
        max { storedBytes }
      }
    }
  }
}`;

export interface SpendQuery {
  query: string;
  variables: Record<string, unknown>;
}

/** The request body for `scripts` (the slots' Worker names) over `[from, until)`. */
export function spendQuery(
  accountId: string,
  scripts: readonly string[],
  window: { from: number; until: number },
): SpendQuery {
  const time = { datetime_geq: iso(window.from), datetime_lt: iso(window.until) };
  const slotScripts = { ...time, scriptName_in: [...scripts] };
  return {
    query: SPEND_QUERY,
    variables: {
      accountTag: accountId,
      slotWorkers: slotScripts,
      slotObjects: slotScripts,
      allObjects: time,
      compute: time,
      storage: time,
    },
  };
}

/** The datasets' time format: `2026-12-01T10:05:00Z`, whole seconds. */
function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

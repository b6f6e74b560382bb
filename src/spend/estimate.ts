// Dollars from activity: the figures of a slot's hour priced with the dated table (prices.ts). An
// estimate, not the bill: analytics are sampled, and the plan's included usage is not subtracted.
import { type ActivityFigures, type NamespaceActivity, NO_ACTIVITY } from './activity.ts';
import { HOURS_PER_MONTH, PRICES } from './prices.ts';

/** What the compute of the figures costs: Worker requests and CPU, Durable Object requests, duration and rows. */
export function computeUsd(figures: Readonly<ActivityFigures>): number {
  const objectRequests =
    figures.objectRequests + figures.websocketMessages / PRICES.websocketMessagesPerRequest;
  return (
    figures.workerRequests * PRICES.workerRequest +
    figures.workerCpuMs * PRICES.workerCpuMs +
    objectRequests * PRICES.objectRequest +
    figures.gbSeconds * PRICES.gbSecond +
    figures.rowsRead * PRICES.rowRead +
    figures.rowsWritten * PRICES.rowWritten
  );
}

/** What keeping `storedBytes` costs for an hour. */
function storageUsdPerHour(storedBytes: number): number {
  return ((storedBytes / 1e9) * PRICES.storedGbMonth) / HOURS_PER_MONTH;
}

/** The hour's figures in dollars: the rate the slot spends at, per hour. */
export function usdPerHour(figures: Readonly<ActivityFigures>): number {
  return computeUsd(figures) + storageUsdPerHour(figures.storedBytes);
}

/** What is burning in a slot, for a person: the costliest part and what wakes it. */
export type Burning =
  | {
      part: 'objects';
      namespaceId: string;
      script: string;
      /** Woken mostly by alarms, by requests, or active without a new invocation (a connection kept open). */
      drivenBy: 'alarms' | 'requests' | 'connections';
      usdPerHour: number;
      figures: ActivityFigures;
    }
  | { part: 'worker'; usdPerHour: number; figures: ActivityFigures };

/** The costliest part of a slot's hour: one Durable Object namespace, or its Workers' own requests. */
export function whatBurns(
  figures: Readonly<ActivityFigures>,
  namespaces: readonly NamespaceActivity[],
): Burning | null {
  // The Workers' own part: their requests and CPU, none of the objects'.
  const worker = {
    ...NO_ACTIVITY,
    workerRequests: figures.workerRequests,
    workerSubrequests: figures.workerSubrequests,
    workerCpuMs: figures.workerCpuMs,
  };
  const workerUsd = computeUsd(worker);
  const top = [...namespaces].sort((a, b) => usdPerHour(b.figures) - usdPerHour(a.figures))[0];
  if (top !== undefined && usdPerHour(top.figures) >= workerUsd && usdPerHour(top.figures) > 0) {
    const { alarms, objectRequests } = top.figures;
    const drivenBy =
      objectRequests === 0 ? 'connections' : alarms * 2 >= objectRequests ? 'alarms' : 'requests';
    return {
      part: 'objects',
      namespaceId: top.namespaceId,
      script: top.script,
      drivenBy,
      usdPerHour: usdPerHour(top.figures),
      figures: top.figures,
    };
  }
  return workerUsd > 0 ? { part: 'worker', usdPerHour: workerUsd, figures: worker } : null;
}

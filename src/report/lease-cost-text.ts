// What a lease cost, for a person: "about $0.42 over 3 h 10 min", "less than a cent over 40 min",
// with the time no read covered named ("2 h without a read"), never filled in by a guess.
import { formatDuration } from './format.ts';
import type { LeaseCostView } from './model.ts';

/** "$0.42", "$12.30": dollars to the cent; below a cent is said in words. */
function dollars(usd: number): string {
  return usd < 0.005 ? 'less than a cent' : `about $${usd.toFixed(2)}`;
}

/** "about $0.42 over 3 h 10 min" (the time the reads covered), "; 2 h without a read" when some is missing. */
export function leaseCostText(cost: Readonly<LeaseCostView>): string {
  const missing = cost.missingMs > 0 ? `; ${formatDuration(cost.missingMs)} without a read` : '';
  return `${dollars(cost.usd)} over ${formatDuration(cost.coveredMs)}${missing}`;
}

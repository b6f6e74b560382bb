// What a lease cost so far, summed from gc's reads: each read's twelve five-minute buckets are added
// from where the lease's last counted read ended (or from the lease's start), so reads that overlap
// (gc more often than hourly) or a retried request add nothing twice. Time no read covered (no
// analytics permission, a failed or skipped read) is counted as missing, never guessed at.
import type { ActivityRecord } from '../protocol.ts';

export interface LeaseCost {
  usd: number;
  /** The end of the last time counted; null before the first read. */
  coveredUntil: number | null;
  /** Time of the lease the reads covered, and time between them (or before the first) none covered. */
  coveredMs: number;
  missingMs: number;
}

/** `cost` with `read` added: only what lies after `cost.coveredUntil` (or `leaseStart`) is new. */
export function costOfRead(
  cost: Readonly<LeaseCost>,
  read: Pick<ActivityRecord, 'from' | 'until' | 'usdPerHour' | 'buckets'>,
  leaseStart: number,
): LeaseCost {
  const begin = cost.coveredUntil ?? leaseStart;
  if (read.until <= begin || read.buckets.length === 0) return { ...cost };
  const start = Math.max(read.from, begin);
  const width = (read.until - read.from) / read.buckets.length;
  let usd = 0;
  for (const [index, bucket] of read.buckets.entries()) {
    const bucketStart = read.from + index * width;
    const part = Math.min(1, Math.max(0, (bucketStart + width - start) / width));
    usd += bucket.usd * part;
  }
  // Storage is in the hour's rate but in no bucket: its share of the new part of the window.
  const inBuckets = read.buckets.reduce((sum, bucket) => sum + bucket.usd, 0);
  const windowUsd = (read.usdPerHour * (read.until - read.from)) / 3_600_000;
  usd += Math.max(0, windowUsd - inBuckets) * ((read.until - start) / (read.until - read.from));
  return {
    usd: cost.usd + usd,
    coveredUntil: read.until,
    coveredMs: cost.coveredMs + (read.until - start),
    missingMs: cost.missingMs + Math.max(0, read.from - begin),
  };
}

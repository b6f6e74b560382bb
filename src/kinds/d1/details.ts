// What the D1 erase step records of what it did, in the report's details.
import { formatCount, plural } from '../../text/words.ts';

export interface D1Details {
  mode: 'rows' | 'drop';
  /** Rows per table before the erase (rows mode): tables, R*Trees and regular FTS5 indexes. */
  rowsByTable: Record<string, number>;
  /** Rows per table the erase's last count found, the tables that still had some (rows mode). */
  rowsLeft: Record<string, number>;
  /** FTS5 indexes emptied with their own command (rows mode). */
  indexesCleared: string[];
  /** Requests that deleted or dropped. */
  writeRequests: number;
  /** Objects dropped (drop mode), e.g. `table orders`. */
  dropped: string[];
}

const sum = (rows: Record<string, number>) => Object.values(rows).reduce((total, n) => total + n, 0);

/** What a step that stopped early had done: "deleted 120,000 of 200,000 rows". */
export function d1DoneBefore(details: D1Details): string | undefined {
  if (details.mode !== 'rows' || details.writeRequests === 0) return undefined;
  const before = sum(details.rowsByTable);
  const deleted = Math.max(0, before - sum(details.rowsLeft));
  return deleted === 0 ? undefined : `deleted ${formatCount(deleted)} of ${plural(before, 'row')}`;
}

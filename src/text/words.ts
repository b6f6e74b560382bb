// Counts and lists in words, for every message preview-gc writes.

/**
 * `1204` -> `1,204`. Grouped by hand: the first use of Intl (`toLocaleString` included) starts ICU,
 * about 12 ms of a run's start-up (README.md, Performance), and counts are whole numbers.
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n);
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** "A, B and C". */
export function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

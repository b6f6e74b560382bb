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

/** `1` -> `1st`, `2` -> `2nd`, `11` -> `11th`, `23` -> `23rd`. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
  return `${formatCount(n)}${suffix}`;
}

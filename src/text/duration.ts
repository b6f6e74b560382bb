// Durations in the slot config are written the way people say them (`3h`, `90m`, `2d`) and become
// whole seconds, the unit of an R2 lifecycle rule's `maxAge`.

const SECONDS_PER_UNIT = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** Seconds for `3h`, `90m`, `2d`, `45s`; undefined for anything else, zero included. */
export function parseDurationSeconds(text: string): number | undefined {
  const match = /^(\d{1,9})\s*([smhd])$/.exec(text.trim());
  if (!match) return undefined;
  const [, amount, unit] = match;
  const seconds = Number(amount) * SECONDS_PER_UNIT[unit as keyof typeof SECONDS_PER_UNIT];
  return seconds > 0 ? seconds : undefined;
}

/** The shortest exact form of a duration in seconds: 10800 -> `3h`, 5400 -> `90m`, 172800 -> `2d`. */
export function formatDurationSeconds(seconds: number): string {
  for (const [unit, size] of Object.entries(SECONDS_PER_UNIT).reverse()) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

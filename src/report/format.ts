// Formatting shared by the job summary and the terminal output.

/** "950 ms", "12 s", "4 min", "3 h 20 min", "2 d 5 h": coarse on purpose, a person reads it. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  const seconds = Math.round(abs / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(abs / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(abs / 3_600_000);
  if (hours < 48) {
    const rest = Math.round((abs - hours * 3_600_000) / 60_000);
    return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
  }
  const days = Math.floor(abs / 86_400_000);
  const restHours = Math.round((abs - days * 86_400_000) / 3_600_000);
  return restHours === 0 ? `${days} d` : `${days} d ${restHours} h`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** The pull request number of a holder named `pr-<number>`, the convention preview deploys use. */
export function pullRequestOf(holder: string | null): number | null {
  const match = holder === null ? null : /^pr-(\d{1,10})$/.exec(holder);
  return match ? Number(match[1]) : null;
}

// Formatting shared by the job summary and the terminal output.

/** "950 ms", "12 s", "4 min", "3 h 20 min", "2 d 5 h": coarse on purpose, a person reads it. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)} ms`;
  const seconds = Math.round(abs / 1000);
  if (seconds < 60) return `${seconds} s`;
  // Round once, at the unit shown last, then split: 3 h 59 min 59 s is "4 h", never "3 h 60 min".
  const minutes = Math.round(abs / 60_000);
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) return joinUnits(Math.floor(minutes / 60), 'h', minutes % 60, 'min');
  const hours = Math.round(abs / 3_600_000);
  return joinUnits(Math.floor(hours / 24), 'd', hours % 24, 'h');
}

function joinUnits(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major} ${majorUnit}` : `${major} ${majorUnit} ${minor} ${minorUnit}`;
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

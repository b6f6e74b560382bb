// Plain-text tables and number formats for the benchmark's printout.

/** Columns padded to their widest cell; the first column left-aligned, the others right-aligned. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatCount(value: number): string {
  return integer.format(value);
}

/** Two decimals unless the value is whole: `4`, `13.20`. */
export function formatPerSlot(value: number): string {
  return Number.isInteger(value) ? integer.format(value) : decimal.format(value);
}

export function formatMs(ms: number): string {
  if (ms < 1_000) return `${integer.format(ms)} ms`;
  if (ms < 120_000) return `${decimal.format(ms / 1_000)} s`;
  const seconds = Math.round(ms / 1_000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function formatRatio(value: number): string {
  return `${decimal.format(value)}x`;
}

export function formatBytes(bytes: number): string {
  return `${decimal.format(bytes / 1024 / 1024)} MiB`;
}

// The fault matrix as a Markdown table: one row per route, one column per fault, each cell saying what
// the commands reported (outcome and exit code) and whether every invariant held (✓, or ✗ and how
// many checks failed).
import type { CellResult, RunSummary } from './cell.ts';
import { FAULT_TITLES, FAULTS } from './faults.ts';

export const TABLE_START = '<!-- fault-matrix:start -->';
export const TABLE_END = '<!-- fault-matrix:end -->';

function run(name: string, summary: RunSummary): string {
  return `${name} ${summary.outcome} (${summary.exitCode})`;
}

function cellText(result: CellResult | undefined): string {
  if (result === undefined) return '–';
  const mark = result.problems.length === 0 ? '✓' : `✗ ${result.problems.length}`;
  const runs = Object.entries(result.runs).map(([name, summary]) => run(name, summary));
  return `${mark} ${runs.join('<br>')}`;
}

export interface MatrixRow {
  route: string;
  commands: readonly string[];
  /** Shown after the route, e.g. to say the row runs only cleanup. */
  label?: string;
}

/** One row per route and command set; `results` of every cell, found by route, commands and fault. */
export function renderMatrix(
  side: string,
  rows: readonly MatrixRow[],
  results: readonly CellResult[],
): string {
  const find = (row: MatrixRow, fault: string) =>
    results.find(
      ({ spec }) =>
        spec.target.side !== 'none' &&
        spec.target.route === row.route &&
        spec.fault === fault &&
        spec.commands.join() === row.commands.join(),
    );
  return [
    `| ${side} route | ${FAULTS.map((fault) => FAULT_TITLES[fault]).join(' | ')} |`,
    `| --- | ${FAULTS.map(() => '---').join(' | ')} |`,
    ...rows.map(
      (row) =>
        `| \`${row.route}\`${row.label ?? ''} | ${FAULTS.map((fault) => cellText(find(row, fault))).join(' | ')} |`,
    ),
  ].join('\n');
}

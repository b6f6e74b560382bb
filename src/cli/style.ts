// How the CLI styles what it prints: colour only when asked for (the caller decides: a TTY, and
// NO_COLOR unset, so piped output stays plain), text from outside made harmless, aligned tables.
import { stripVTControlCharacters, styleText } from 'node:util';
import type { SlotOutcome } from '../report/model.ts';
import { OUTCOME_TONE, type OutcomeTone, outcomeWords } from '../report/view.ts';
import { isHolderName } from '../semaphore/protocol.ts';
import { visible } from '../text/log-text.ts';

export interface TerminalStyle {
  color: boolean;
}

export type Format = Parameters<typeof styleText>[0];

/** Whether to colour a stream: only a TTY, never with NO_COLOR set (https://no-color.org), FORCE_COLOR wins. */
export function wantsColor(
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

export function paint(style: TerminalStyle, format: Format, text: string): string {
  return style.color && text !== '' ? styleText(format, text, { validateStream: false }) : text;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
// Characters that show nothing, reorder the text around them, or end a line in some viewers.
const HIDDEN = /[\p{Zl}\p{Zp}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** A character by its code point, `⟨U+202E⟩`, as the summary and the console name them too. */
function codePointName(char: string): string {
  return `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/**
 * Text from outside of several lines (a problem, an API message) without control characters, so
 * nothing it carries can move the cursor, recolour or retitle the user's terminal, and with every
 * hidden, bidi or line-separating character shown by name (⟨U+202E⟩), so it cannot reorder a line or
 * start one of its own. Newlines stay; a one-line field (a slug, a holder) goes through `visible`.
 */
export function clean(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '\ufffd').replace(HIDDEN, codePointName);
}

/**
 * A holder as a terminal shows it (`–` for none). One an older semaphore stored outside the holder
 * rule is flagged, each character outside the rule spelt out, so `рr-1601` cannot pass for `pr-1601`.
 */
export function holderCell(holder: string | null): string {
  if (holder === null) return '–';
  if (isHolderName(holder)) return holder;
  // Control characters as the CLI spells them everywhere (`\u001b`), the others by their code point.
  const spelt = holder.replace(/[^A-Za-z0-9_.:@/-]/gu, (char) =>
    /\p{Cc}/u.test(char) ? visible(char) : codePointName(char),
  );
  return `${spelt} ⚠ not a holder name`;
}

function visibleWidth(text: string): number {
  return [...stripVTControlCharacters(text)].length;
}

function padEnd(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleWidth(text)));
}

/**
 * An aligned table: a header row, then the rows; a cell may span several lines. Cells are already
 * cleaned and painted. The last column is not padded, so long text there does not widen the rest.
 * `details[i]` are lines printed under row i, indented, outside the columns (long text fits there).
 */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  style: TerminalStyle,
  details: readonly (readonly string[])[] = [],
): string[] {
  const split = rows.map((row) => row.map((cell) => cell.split('\n')));
  const widths = headers.map((header, column) =>
    Math.max(
      visibleWidth(header),
      ...split.flatMap((row) => (row[column] ?? []).map((line) => visibleWidth(line))),
    ),
  );
  const line = (cells: readonly string[]) =>
    `  ${cells
      .map((cell, column) => (column === cells.length - 1 ? cell : padEnd(cell, widths[column] ?? 0)))
      .join('  ')}`.trimEnd();
  const out = [line(headers.map((header) => paint(style, 'bold', header)))];
  for (const [index, row] of split.entries()) {
    const height = Math.max(1, ...row.map((cell) => cell.length));
    for (let at = 0; at < height; at++) out.push(line(row.map((cell) => cell[at] ?? '')));
    for (const detail of details[index] ?? []) out.push(`      ${detail}`);
  }
  return out;
}

const TONE_MARK: Record<OutcomeTone, { mark: string; format: Format }> = {
  done: { mark: '✔', format: 'green' },
  skipped: { mark: '↷', format: 'cyan' },
  waiting: { mark: '…', format: 'yellow' },
  stopped: { mark: '■', format: 'yellow' },
  failed: { mark: '✖', format: 'red' },
  preview: { mark: '○', format: 'cyan' },
  warning: { mark: '!', format: 'yellow' },
};

/** An outcome with its mark and colour; an outcome this version does not know is shown as it is. */
export function outcomeText(outcome: SlotOutcome | string, style: TerminalStyle): string {
  if (!Object.hasOwn(OUTCOME_TONE, outcome)) return visible(outcome);
  const known = outcome as SlotOutcome;
  const { mark, format } = TONE_MARK[OUTCOME_TONE[known]];
  return paint(style, format, `${mark} ${outcomeWords(known)}`);
}

// The terminal render of a run report: the same facts as the job summary (headline, slots, what needs
// attention, the pool, API usage), as aligned plain-text tables. Colour only when asked for: the
// caller decides (a TTY, and NO_COLOR unset), so piped output stays plain.
import { stripVTControlCharacters, styleText } from 'node:util';
import {
  formatCount,
  formatDuration,
  howAcquired,
  plural,
  pullRequestOf,
  readableUtc,
  resourceList,
  waitingText,
} from './format.ts';
import { visible } from './log-text.ts';
import {
  countOutcomes,
  FAILED_OUTCOMES,
  needsRepair,
  type PoolRow,
  type RunReport,
  runFailed,
  type SlotOutcome,
  type SlotReport,
} from './model.ts';

export interface TerminalStyle {
  color: boolean;
}

type Format = Parameters<typeof styleText>[0];

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

/**
 * Text from outside of several lines (a problem, an API message) without control characters, so
 * nothing it carries can move the cursor, recolour or retitle the user's terminal. Newlines stay;
 * a one-line field (a slug, a holder) goes through `visible` instead, which spells them out.
 */
export function clean(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '\ufffd');
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

const OUTCOME_TEXT: Record<SlotOutcome, { text: string; format: Format }> = {
  reclaimed: { text: '✔ reclaimed', format: 'green' },
  released: { text: '✔ released', format: 'green' },
  skipped: { text: '↷ skipped', format: 'cyan' },
  deferred: { text: '… deferred', format: 'yellow' },
  interrupted: { text: '■ interrupted', format: 'yellow' },
  'acquire-failed': { text: '✖ acquire failed', format: 'red' },
  'erase-failed': { text: '✖ erase failed', format: 'red' },
  'release-failed': { text: '✖ release failed', format: 'red' },
  erased: { text: '✔ erased', format: 'green' },
  'would-reclaim': { text: '○ would reclaim', format: 'cyan' },
  'would-release': { text: '○ would release', format: 'cyan' },
};

/** An outcome with its mark and colour; an outcome this version does not know is shown as it is. */
export function outcomeText(outcome: SlotOutcome | string, style: TerminalStyle): string {
  const known: { text: string; format: Format } | undefined = Object.hasOwn(OUTCOME_TEXT, outcome)
    ? OUTCOME_TEXT[outcome as SlotOutcome]
    : undefined;
  return known === undefined ? visible(outcome) : paint(style, known.format, known.text);
}

function headline(report: RunReport, style: TerminalStyle): string {
  const failed = runFailed(report);
  const mark = failed ? paint(style, ['bold', 'red'], '✖') : paint(style, ['bold', 'green'], '✔');
  const title = paint(style, 'bold', `preview-gc ${report.command} on pool ${visible(report.pool)}`);
  const verb = report.command === 'cleanup' ? 'released' : 'reclaimed';
  let result: string;
  if (report.problems.length > 0) result = 'did not complete';
  else if (report.acquired !== undefined)
    result = `pull request #${report.pullRequest} has ${clean(report.acquired.slug)} until ${readableUtc(report.acquired.leaseExpiresAt)}, ${howAcquired(report.acquired)}`;
  else if (report.command === 'status') result = plural(report.poolAfter?.length ?? 0, 'slot');
  else if (report.slots.length === 0) {
    result =
      report.command === 'cleanup'
        ? `pull request #${report.pullRequest} holds no slot, nothing to do`
        : 'nothing to reclaim';
  } else {
    const counts = countOutcomes(report);
    result = [
      report.dryRun
        ? `${report.slots.length} would be ${verb}`
        : `${counts.reclaimed} of ${report.slots.length} ${verb}`,
      counts.skipped > 0 ? `${counts.skipped} skipped` : '',
      counts.deferred > 0 ? `${counts.deferred} deferred` : '',
      counts.failed > 0 ? paint(style, 'red', `${counts.failed} failed`) : '',
    ]
      .filter(Boolean)
      .join(', ');
  }
  return `${mark} ${title}: ${result}`;
}

function banners(report: RunReport, style: TerminalStyle): string[] {
  const lines: string[] = [];
  if (report.dryRun) {
    // A dry run stopped by a problem shows nothing a real run would do.
    const shows = report.problems.length === 0 ? '; this is what a real run would do' : '';
    lines.push(
      `${paint(style, ['bold', 'cyan'], 'DRY RUN')}  Nothing was acquired, erased or released${shows}.`,
    );
  }
  if (report.interruptedBy !== undefined) {
    lines.push(
      `${paint(style, ['bold', 'yellow'], 'STOPPED')}  by ${visible(report.interruptedBy)}. The lease in hand was released; slots not reached wait for the next sweep.`,
    );
  }
  for (const problem of report.problems) {
    lines.push(
      `${paint(style, ['bold', 'red'], 'PROBLEM')}  ${clean(problem).replace(/\n/g, '\n         ')}`,
    );
  }
  for (const warning of report.warnings ?? []) {
    lines.push(
      `${paint(style, ['bold', 'yellow'], 'WARNING')}  ${clean(warning).replace(/\n/g, '\n         ')}`,
    );
  }
  return lines.length > 0 ? ['', ...lines] : [];
}

/** acquire: what the deploy gets. */
function acquiredSection(report: RunReport, style: TerminalStyle): string[] {
  const slot = report.acquired;
  if (slot === undefined) return [];
  return [
    ...heading('The slot', style),
    `  Slot        ${clean(slot.slug)}${slot.slotNumber === null ? '' : ` (number ${clean(slot.slotNumber)})`}`,
    `  Lease ends  ${clean(slot.leaseExpiresAt)}; every push extends it`,
    `  Erased      ${slot.wasDirty ? `yes: it held the data of ${holderText(report.slots[0]?.previousHolder ?? null, report)}` : slot.reused ? 'no: the pull request already held it' : 'no: it was clean'}`,
    `  Resources   ${resourceList(slot.resources, clean)}`,
  ];
}

/** Slots whose erase keeps failing, with the failing step and the fix. */
function repairSection(report: RunReport, style: TerminalStyle): string[] {
  const broken = (report.poolAfter ?? []).filter(needsRepair);
  if (broken.length === 0) return [];
  const lines = heading('Needs repair', style);
  for (const row of broken) {
    const last = row.lastEraseFailure;
    lines.push(
      `  ${paint(style, ['bold', 'red'], clean(row.slug))}: the erase failed ${row.eraseFailures} times in a row${last === null ? '.' : `, last in ${clean(last.step)}: ${clean(last.message)}`}`,
    );
  }
  lines.push(
    '  Deploys are not given these slots; gc keeps trying, and an erase that works clears the mark.',
  );
  return lines;
}

function heading(text: string, style: TerminalStyle): string[] {
  return ['', paint(style, 'bold', text)];
}

/** Slots listed under "What needs attention", with their problem and next step. */
function needsAttention(slot: SlotReport): boolean {
  return FAILED_OUTCOMES.has(slot.outcome) || slot.outcome === 'deferred';
}

/** What the erase did, a line per step, shown under the slot's row. */
function eraseLines(slot: SlotReport, style: TerminalStyle): string[] {
  if (slot.erase === null || slot.erase.steps.length === 0) {
    return slot.problem === undefined || needsAttention(slot)
      ? []
      : [paint(style, 'dim', clean(slot.problem))];
  }
  return slot.erase.steps.map(
    (step) => `${paint(style, 'dim', `${visible(step.resource)}:`)} ${clean(step.summary)}`,
  );
}

const TITLE_WIDTH = 32;

/** A holder, with its pull request's state and title when the report has them (the action's github-token). */
function holderText(holder: string | null, report: RunReport): string {
  if (holder === null) return '–';
  const pr = pullRequestOf(holder);
  const label = pr === null ? undefined : report.pullRequests?.[String(pr)];
  if (label === undefined) return visible(holder);
  const title =
    [...label.title].length > TITLE_WIDTH
      ? `${[...label.title].slice(0, TITLE_WIDTH - 1).join('')}…`
      : label.title;
  return `${visible(holder)} (${label.state}) ${visible(title)}`;
}

function slotSection(report: RunReport, style: TerminalStyle): string[] {
  if (report.slots.length === 0) return [];
  const rows = report.slots.map((slot) => [
    visible(slot.slug),
    holderText(slot.previousHolder, report),
    waitingText(slot, report.command),
    outcomeText(slot.outcome, style),
    formatDuration(slot.durationMs),
  ]);
  const waiting = report.command === 'cleanup' ? 'HELD FOR' : 'WAITING';
  const lines = [
    ...heading('Slots', style),
    ...renderTable(
      ['SLOT', 'PREVIOUS HOLDER', waiting, 'OUTCOME', 'DURATION'],
      rows,
      style,
      report.slots.map((slot) => eraseLines(slot, style)),
    ),
  ];
  if (report.leftForNextRun > 0) {
    lines.push(
      '',
      `  ${plural(report.leftForNextRun, 'more slot')} qualified and wait for the next run (--max-slots).`,
    );
  }
  return lines;
}

function attentionSection(report: RunReport, style: TerminalStyle): string[] {
  const needingAPerson = report.slots.filter(needsAttention);
  if (needingAPerson.length === 0) return [];
  const lines = heading('What needs attention', style);
  for (const slot of needingAPerson) {
    lines.push(
      `  ${paint(style, 'bold', visible(slot.slug))} ${outcomeText(slot.outcome, style)}: ${clean(slot.problem ?? '')}`,
    );
    if (slot.nextStep !== undefined) {
      for (const step of clean(slot.nextStep).split('\n'))
        lines.push(`    ${paint(style, 'dim', '$')} ${step}`);
    }
  }
  return lines;
}

function leaseText(row: PoolRow): string {
  if (row.leaseEndsInMs === null) return '–';
  return row.leaseEndsInMs > 0
    ? `ends in ${formatDuration(row.leaseEndsInMs)}`
    : `expired ${formatDuration(-row.leaseEndsInMs)} ago`;
}

/** The pool as a table, one row per slot. */
function poolTable(rows: readonly PoolRow[], style: TerminalStyle): string[] {
  return renderTable(
    ['SLOT', 'STATE', 'HOLDER', 'LEASE', 'DIRTY', 'GENERATION'],
    rows.map((row) => [
      visible(row.slug),
      row.expired ? paint(style, 'yellow', `${row.leaseState} (expired)`) : row.leaseState,
      visible(row.holder ?? '–'),
      leaseText(row),
      needsRepair(row)
        ? paint(style, 'red', 'needs repair')
        : row.dirty
          ? paint(style, 'yellow', 'yes')
          : 'no',
      String(row.generation),
    ]),
    style,
  );
}

function poolSection(report: RunReport, style: TerminalStyle): string[] {
  if (report.poolAfter === null) return [];
  const lines = heading(report.command === 'status' ? 'Pool' : 'Pool after the run', style);
  if (report.poolAfter.length === 0) return [...lines, '  The pool has no slots.'];
  return [...lines, ...poolTable(report.poolAfter, style)];
}

function usageSection(report: RunReport, style: TerminalStyle): string[] {
  const lines = heading('API usage', style);
  const semaphore = `  Semaphore   ${plural(report.semaphoreRequests, 'request')}`;
  const api = report.cloudflare;
  if (api === null) return [...lines, semaphore, '  Cloudflare  no requests'];
  const byKind = Object.entries(api.byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${visible(kind)} ${formatCount(n)}`)
    .join(', ');
  const limited =
    api.rateLimited > 0
      ? paint(style, 'yellow', `${formatCount(api.rateLimited)} answered 429`)
      : '0 answered 429';
  return [
    ...lines,
    semaphore,
    `  Cloudflare  ${plural(api.requests, 'request')}${byKind === '' ? '' : ` (${byKind})`}`,
    `              ${limited}, ${plural(api.retries, 'retry', 'retries')}, waited ${formatDuration(api.waitedMs)}`,
    `  Budget      ${formatCount(api.budgetLeft)} of ${formatCount(api.budget)} requests left`,
  ];
}

function footer(report: RunReport, style: TerminalStyle): string[] {
  return [
    '',
    paint(
      style,
      'dim',
      `preview-gc ${report.command}${report.dryRun ? ' (dry run)' : ''}, started ${visible(report.startedAt)}, took ${formatDuration(report.durationMs)}.`,
    ),
  ];
}

/** Renders a run report for a terminal: what the job summary says, in aligned plain text. */
export function renderTerminalReport(report: RunReport, style: TerminalStyle): string {
  return [
    headline(report, style),
    ...banners(report, style),
    ...acquiredSection(report, style),
    ...slotSection(report, style),
    ...attentionSection(report, style),
    ...repairSection(report, style),
    ...poolSection(report, style),
    ...(report.command === 'status' ? [] : usageSection(report, style)),
    ...footer(report, style),
  ].join('\n');
}

// The terminal render of a run report: the view the job summary renders too (src/report/view.ts), as
// aligned plain-text tables, coloured only when the style says so.

import { DOCTOR_COLUMNS, doctorResources, doctorState, doctorVerdict } from '../report/doctor-view.ts';
import {
  formatDuration,
  leftByLastTenant,
  pullRequestOf,
  resourceList,
  sharedList,
  waitingText,
} from '../report/format.ts';
import { leaseCostText } from '../report/lease-cost-text.ts';
import {
  leftLine,
  needsRepair,
  type PoolRow,
  type RunReport,
  runFailed,
  type SlotReport,
} from '../report/model.ts';
import { leftLineText, queueHeading, unlistedWaiters, waitingSinceText } from '../report/queue-text.ts';
import {
  alertAnnotation,
  dollarsPerHour,
  lastHourCell,
  spendFlags,
  spendNote,
} from '../report/spend-text.ts';
import * as view from '../report/view.ts';
import { quoted, visible } from '../text/log-text.ts';
import { formatCount, plural } from '../text/words.ts';
import { clean, holderCell, outcomeText, paint, renderTable, type TerminalStyle } from './style.ts';

function headline(report: RunReport, style: TerminalStyle): string {
  const mark = runFailed(report) ? paint(style, ['bold', 'red'], '✖') : paint(style, ['bold', 'green'], '✔');
  const title = paint(style, 'bold', `preview-gc ${report.command} on pool ${visible(report.pool)}`);
  const result = view.headlineResult(report, {
    code: clean,
    text: (text) => text,
    failed: (text) => paint(style, 'red', text),
  });
  return `${mark} ${title}: ${result}`;
}

function banners(report: RunReport, style: TerminalStyle): string[] {
  const lines: string[] = [];
  if (report.dryRun) lines.push(`${paint(style, ['bold', 'cyan'], 'DRY RUN')}  ${view.dryRunNotice(report)}`);
  if (report.interruptedBy !== undefined) {
    lines.push(
      `${paint(style, ['bold', 'yellow'], 'STOPPED')}  by ${visible(report.interruptedBy)}. ${view.STOPPED_NOTICE}`,
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
  const left = leftByLastTenant(slot.resources, clean, clean);
  return [
    ...heading('The slot', style),
    `  Slot        ${clean(slot.slug)}${slot.slotNumber === null ? '' : ` (number ${clean(slot.slotNumber)})`}`,
    `  Lease ends  ${clean(slot.leaseExpiresAt)}; every push extends it`,
    `  Erased      ${view.erasedFirstText(slot, report.slots[0]?.previousHolder ?? null, (holder) => holderText(holder, report))}`,
    `  Resources   ${resourceList(slot.resources, clean)}`,
    ...(left === undefined ? [] : [`  Left        ${left}; read nothing you did not write`]),
    ...(slot.wranglerConfig === undefined ? [] : [`  Wrangler    ${clean(slot.wranglerConfig)}`]),
    ...(slot.shared === undefined
      ? []
      : [`  Shared      ${sharedList(slot.shared, quoted)} (deploy.shared)`]),
    ...(slot.url !== undefined
      ? [`  URL         ${clean(slot.url)} once the deploy is done`]
      : slot.noUrl !== undefined
        ? [`  URL         none: ${clean(slot.noUrl)}`]
        : []),
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
      `  ${paint(style, ['bold', 'red'], clean(row.slug))}: the erase failed ${row.eraseFailures} times in a row${last === null ? '.' : `, last in ${quoted(last.step)}: ${quoted(last.message)}`}`,
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

/** What the erase did, a line per step, shown under the slot's row. */
function eraseLines(slot: SlotReport, style: TerminalStyle): string[] {
  if (slot.erase === null || slot.erase.steps.length === 0) {
    return slot.problem === undefined || view.needsAttention(slot)
      ? []
      : [paint(style, 'dim', clean(slot.problem))];
  }
  const lines = slot.erase.steps.map(
    (step) => `${paint(style, 'dim', `${visible(step.resource)}:`)} ${clean(step.summary)}`,
  );
  const left = leftLine(slot.erase.steps);
  return left === undefined ? lines : [...lines, `${paint(style, 'dim', 'left:')} ${clean(left)}`];
}

const TITLE_WIDTH = 32;

/** A holder, with its pull request's state and title when the report has them (the action's github-token). */
function holderText(holder: string | null, report: RunReport): string {
  if (holder === null) return '–';
  const pr = pullRequestOf(holder, report.repository?.nameWithOwner);
  const label = pr === null ? undefined : report.pullRequests?.[String(pr)];
  if (label === undefined) return holderCell(holder);
  const title =
    [...label.title].length > TITLE_WIDTH
      ? `${[...label.title].slice(0, TITLE_WIDTH - 1).join('')}…`
      : label.title;
  return `${holderCell(holder)} (${label.state}) ${visible(title)}`;
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
  const waiting = view.waitingHeading(report).toUpperCase();
  const lines = [
    ...heading('Slots', style),
    ...renderTable(
      ['SLOT', 'PREVIOUS HOLDER', waiting, 'OUTCOME', 'DURATION'],
      rows,
      style,
      report.slots.map((slot) => eraseLines(slot, style)),
    ),
  ];
  const left = view.leftForNextRunText(report, '--max-slots');
  return left === undefined ? lines : [...lines, '', `  ${left}`];
}

/** gc, cleanup and doctor: each Worker's Worker Previews, what became of each and why; status: their counts. */
function workerPreviewsSection(report: RunReport, style: TerminalStyle): string[] {
  const tables = (report.workerPreviews ?? []).flatMap((sweep) => [
    ...heading(`Worker Previews of ${visible(sweep.worker)}`, style),
    ...(sweep.previews.length === 0
      ? ['  No Worker Preview.']
      : renderTable(
          ['PREVIEW', 'PULL REQUEST', 'LAST DEPLOYMENT', 'ACTION'],
          sweep.previews.map((row) => [
            visible(row.name),
            row.pullRequest === null ? '–' : `#${row.pullRequest.number} (${row.pullRequest.state})`,
            row.lastDeployment === null ? '–' : visible(row.lastDeployment),
            row.action,
          ]),
          style,
          sweep.previews.map((row) => [
            visible(row.why),
            ...row.sharesWithProduction.map((share) => `shares with production: ${visible(share)}`),
          ]),
        )),
  ]);
  const counts = (report.workerPreviewCounts ?? []).map(
    ({ worker, previews, problem }) => `${visible(worker)} ${previews ?? visible(problem ?? 'not listed')}`,
  );
  return counts.length === 0
    ? tables
    : [...tables, '', `  Worker Previews (gc sweeps them): ${counts.join(', ')}`];
}

const DOCTOR_MARK = {
  ok: { mark: '✔', format: 'green' },
  note: { mark: '✔', format: 'green' },
  problem: { mark: '✖', format: 'red' },
} as const;

/** doctor: the pool's table, each slot's findings and their fixes under its row. */
function doctorSection(report: RunReport, style: TerminalStyle): string[] {
  const doctor = report.doctor;
  if (doctor === undefined) return [];
  const rows = doctor.rows.map((row) => {
    const verdict = doctorVerdict(row);
    const { mark, format } = DOCTOR_MARK[verdict.tone];
    return [
      visible(row.slug),
      doctorState(row),
      holderText(row.holder, report),
      view.leaseText(row),
      doctorResources(row),
      paint(style, format, `${mark} ${verdict.text}`),
    ];
  });
  // A finding of several lines (a config refusal lists each name) stays under its mark.
  const indented = (text: string) => clean(text).replace(/\n/g, '\n        ');
  const details = doctor.rows.map((row) =>
    row.findings.flatMap((finding) => [
      finding.severity === 'problem'
        ? `${paint(style, 'red', '✖')} ${indented(finding.text)}`
        : paint(style, 'dim', `· ${indented(finding.text)}`),
      ...(finding.fix === undefined ? [] : [`  ${paint(style, 'dim', 'fix:')} ${indented(finding.fix)}`]),
    ]),
  );
  return [
    ...heading('Slots', style),
    ...renderTable(
      DOCTOR_COLUMNS.map((column) => column.toUpperCase()),
      rows,
      style,
      details,
    ),
    '',
    paint(
      style,
      'dim',
      `  Leases checked against lease-minutes ${doctor.leaseMinutes}; ${doctor.resourcesNotChecked === null ? 'resources looked for in the account, one listing per kind' : 'resources not looked for (see above)'}.`,
    ),
  ];
}

function attentionSection(report: RunReport, style: TerminalStyle): string[] {
  const needingAPerson = report.slots.filter(view.needsAttention);
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

/** A row's spend cells: the hour's figures and the dollars, flags in colour. */
function spendCells(row: PoolRow, report: RunReport, style: TerminalStyle): string[] {
  if (row.spend === undefined) return ['–', '–'];
  const flags = spendFlags(row.spend).map((flag) =>
    paint(style, flag === 'above the alert' ? 'red' : 'yellow', flag),
  );
  return [lastHourCell(row, report), [dollarsPerHour(row.spend.usdPerHour), ...flags].join(' ')];
}

/** The pool as a table, one row per slot; with the spend columns when the run has spend. */
function poolTable(
  report: RunReport,
  rows: readonly PoolRow[],
  style: TerminalStyle,
  spend: boolean,
): string[] {
  return renderTable(
    [
      'SLOT',
      'STATE',
      'HOLDER',
      'LEASE',
      'DIRTY',
      'GENERATION',
      ...(spend ? ['LAST HOUR', '$/H', 'LEASE SO FAR'] : []),
    ],
    rows.map((row) => [
      visible(row.slug),
      row.expired ? paint(style, 'yellow', `${row.leaseState} (expired)`) : row.leaseState,
      holderCell(row.holder),
      view.leaseText(row),
      needsRepair(row)
        ? paint(style, 'red', 'needs repair')
        : row.dirty
          ? paint(style, 'yellow', 'yes')
          : 'no',
      String(row.generation),
      ...(spend ? spendCells(row, report, style) : []),
      ...(spend ? [row.leaseCost === undefined ? '–' : leaseCostText(row.leaseCost)] : []),
    ]),
    style,
  );
}

/** acquire that waited in line and got no slot: its last place. status: the pool's queue. */
function queueSection(report: RunReport, style: TerminalStyle): string[] {
  if (report.inLine !== undefined)
    return [...heading('In line', style), `  ${leftLineText(report.inLine, report.pool, visible)}`];
  const queue = report.queue;
  if (queue === undefined) return [];
  const lines = heading(queueHeading(queue), style);
  if (queue.length === 0) return lines;
  const more = unlistedWaiters(queue);
  return [
    ...lines,
    ...renderTable(
      ['Place', 'Holder', 'Waiting since'],
      queue.waiters.map((waiter) => [
        String(waiter.position),
        holderCell(waiter.holder),
        waitingSinceText(queue, waiter.waitingSince),
      ]),
      style,
    ),
    ...(more === 0 ? [] : [`  and ${plural(more, 'more waiter')}.`]),
  ];
}

function poolSection(report: RunReport, style: TerminalStyle): string[] {
  if (report.poolAfter === null) return [];
  const lines = heading(view.poolHeading(report), style);
  if (report.poolAfter.length === 0) return [...lines, '  The pool has no slots.'];
  const note = spendNote(report);
  return [
    ...lines,
    ...poolTable(report, report.poolAfter, style, report.spend !== undefined),
    ...(note === undefined ? [] : ['', `  ${paint(style, 'dim', note)}`]),
  ];
}

/** The spend alerts this run raised. */
function alertSection(report: RunReport, style: TerminalStyle): string[] {
  const alerts = report.spendAlerts ?? [];
  if (alerts.length === 0) return [];
  return [
    ...heading('Spending above the alert', style),
    ...alerts.map(
      (alert) =>
        `  ${paint(style, ['bold', 'red'], visible(alert.slug))} ${clean(alertAnnotation(alert, report).message)}`,
    ),
  ];
}

function usageSection(report: RunReport, style: TerminalStyle): string[] {
  const lines = heading('API usage', style);
  const semaphore = `  Semaphore   ${plural(report.semaphoreRequests, 'request')}`;
  const api = report.cloudflare;
  if (api === null) return [...lines, semaphore, '  Cloudflare  no requests'];
  const byKind = view.requestsByKind(api.byKind, visible);
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
  return ['', paint(style, 'dim', view.footerText(report, visible(report.startedAt)))];
}

/** Renders a run report for a terminal: what the job summary says, in aligned plain text. */
export function renderTerminalReport(report: RunReport, style: TerminalStyle): string {
  return [
    headline(report, style),
    ...banners(report, style),
    ...acquiredSection(report, style),
    ...slotSection(report, style),
    ...workerPreviewsSection(report, style),
    ...doctorSection(report, style),
    ...attentionSection(report, style),
    ...alertSection(report, style),
    ...repairSection(report, style),
    ...queueSection(report, style),
    ...poolSection(report, style),
    ...(report.command === 'status' ? [] : usageSection(report, style)),
    ...footer(report, style),
  ].join('\n');
}

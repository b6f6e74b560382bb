// The job summary: a pure render of the run report into GitHub-flavoured Markdown.

import { pastable } from '../text/shell.ts';
import { formatCount, plural } from '../text/words.ts';
import { DOCTOR_COLUMNS, doctorResources, doctorState, doctorVerdict } from './doctor-view.ts';
import {
  escapeMarkdown as esc,
  escapeCodeBlock,
  escapeLines,
  escapeTitle,
  inlineCode,
  urlLink,
} from './escape.ts';
import {
  formatDuration,
  leftByLastTenant,
  pullRequestOf,
  resourceList,
  sharedList,
  waitingText,
} from './format.ts';
import { leaseCostText } from './lease-cost-text.ts';
import { leaseEndSection } from './lease-ends-section.ts';
import {
  type ApiUsageReport,
  leftLine,
  needsRepair,
  type PoolRow,
  type RunReport,
  runFailed,
  type SlotOutcome,
  type SlotReport,
  type WorkerPreviewAction,
} from './model.ts';
import { leftLineText, queueHeading, unlistedWaiters, waitingSinceText } from './queue-text.ts';
import { alertParts, dollarsPerHour, lastHourCell, spendFlags, spendNote } from './spend-text.ts';
import * as view from './view.ts';

/** GitHub refuses a step summary over 1 MiB; stay well under it so the run's summary always posts. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024 - 16 * 1024;

const TONE_ICON: Record<view.OutcomeTone, string> = {
  done: '✅',
  skipped: '⏭️',
  waiting: '⏳',
  stopped: '⏹️',
  failed: '❌',
  preview: '🔍',
  warning: '⚠️',
};

function outcomeLabel(outcome: SlotOutcome): string {
  return `${TONE_ICON[view.OUTCOME_TONE[outcome]]} ${view.outcomeWords(outcome)}`;
}

function holderCell(holder: string | null, report: RunReport): string {
  if (holder === null) return '–';
  const pr = pullRequestOf(holder, report.repository?.nameWithOwner);
  if (pr === null || report.repository === undefined) return esc(holder);
  const { serverUrl, nameWithOwner } = report.repository;
  const link = `[${esc(holder)}](${encodeURI(`${serverUrl}/${nameWithOwner}/pull/${pr}`)})`;
  const label = report.pullRequests?.[String(pr)];
  return label === undefined ? link : `${link} ${escapeTitle(label.title)} (${label.state})`;
}

function headline(report: RunReport): string {
  const icon = runFailed(report) ? '❌' : '✅';
  const result = view.headlineResult(report, { code: inlineCode, text: esc, failed: (text) => text });
  return `## ${icon} preview-gc ${report.command} on pool ${inlineCode(report.pool)}: ${result}`;
}

function banners(report: RunReport): string[] {
  const lines: string[] = [];
  if (report.dryRun) lines.push('> [!NOTE]', `> **Dry run.** ${view.dryRunNotice(report)}`, '');
  if (report.interruptedBy !== undefined) {
    lines.push('> [!WARNING]', `> **Stopped by ${esc(report.interruptedBy)}.** ${view.STOPPED_NOTICE}`, '');
  }
  for (const problem of report.problems) {
    lines.push('> [!CAUTION]', `> ${escapeLines(problem)}`, '');
  }
  for (const warning of report.warnings ?? []) {
    lines.push('> [!WARNING]', `> ${escapeLines(warning)}`, '');
  }
  return lines;
}

/** acquire: what the deploy gets, the same values as the step's outputs. */
function acquiredSection(report: RunReport): string[] {
  const slot = report.acquired;
  if (slot === undefined) return [];
  const erase = report.slots[0];
  const left = leftByLastTenant(slot.resources, inlineCode, esc);
  return [
    '### The slot',
    '',
    '| | |',
    '| --- | --- |',
    `| Slot (\`slot\`, \`slot-number\`) | ${inlineCode(slot.slug)}${slot.slotNumber === null ? '' : `, ${inlineCode(slot.slotNumber)}`} |`,
    `| Holder | ${holderCell(slot.holder, report)} |`,
    `| Lease ends (\`lease-expires-at\`) | ${esc(slot.leaseExpiresAt)}; every push extends it |`,
    `| Erased first (\`was-dirty\`) | ${view.erasedFirstText(slot, erase?.previousHolder ?? null, (holder) => holderCell(holder, report))} |`,
    `| Resources (\`resources\`) | ${resourceList(slot.resources, inlineCode)} |`,
    ...(left === undefined
      ? []
      : [`| Still there from the last tenant | ${left}; read nothing you did not write |`]),
    ...(slot.wranglerConfig === undefined
      ? []
      : [`| Wrangler config (\`wrangler-config\`) | ${inlineCode(slot.wranglerConfig)} |`]),
    ...(slot.url !== undefined
      ? [`| Preview (\`url\`) | ${urlLink(slot.url)} once the deploy is done |`]
      : slot.noUrl !== undefined
        ? [`| Preview (\`url\`) | none: ${esc(slot.noUrl)} |`]
        : []),
    ...(slot.shared === undefined
      ? []
      : [
          `| Shared with what they name, on purpose (\`deploy.shared\`) | ${sharedList(slot.shared, inlineCode)} |`,
        ]),
    '',
  ];
}

/** acquire that waited in line and got no slot: its last place. status: the pool's queue. */
function queueSection(report: RunReport): string[] {
  if (report.inLine !== undefined)
    return ['### In line', '', leftLineText(report.inLine, report.pool, inlineCode), ''];
  const queue = report.queue;
  if (queue === undefined) return [];
  if (queue.length === 0) return [`### ${queueHeading(queue)}`, ''];
  const more = unlistedWaiters(queue);
  return [
    `### ${esc(queueHeading(queue))}`,
    '',
    '| Place | Holder | Waiting since |',
    '| --- | --- | --- |',
    ...queue.waiters.map(
      (waiter) =>
        `| ${waiter.position} | ${holderCell(waiter.holder, report)} | ${esc(waitingSinceText(queue, waiter.waitingSince))} |`,
    ),
    ...(more === 0 ? [] : ['', `and ${plural(more, 'more waiter')}.`]),
    '',
  ];
}

/**
 * Slots whose erase failed again and again: named in every summary, with the failing step and the
 * fix, until an erase works (gc keeps trying them; acquire does not hand them to deploys).
 */
function repairSection(report: RunReport): string[] {
  const broken = (report.poolAfter ?? []).filter(needsRepair);
  if (broken.length === 0) return [];
  const lines = ['### Needs repair', ''];
  for (const row of broken) {
    const last = row.lastEraseFailure;
    const where =
      last === null
        ? ''
        : ` Last at ${esc(new Date(last.at).toISOString())}, step ${inlineCode(last.step)}: ${esc(last.message)}`;
    lines.push(
      `**${inlineCode(row.slug)} needs repair:** its erase failed ${row.eraseFailures} times in a row.${where}`,
      '',
      'Deploys are not given this slot while it needs repair. gc keeps trying it, and the first erase that works clears the mark.',
      '',
    );
  }
  return lines;
}

const DOCTOR_ICON = { ok: '✅', note: '✅', problem: '❌' } as const;

/** doctor: the pool's table, then each slot's findings with their fixes. */
function doctorSection(report: RunReport): string[] {
  const doctor = report.doctor;
  if (doctor === undefined) return [];
  const rows = doctor.rows.map((row) => {
    const verdict = doctorVerdict(row);
    return `| ${[
      inlineCode(row.slug),
      doctorState(row),
      holderCell(row.holder, report),
      view.leaseText(row),
      doctorResources(row),
      `${DOCTOR_ICON[verdict.tone]} ${verdict.text}`,
    ].join(' | ')} |`;
  });
  const lines = [
    '### Slots',
    '',
    `| ${DOCTOR_COLUMNS.join(' | ')} |`,
    `|${' --- |'.repeat(DOCTOR_COLUMNS.length)}`,
    ...rows,
    '',
    `<sub>Leases checked against \`lease-minutes\` ${doctor.leaseMinutes}; ${doctor.resourcesNotChecked === null ? 'resources looked for in the account, one listing per kind' : 'resources not looked for (see above)'}.</sub>`,
    '',
  ];
  const found = doctor.rows.filter((row) => row.findings.length > 0);
  if (found.length === 0) return lines;
  lines.push('### What was found', '');
  for (const row of found) {
    lines.push(`**${inlineCode(row.slug)}**`, '');
    for (const finding of row.findings) {
      const fix = finding.fix === undefined ? '' : ` **Fix:** ${esc(finding.fix)}`;
      const text = escapeLines(finding.text);
      lines.push(`- ${finding.severity === 'problem' ? '❌' : 'ℹ️'} ${text}${fix}`);
    }
    lines.push('');
  }
  return lines;
}

function eraseCell(slot: SlotReport): string {
  if (slot.erase === null) return slot.problem === undefined ? '–' : esc(slot.problem);
  const steps = slot.erase.steps.map((step) => `${esc(step.resource)}: ${esc(step.summary)}`);
  const left = leftLine(slot.erase.steps);
  if (left !== undefined) steps.push(`**left:** ${esc(left)}`);
  return steps.length === 0 ? '–' : steps.join('<br>');
}

function slotTable(report: RunReport): string[] {
  if (report.slots.length === 0) return [];
  const left = view.leftForNextRunText(report, '`max-slots`');
  const rows = report.slots.map((slot) =>
    [
      `${inlineCode(slot.slug)}`,
      holderCell(slot.previousHolder, report),
      waitingText(slot, report.command),
      outcomeLabel(slot.outcome),
      eraseCell(slot),
      formatDuration(slot.durationMs),
    ].join(' | '),
  );
  return [
    '### Slots',
    '',
    `| Slot | Previous holder | ${view.waitingHeading(report)} | Outcome | What the erase did | Duration |`,
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
    '',
    ...(left === undefined ? [] : [left, '']),
  ];
}

const PREVIEW_ACTION_LABEL: Record<WorkerPreviewAction, string> = {
  deleted: '✅ deleted',
  'would-delete': '🔍 would delete',
  kept: '⏭️ kept',
  'delete-failed': '❌ delete failed',
  deferred: '⏳ deferred',
};

/** status: how many Worker Previews each Worker in `worker-previews` has. */
function workerPreviewCountLines(report: RunReport): string[] {
  const counts = report.workerPreviewCounts ?? [];
  if (counts.length === 0) return [];
  const parts = counts.map(({ worker, previews, problem }) =>
    previews === null
      ? `${inlineCode(worker)} ${esc(problem ?? 'not listed')}`
      : `${inlineCode(worker)} ${previews}`,
  );
  return [`Worker Previews (gc sweeps them): ${parts.join(', ')}.`, ''];
}

/** gc and cleanup: the Worker Previews of each Worker in `worker-previews`. */
function workerPreviewsSection(report: RunReport): string[] {
  return (report.workerPreviews ?? []).flatMap((sweep) => {
    const rows = sweep.previews.map((row) =>
      [
        inlineCode(row.name),
        row.pullRequest === null
          ? '–'
          : `${holderCell(`pr-${row.pullRequest.number}`, report)}${row.pullRequest.state === 'unknown' ? '' : ` (${row.pullRequest.state})`}`,
        row.lastDeployment === null ? '–' : esc(row.lastDeployment),
        PREVIEW_ACTION_LABEL[row.action],
        [
          esc(row.why),
          ...row.sharesWithProduction.map((share) => `⚠️ shares with production: ${esc(share)}`),
        ].join('<br>'),
      ].join(' | '),
    );
    return [
      `### Worker Previews of ${inlineCode(sweep.worker)}`,
      '',
      ...(rows.length === 0
        ? ['No Worker Preview.', '']
        : [
            '| Preview | Pull request | Last deployment | Action | Why |',
            '| --- | --- | --- | --- | --- |',
            ...rows.map((row) => `| ${row} |`),
            '',
          ]),
    ];
  });
}

function failures(report: RunReport): string[] {
  const needingAPerson = report.slots.filter(view.needsAttention);
  if (needingAPerson.length === 0) return [];
  const lines = ['### What needs attention', ''];
  for (const slot of needingAPerson) {
    lines.push(`**${inlineCode(slot.slug)} ${outcomeLabel(slot.outcome)}.** ${esc(slot.problem ?? '')}`);
    if (slot.nextStep !== undefined) lines.push('', ...nextStepLines(slot.nextStep));
    lines.push('');
  }
  return lines;
}

/**
 * A command goes in a code block to copy; advice is a sentence. Commands are built with every value
 * shell-quoted (src/text/shell.ts); this only keeps a broken one out of the block.
 */
function nextStepLines(nextStep: string): string[] {
  // A command to copy is one pastable line (shell.ts's rule: no control or hidden character, so no
  // line break either); anything else is shown as a sentence.
  return nextStep.startsWith('preview-gc ') && pastable(nextStep)
    ? ['```sh', escapeCodeBlock(nextStep), '```']
    : [`**Next:** ${esc(nextStep)}`];
}

const SPEND_FLAG_ICON: Record<string, string> = { 'still running': '⚠️', 'above the alert': '🔥' };

/** The pool table's spend cells: the hour's figures and the dollars, flagged. */
function spendCells(row: PoolRow, report: RunReport): string[] {
  if (row.spend === undefined) return ['–', '–'];
  const flags = spendFlags(row.spend).map((flag) => ` ${SPEND_FLAG_ICON[flag] ?? ''} ${flag}`);
  return [esc(lastHourCell(row, report)), `${esc(dollarsPerHour(row.spend.usdPerHour))}${flags.join('')}`];
}

function poolTable(report: RunReport): string[] {
  if (report.poolAfter === null) return [];
  const heading = `### ${view.poolHeading(report)}`;
  if (report.poolAfter.length === 0) return [heading, '', 'The pool has no slots.', ''];
  const spend = report.spend !== undefined;
  const note = spendNote(report);
  return [
    heading,
    '',
    `| Slot | State | Holder | Lease | Dirty | Generation |${spend ? ' Last hour | $/h | Lease so far |' : ''}`,
    `| --- | --- | --- | --- | --- | --- |${spend ? ' --- | --- | --- |' : ''}`,
    ...report.poolAfter.map((row) => {
      const cells = [
        inlineCode(row.slug),
        `${row.leaseState}${row.expired ? ' (expired)' : ''}`,
        holderCell(row.holder, report),
        view.leaseText(row),
        `${row.dirty ? 'yes' : 'no'}${needsRepair(row) ? ' (needs repair)' : ''}`,
        String(row.generation),
        ...(spend ? spendCells(row, report) : []),
        ...(spend ? [row.leaseCost === undefined ? '–' : esc(leaseCostText(row.leaseCost))] : []),
      ];
      return `| ${cells.join(' | ')} |`;
    }),
    '',
    ...(note === undefined ? [] : [`<sub>${esc(note)}</sub>`, '']),
  ];
}

/** The spend alerts this run raised: what their annotations say, with the holder linked and the command to copy. */
function alertSection(report: RunReport): string[] {
  const alerts = report.spendAlerts ?? [];
  if (alerts.length === 0) return [];
  const lines = ['### Spending above the alert', ''];
  for (const alert of alerts) {
    const parts = alertParts(alert, report);
    const command = parts.release === null ? null : 'the command below';
    lines.push(
      `**${inlineCode(alert.slug)} 🔥 ${esc(dollarsPerHour(alert.usdPerHour))}.** Leased by ${holderCell(alert.holder, report)}, it spends ${esc(parts.cost)}${esc(parts.burns)}. ${esc(parts.advice(command))}`,
      '',
      ...(parts.release === null ? [] : ['```sh', escapeCodeBlock(parts.release), '```', '']),
    );
  }
  return lines;
}

/** What each lease this run ended (cleanup, reclaim) cost, as gc's reads counted it. */
function endedLeaseSection(report: RunReport): string[] {
  const ended = report.slots.filter((slot) => slot.leaseCost !== undefined);
  if (ended.length === 0) return [];
  return [
    '### What the ended leases cost',
    '',
    ...ended.flatMap((slot) =>
      slot.leaseCost === undefined
        ? []
        : [
            `- ${inlineCode(slot.slug)}, held by ${holderCell(slot.previousHolder, report)}: ${esc(leaseCostText(slot.leaseCost))} (Cloudflare's analytics, read by gc each hour).`,
          ],
    ),
    '',
  ];
}

/** The live leases this run parked for spend: what cost, what the read-back found, the comment. */
function parkSection(report: RunReport): string[] {
  const parks = report.spendParks ?? [];
  if (parks.length === 0) return [];
  const lines = ['### Parked for spend', ''];
  for (const park of parks) {
    const workers = park.workers.map((worker) => `${inlineCode(worker.worker)} ${esc(worker.summary)}`);
    const comment =
      park.comment === 'written'
        ? "The pull request's comment says so."
        : park.comment === 'no-pull-request'
          ? ''
          : `The pull request's comment was not written (${esc(park.comment.problem)}).`;
    lines.push(
      `**${inlineCode(park.slug)} ${park.stopped ? '⏸ parked' : '⚠ still running'} at ${esc(dollarsPerHour(park.usdPerHour))}.** Leased by ${holderCell(park.holder, report)}, above the park limit in two reads in a row; the lease stays, its data is kept and the next deploy brings it back. ${workers.join('; ')}. ${comment}`.trimEnd(),
      '',
    );
  }
  return lines;
}

function usage(report: RunReport): string[] {
  const api: ApiUsageReport | null = report.cloudflare;
  const lines = ['### API usage', ''];
  if (api === null) {
    lines.push(`Semaphore: ${plural(report.semaphoreRequests, 'request')}. Cloudflare: no requests.`, '');
    return lines;
  }
  const byKind = view.requestsByKind(api.byKind, esc);
  lines.push(
    '| Semaphore requests | Cloudflare requests | 429 answers | Retries | Time waited | Budget left |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${formatCount(report.semaphoreRequests)} | ${formatCount(api.requests)} | ${formatCount(api.rateLimited)} | ${formatCount(api.retries)} | ${formatDuration(api.waitedMs)} | ${formatCount(api.budgetLeft)} of ${formatCount(api.budget)} |`,
    '',
  );
  if (byKind !== '') lines.push(`<sub>By kind: ${byKind}</sub>`, '');
  return lines;
}

function footer(report: RunReport): string {
  return `<sub>${view.footerText(report, esc(report.startedAt))}</sub>`;
}

/** Renders the job summary. Pure: the same report always gives the same Markdown. */
export function renderSummary(report: RunReport): string {
  const sections = [
    [headline(report), ''],
    banners(report),
    acquiredSection(report),
    slotTable(report),
    workerPreviewsSection(report),
    workerPreviewCountLines(report),
    doctorSection(report),
    failures(report),
    alertSection(report),
    parkSection(report),
    leaseEndSection(report, (holder) => holderCell(holder, report)),
    endedLeaseSection(report),
    repairSection(report),
    queueSection(report),
    poolTable(report),
    report.command === 'status' ? [] : usage(report),
    [footer(report), ''],
  ];
  const markdown = sections.flat().join('\n');
  return fitWithinLimit(markdown);
}

/** Cuts an oversized summary at a line boundary and says so, rather than losing the whole summary. */
function fitWithinLimit(markdown: string): string {
  const bytes = Buffer.byteLength(markdown, 'utf8');
  if (bytes <= SUMMARY_LIMIT_BYTES) return markdown;
  const notice =
    "\n\n> [!WARNING]\n> The summary was cut to fit GitHub's 1 MiB limit; the `report` output has everything.\n";
  const room = SUMMARY_LIMIT_BYTES - Buffer.byteLength(notice, 'utf8');
  let cut = Buffer.from(markdown, 'utf8').subarray(0, room).toString('utf8');
  cut = cut.slice(0, cut.lastIndexOf('\n'));
  return cut + notice;
}

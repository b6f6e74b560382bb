// Posts a finished report to GitHub: outputs, the job summary and a few annotations. Publishing never
// fails the run; a summary that cannot be written is a warning, not a lost lease.
import { countOutcomes, doctorProblemSlots, FAILED_OUTCOMES, type RunReport } from './model.ts';
import { renderSummary } from './summary.ts';

/** The part of @actions/core that publishing uses, so tests can pass their own. */
export interface PublishIO {
  setOutput(name: string, value: string | number): void;
  /** Appends Markdown to the step summary; throws when there is no summary file. */
  writeSummary(markdown: string): Promise<void>;
  error(message: string, properties?: { title?: string }): void;
  warning(message: string, properties?: { title?: string }): void;
  notice(message: string, properties?: { title?: string }): void;
}

/** GitHub shows 10 annotations of a kind per step; keep the last place for the pointer to the summary. */
export const MAX_SLOT_ANNOTATIONS = 9;

export function setOutputs(report: RunReport, io: Pick<PublishIO, 'setOutput'>): void {
  const counts = countOutcomes(report);
  io.setOutput('expired', counts.expired);
  io.setOutput('reclaimed', counts.reclaimed);
  io.setOutput('skipped', counts.skipped);
  io.setOutput('deferred', counts.deferred);
  io.setOutput('failed', counts.failed);
  io.setOutput('report', JSON.stringify(report));
  const slot = report.acquired;
  if (slot === undefined) return;
  io.setOutput('slot', slot.slug);
  io.setOutput('slot-number', slot.slotNumber ?? '');
  io.setOutput('lease-expires-at', slot.leaseExpiresAt);
  io.setOutput('was-dirty', String(slot.wasDirty));
  io.setOutput('resources', JSON.stringify(slot.resources));
  io.setOutput('wrangler-config', slot.wranglerConfig ?? '');
}

/** One error annotation per slot that needs a person: its problem and the fix. */
function slotAnnotations(report: RunReport): { title: string; message: string }[] {
  const failed = report.slots
    .filter((slot) => FAILED_OUTCOMES.has(slot.outcome))
    .map((slot) => ({
      title: `preview-gc: ${slot.slug} ${slot.outcome}`,
      message: `${slot.problem ?? slot.outcome}.${slot.nextStep === undefined ? '' : ` Fix: ${slot.nextStep}`}`,
    }));
  const doctor = doctorProblemSlots(report).map((row) => ({
    title: `preview-gc: ${row.slug} has a problem`,
    message: row.findings
      .filter((finding) => finding.severity === 'problem')
      .map((finding) => `${finding.text}.${finding.fix === undefined ? '' : ` Fix: ${finding.fix}`}`)
      .join(' '),
  }));
  return [...failed, ...doctor];
}

export function annotate(report: RunReport, io: Pick<PublishIO, 'error' | 'notice'>): void {
  const needingAPerson = slotAnnotations(report);
  for (const slot of needingAPerson.slice(0, MAX_SLOT_ANNOTATIONS))
    io.error(slot.message, { title: slot.title });
  if (needingAPerson.length > 0 || report.problems.length > 0) {
    const more =
      needingAPerson.length > MAX_SLOT_ANNOTATIONS ? ` (${needingAPerson.length} slots in all)` : '';
    io.notice(`The job summary of this run says what happened to every slot and what to do next${more}.`, {
      title: 'preview-gc summary',
    });
  }
}

export async function publishReport(report: RunReport, io: PublishIO): Promise<void> {
  setOutputs(report, io);
  for (const warning of report.warnings ?? []) io.warning(warning, { title: 'preview-gc' });
  annotate(report, io);
  try {
    await io.writeSummary(renderSummary(report));
  } catch (error) {
    io.warning(`The job summary was not written: ${error instanceof Error ? error.message : String(error)}`);
  }
}

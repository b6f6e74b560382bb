// gc's notices to the team's webhook (`webhook-url`): a lease alerted or parked for spend, a slot that
// came to need repair in this run. Each subject is told when the semaphore's own once-only decisions
// say so: a spend alert once a day per lease (the semaphore allows it), a park once per park (the
// semaphore marks it), a slot's repair when its failed erases in a row reach the threshold (its
// count, kept by the semaphore, passes it once per run of failures). A notice that cannot be delivered
// is a warning; the run's outcome never depends on it.
import { sendWebhookNotice, type WebhookOptions } from '../net/webhook.ts';
import { NEEDS_REPAIR_AFTER_FAILURES, type RunReport } from '../report/model.ts';
import { dollarsPerHour } from '../report/spend-text.ts';
import { visible } from '../text/log-text.ts';

export interface NoticeSink {
  url: string;
  options?: WebhookOptions;
}

/** Quoted for a chat message: backticks around a string a pull request may have written. */
const quoted = (text: string) => `\`${visible(text).replace(/`/g, "'")}\``;

/** The notices a gc run's report calls for, one per subject. */
export function noticesOf(report: Omit<RunReport, 'startedAt' | 'durationMs'>): string[] {
  const pool = quoted(report.pool);
  const alerts = (report.spendAlerts ?? []).map(
    (alert) =>
      `preview-gc: slot ${quoted(alert.slug)} of pool ${pool}, leased by ${quoted(alert.holder)}, spends about ${dollarsPerHour(alert.usdPerHour)} (above spend-alert-usd-per-hour).`,
  );
  const parks = (report.spendParks ?? []).map(
    (park) =>
      `preview-gc: slot ${quoted(park.slug)} of pool ${pool}, leased by ${quoted(park.holder)}, was parked for spend at about ${dollarsPerHour(park.usdPerHour)}${park.stopped ? '' : ' (the park did not hold: it may still run)'}; its data is kept and the next deploy brings it back.`,
  );
  const failedNow = new Set(
    report.slots.filter((slot) => slot.erase?.status === 'failed').map((slot) => slot.slug),
  );
  const repairs = (report.poolAfter ?? [])
    .filter((row) => row.eraseFailures === NEEDS_REPAIR_AFTER_FAILURES && failedNow.has(row.slug))
    .map(
      (row) =>
        `preview-gc: slot ${quoted(row.slug)} of pool ${pool} needs repair: its erase failed ${row.eraseFailures} times in a row${row.lastEraseFailure ? ` (${quoted(row.lastEraseFailure.step)}: ${quoted(row.lastEraseFailure.message)})` : ''}.`,
    );
  // The fair queue (issue 31) adds a pool whose first waiter waited too long here, told once a day.
  return [...alerts, ...parks, ...repairs];
}

/** Sends the report's notices; each one not delivered becomes a warning. */
export async function sendNotices(
  sink: NoticeSink | undefined,
  report: Omit<RunReport, 'startedAt' | 'durationMs'>,
  warnings: string[],
): Promise<void> {
  if (sink === undefined) return;
  for (const text of noticesOf(report)) {
    const problem = await sendWebhookNotice(sink.url, text, sink.options);
    if (problem !== null)
      warnings.push(`A notice to webhook-url was not delivered (${problem}); the run is not affected.`);
  }
}

// How spend reads, for every renderer (the job summary, the terminal, the annotations): dollars,
// the last hour's figures and what burns, in words. Plain text; each renderer escapes it its own way.
import { type ActivityFigures, hasActivity } from '../spend/activity.ts';
import { visible } from '../text/log-text.ts';
import { shellCommand } from '../text/shell.ts';
import { formatCount, plural } from '../text/words.ts';
import { pullRequestOf } from './format.ts';
import type { PoolRow, RunReport, SlotSpend, SpendAlert, SpendBurning } from './model.ts';

/** `$5.12`, `$312`, `< $0.01`, `$0`: as precise as a person needs. */
export function dollars(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return '< $0.01';
  if (usd < 100) return `$${usd.toFixed(2)}`;
  return `$${formatCount(Math.round(usd))}`;
}

/** `$5.12/h`. */
export function dollarsPerHour(usd: number): string {
  return usd === 0 ? '$0/h' : usd < 0.01 ? '< $0.01/h' : `${dollars(usd)}/h`;
}

const count = (n: number) => formatCount(Math.round(n));

/** Object-hours of Durable Object time: `0.3`, `12`, `3,125`. */
function objectHours(seconds: number): string {
  const hours = seconds / 3600;
  return hours < 10 ? hours.toFixed(1) : formatCount(Math.round(hours));
}

/** The hour's figures in one short line: `1,204 requests, 720 alarms, 2.1 object-hours`; `quiet` when none. */
function lastHourText(figures: Readonly<ActivityFigures>): string {
  const requests = figures.workerRequests + figures.objectRequests - figures.alarms;
  const parts = [
    requests > 0 ? `${count(requests)} requests` : '',
    figures.alarms > 0 ? `${count(figures.alarms)} alarms` : '',
    figures.activeSeconds > 0 ? `${objectHours(figures.activeSeconds)} object-hours` : '',
  ].filter(Boolean);
  return parts.length === 0 ? 'quiet' : parts.join(', ');
}

/** What burns, in words: `Durable Object class CartRoom of app-preview-2, woken by alarms (43,200 …)`. */
function burningText(burning: SpendBurning): string {
  if (burning.part === 'worker')
    return `the Worker's own requests (${count(burning.figures.workerRequests)} in the hour)`;
  // Names from Cloudflare: one line each, every control character spelled out.
  const script = visible(burning.script);
  const what =
    burning.className === null
      ? `a Durable Object namespace (${visible(burning.namespaceId)}) of ${script}`
      : `Durable Object class ${visible(burning.className)} of ${script}`;
  const { alarms, objectRequests, activeSeconds } = burning.figures;
  const active = `${objectHours(activeSeconds)} object-hours active`;
  switch (burning.drivenBy) {
    case 'alarms':
      return `${what}, woken by alarms (${count(alarms)} alarms in the hour, ${active})`;
    case 'requests':
      return `${what}, woken by requests (${count(objectRequests - alarms)} requests in the hour, ${active})`;
    case 'connections':
      return `${what}, active with no new invocation (${active}: a connection or call kept open)`;
  }
}

/** A slot's spend cell: `$5.12/h`, with `still running` or `above the alert` when it is. */
export function spendFlags(spend: SlotSpend): string[] {
  return [spend.stillRunning ? 'still running' : '', spend.overAlert ? 'above the alert' : ''].filter(
    Boolean,
  );
}

/** The link to a `pr-<n>` holder's pull request, when the run knows its repository. */
function pullRequestUrl(holder: string, report: Pick<RunReport, 'repository'>): string | null {
  const pr = pullRequestOf(holder, report.repository?.nameWithOwner);
  if (pr === null || report.repository === undefined) return null;
  return `${report.repository.serverUrl}/${report.repository.nameWithOwner}/pull/${pr}`;
}

/** What a spend alert says, in parts each renderer puts together with its own links and escaping. */
interface AlertParts {
  /** `about $5.04/h (alert above $1.00/h)` */
  cost: string;
  /** `: Durable Object class CartRoom of app-preview-2, woken by alarms (…)`, or nothing. */
  burns: string;
  /** The command that ends the lease by hand, null when the slug cannot be pasted. */
  release: string | null;
  /** What happens and what a person can do, after the command. */
  advice: (command: string | null) => string;
}

export function alertParts(alert: SpendAlert, report: Pick<RunReport, 'pool' | 'spend'>): AlertParts {
  const threshold =
    report.spend === undefined ? '' : ` (alert above ${dollarsPerHour(report.spend.alertUsdPerHour)})`;
  const holder = visible(alert.holder);
  return {
    cost: `about ${dollarsPerHour(alert.usdPerHour)}${threshold}`,
    burns: alert.burning === null ? '' : `: ${burningText(alert.burning)}`,
    // Every flag a force needs (release.ts): the lease it means, pinned, and why.
    release: shellCommand([
      'preview-gc',
      'release',
      '--pool',
      report.pool,
      '--slot',
      alert.slug,
      '--force',
      '--holder',
      alert.holder,
      '--generation',
      String(alert.generation),
      '--note',
      'spend alert',
    ]),
    advice: (command) =>
      'Its lease is live, so gc leaves it alone. If the preview is not needed: ' +
      (command === null
        ? "Force-release it in the semaphore's console"
        : `${command} (it asks you to type the slot's name) ends the lease only while ${holder} still holds it at generation ${alert.generation} (the console's Force-release does the same)`) +
      '; the next gc then parks it. This alert comes once a day per lease.',
  };
}

/** The spend alert's title and text, for the warning annotation: who, how much, what burns, what to do. */
export function alertAnnotation(
  alert: SpendAlert,
  report: Pick<RunReport, 'repository' | 'pool' | 'spend'>,
): { title: string; message: string } {
  const url = pullRequestUrl(alert.holder, report);
  const holder = url === null ? visible(alert.holder) : `${visible(alert.holder)} (${url})`;
  const parts = alertParts(alert, report);
  return {
    title: `preview-gc: ${alert.slug} spends ${dollarsPerHour(alert.usdPerHour)}`,
    message: `${alert.slug}, leased by ${holder}, spends ${parts.cost}${parts.burns}. ${parts.advice(parts.release === null ? null : `\`${parts.release}\``)}`,
  };
}

/**
 * A row's "Last hour" in words; for a slot this run took back, said to be before the park, since the
 * read is made before the run's erases and what it shows is not beside the word "reclaimed".
 */
export function lastHourCell(row: PoolRow, report: Pick<RunReport, 'slots'>): string {
  if (row.spend === undefined) return '–';
  const text = lastHourText(row.spend.figures);
  const parkedNow = report.slots.some(
    (slot) =>
      slot.slug === row.slug &&
      (slot.outcome === 'reclaimed' || slot.outcome === 'released' || slot.outcome === 'erased'),
  );
  return parkedNow && hasActivity(row.spend.figures) ? `${text}, before this run's park` : text;
}

/** The spend read's state for the summary line under the pool: what was read, and at which prices. */
export function spendNote(report: Pick<RunReport, 'spend'>): string | undefined {
  const spend = report.spend;
  if (spend === undefined) return undefined;
  const prices = `at Cloudflare's published prices of ${spend.pricesAsOf} (docs/cloudflare.md)`;
  switch (spend.source) {
    case 'read': {
      const unexplained =
        spend.unexplained === null
          ? ''
          : ` ${plural(spend.unexplained.namespaces, 'Durable Object namespace')} of the account spent ${dollarsPerHour(spend.unexplained.usdPerHour)} with no invocation in the hour to tie them to a Worker.`;
      return `"Last hour" and "$/h": each slot's Workers and Durable Objects in the hour before ${new Date(spend.until ?? 0).toISOString()}, ${prices}.${unexplained}`;
    }
    case 'stored':
      return `"Last hour" and "$/h": gc's last read of each slot, kept by the semaphore, ${prices}.`;
    case 'failed':
      return '"Last hour" and "$/h": the spend read did not answer (see the warning); figures shown are gc\'s last records.';
  }
}

// What a person reads of spend: the pool table's "Last hour" and "$/h" columns in the job summary and
// the terminal, the alert annotation (who, how much, what burns, what to do), the `spend` output, and a
// hostile class name or holder rendered as text.

import { describe, expect, it } from 'vitest';
import { renderTerminalReport } from '../../src/cli/terminal-report.ts';
import { leaseCostText } from '../../src/report/lease-cost-text.ts';
import type { SlotSpend, SpendAlert } from '../../src/report/model.ts';
import { type PublishIO, publishReport } from '../../src/report/publish.ts';
import { dollarsPerHour } from '../../src/report/spend-text.ts';
import { renderSummary } from '../../src/report/summary.ts';
import { NO_ACTIVITY } from '../../src/spend/activity.ts';
import { poolRow, runReport, slotReport } from '../support/report-fixtures.ts';

const UNTIL = Date.parse('2026-11-30T01:15:00Z');

function spend(fields: Partial<SlotSpend> = {}): SlotSpend {
  return {
    source: 'read',
    from: UNTIL - 3_600_000,
    until: UNTIL,
    usdPerHour: 0,
    figures: { ...NO_ACTIVITY },
    burning: null,
    stillRunning: false,
    overAlert: false,
    ...fields,
  };
}

const RUNAWAY_FIGURES = {
  ...NO_ACTIVITY,
  workerRequests: 120,
  objectRequests: 312_000,
  alarms: 312_000,
  activeSeconds: 3_120_000,
  gbSeconds: 399_360,
};

const alert: SpendAlert = {
  slug: 'preview-2',
  holder: 'pr-1601',
  generation: 3,
  usdPerHour: 5.04,
  burning: {
    part: 'objects',
    className: 'CartRoom',
    namespaceId: 'ns-2',
    script: 'shop-preview-2',
    drivenBy: 'alarms',
    usdPerHour: 5.04,
    figures: RUNAWAY_FIGURES,
  },
};

function spendReport() {
  return runReport({
    slots: [],
    spend: {
      source: 'read',
      from: UNTIL - 3_600_000,
      until: UNTIL,
      alertUsdPerHour: 1,
      pricesAsOf: '2026-12-01',
      unexplained: null,
      truncated: [],
    },
    spendAlerts: [alert],
    poolAfter: [
      poolRow({
        slug: 'preview-1',
        spend: spend({
          usdPerHour: 0.0061,
          figures: { ...NO_ACTIVITY, alarms: 360, objectRequests: 360, activeSeconds: 3_600 },
          stillRunning: true,
        }),
      }),
      poolRow({
        slug: 'preview-2',
        leaseState: 'leased',
        holder: 'pr-1601',
        leaseEndsInMs: 3_600_000,
        dirty: true,
        spend: spend({ usdPerHour: 5.04, figures: RUNAWAY_FIGURES, overAlert: true, burning: alert.burning }),
        // Three reads counted, an hour between two of them without one.
        leaseCost: { usd: 15.12, coveredMs: 3 * 3_600_000, missingMs: 3_600_000 },
      }),
      poolRow({ slug: 'preview-3' }),
    ],
  });
}

function recordingIO() {
  const seen: { outputs: Record<string, string | number>; warnings: { message: string; title?: string }[] } =
    {
      outputs: {},
      warnings: [],
    };
  const io: PublishIO = {
    setOutput: (name, value) => {
      seen.outputs[name] = value;
    },
    writeSummary: async () => {},
    error: () => {},
    warning: (message, properties) =>
      seen.warnings.push({ message, ...(properties?.title ? { title: properties.title } : {}) }),
    notice: () => {},
  };
  return { seen, io };
}

describe('spend in the report', () => {
  it('adds "Last hour", "$/h" and the lease\'s cost so far to the pool table, each slot flagged, and says which prices', () => {
    const markdown = renderSummary(spendReport());
    const table = markdown.split('\n').filter((line) => line.startsWith('| '));
    expect(table).toContain(
      '| Slot | State | Holder | Lease | Dirty | Generation | Last hour | $/h | Lease so far |',
    );
    expect(table).toContain(
      '| `preview-1` | available | – | – | no | 4 | 360 alarms, 1.0 object-hours | &lt; $0.01/h ⚠️ still running | – |',
    );
    expect(table).toContain(
      '| `preview-2` | leased | [pr-1601](https://github.com/acme/shop/pull/1601) | ends in 1 h | yes | 4 | 120 requests, 312,000 alarms, 867 object-hours | $5.04/h 🔥 above the alert | about $15.12 over 3 h; 1 h without a read |',
    );
    expect(table).toContain('| `preview-3` | available | – | – | no | 4 | – | – | – |');
    expect(markdown).toContain(
      '<sub>"Last hour" and "$/h": each slot\'s Workers and Durable Objects in the hour before 2026-11-30T01:15:00.000Z, at Cloudflare\'s published prices of 2026-12-01 (docs/cloudflare.md).</sub>',
    );
    expect(markdown).toContain('### Spending above the alert');
    expect(markdown).toContain(
      '**`preview-2` 🔥 $5.04/h.** Leased by [pr-1601](https://github.com/acme/shop/pull/1601), it spends about $5.04/h (alert above $1.00/h): Durable Object class CartRoom of shop-preview-2, woken by alarms',
    );
    expect(markdown).toContain(
      "```sh\npreview-gc release --pool preview-slot --slot preview-2 --force --holder pr-1601 --generation 3 --note 'spend alert'\n```",
    );
  });

  it('says that what the read saw of a slot the run took back was before its park', () => {
    const report = runReport({
      ...spendReport(),
      slots: [slotReport({ slug: 'preview-1', outcome: 'reclaimed' })],
      poolAfter: [
        poolRow({ slug: 'preview-1', spend: spend({ figures: { ...NO_ACTIVITY, workerRequests: 420 } }) }),
      ],
    });
    expect(renderSummary(report)).toContain("| 420 requests, before this run's park | $0/h |");
  });

  it('raises one warning per alert naming the slot, its holder with a link, what burns and what to do', async () => {
    const { seen, io } = recordingIO();
    await publishReport(spendReport(), io);
    expect(seen.warnings).toEqual([
      {
        title: 'preview-gc: preview-2 spends $5.04/h',
        message:
          "preview-2, leased by pr-1601 (https://github.com/acme/shop/pull/1601), spends about $5.04/h (alert above $1.00/h): Durable Object class CartRoom of shop-preview-2, woken by alarms (312,000 alarms in the hour, 867 object-hours active). Its lease is live, so gc leaves it alone. If the preview is not needed: `preview-gc release --pool preview-slot --slot preview-2 --force --holder pr-1601 --generation 3 --note 'spend alert'` (it asks you to type the slot's name) ends the lease only while pr-1601 still holds it at generation 3 (the console's Force-release does the same); the next gc then parks it. This alert comes once a day per lease.",
      },
    ]);
  });

  it('sets the spend output: one entry per slot with its state, dollars and figures', async () => {
    const { seen, io } = recordingIO();
    await publishReport(spendReport(), io);
    const entries = JSON.parse(String(seen.outputs.spend));
    expect(entries.map((entry: { slot: string }) => entry.slot)).toEqual(['preview-1', 'preview-2']);
    expect(entries[1]).toEqual({
      slot: 'preview-2',
      holder: 'pr-1601',
      state: 'leased',
      usdPerHour: 5.04,
      ...RUNAWAY_FIGURES,
      from: '2026-11-30T00:15:00.000Z',
      until: '2026-11-30T01:15:00.000Z',
      source: 'read',
      stillRunning: false,
      overAlert: true,
      alerted: true,
    });
  });

  it('shows a class name and holder from servers as text: no markup, no mention, no workflow command', async () => {
    const hostile = {
      ...alert,
      holder: 'pr-1601',
      burning: {
        ...alert.burning,
        className: '<img src=x>@admins\n::error::x',
        script: 'a|b',
      } as SpendAlert['burning'],
    };
    const report = { ...spendReport(), spendAlerts: [hostile] };
    const markdown = renderSummary(report);
    expect(markdown).not.toContain('<img');
    expect(markdown).toContain('&lt;img src=x&gt;@\u200dadmins\\\\n::error::x of a\\|b');
    const { seen, io } = recordingIO();
    await publishReport(report, io);
    expect(seen.warnings[0]?.message).toContain('class <img src=x>@admins\\n::error::x of a|b');
    expect(seen.warnings[0]?.message.split('\n')).toHaveLength(1);
  });

  it('prints the same columns in the terminal', () => {
    const text = renderTerminalReport(spendReport(), { color: false });
    expect(text).toMatch(/SLOT\s+STATE\s+HOLDER\s+LEASE\s+DIRTY\s+GENERATION\s+LAST HOUR\s+\$\/H/);
    expect(text).toMatch(/preview-2 .* \$5\.04\/h above the alert/);
    expect(text).toMatch(/preview-1 .* < \$0\.01\/h still running/);
    expect(text).toContain('Spending above the alert');
  });

  it('writes dollars as a person reads them', () => {
    expect([0, 0.004, 0.0123, 5.04, 312.4, 1_234.5].map(dollarsPerHour)).toEqual([
      '$0/h',
      '< $0.01/h',
      '$0.01/h',
      '$5.04/h',
      '$312/h',
      '$1,235/h',
    ]);
  });
});

describe("a lease's cost, for a person", () => {
  it('says dollars over the time the reads covered, below a cent in words, and the time no read covered', () => {
    const MINUTE = 60_000;
    expect(leaseCostText({ usd: 0.4249, coveredMs: 190 * MINUTE, missingMs: 0 })).toBe(
      'about $0.42 over 3 h 10 min',
    );
    expect(leaseCostText({ usd: 0.004, coveredMs: 40 * MINUTE, missingMs: 0 })).toBe(
      'less than a cent over 40 min',
    );
    expect(leaseCostText({ usd: 1.5, coveredMs: 60 * MINUTE, missingMs: 120 * MINUTE })).toBe(
      'about $1.50 over 1 h; 2 h without a read',
    );
  });
});

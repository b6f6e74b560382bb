// One view, two renderers: the job summary and the terminal say the same things about a run.
import { describe, expect, it } from 'vitest';
import { renderTerminalReport } from '../../src/cli/terminal-report.ts';
import type { SlotOutcome } from '../../src/report/model.ts';
import { renderSummary } from '../../src/report/summary.ts';
import { runReport, slotReport } from '../support/report-fixtures.ts';

const OUTCOMES: SlotOutcome[] = [
  'reclaimed',
  'skipped',
  'deferred',
  'interrupted',
  'acquire-failed',
  'erase-failed',
  'release-failed',
];

const report = runReport({
  slots: OUTCOMES.map((outcome, index) =>
    slotReport({ slug: `preview-${index + 1}`, outcome, problem: `problem of ${outcome}` }),
  ),
});

/** The lines of a section, from its heading to the next blank-line-separated heading. */
function section(text: string, heading: RegExp): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => heading.test(line));
  if (start === -1) return '';
  const end = lines.findIndex((line, at) => at > start + 1 && /^(### |[A-Z][a-z]+( [a-z]+)*$)/.test(line));
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

describe('the summary and the terminal', () => {
  const markdown = renderSummary(report);
  const terminal = renderTerminalReport(report, { color: false });

  it('list the same slots as needing attention: the failed and the deferred', () => {
    const named = (text: string) => [...text.matchAll(/preview-\d+/g)].map(([slug]) => slug);
    const inSummary = named(section(markdown, /^### What needs attention/));
    expect(inSummary).toEqual(['preview-3', 'preview-5', 'preview-6', 'preview-7']);
    expect(named(section(terminal, /^What needs attention/))).toEqual(inSummary);
  });

  // An interrupted slot counts as deferred: it waits for the next run like one.
  it('count the same in the headline', () => {
    const result = (line: string) => line.slice(line.indexOf(': ') + 2);
    expect(result(markdown.split('\n')[0] ?? '')).toBe('1 of 7 reclaimed, 1 skipped, 2 deferred, 3 failed');
    expect(result(terminal.split('\n')[0] ?? '')).toBe(result(markdown.split('\n')[0] ?? ''));
  });

  it('call each outcome by the same words', () => {
    for (const outcome of OUTCOMES) {
      const words = outcome.replace('-', ' ');
      expect(markdown).toContain(` ${words} |`);
      expect(terminal).toContain(` ${words}`);
    }
  });
});

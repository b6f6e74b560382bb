import { describe, expect, it } from 'vitest';
import { commandSafe, safeLogText, visible } from '../../src/text/log-text.ts';

/** How the runner decides a line is a command: `::` after leading white space, `##[` anywhere. */
function runnerSeesCommand(line: string): boolean {
  return (
    line.trimStart().startsWith('::') || line.replace(/^\u0085+/, '').startsWith('::') || line.includes('##[')
  );
}

describe('visible: a server string on one line', () => {
  it('spells out newlines and control characters', () => {
    expect(visible('preview-1\n::warning title=X::boom\r\t\u001b[31m\u0085')).toBe(
      'preview-1\\n::warning title=X::boom\\r\\t\\u001b[31m\\u0085',
    );
  });

  it('spells out the line and paragraph separators', () => {
    expect(visible('a\u2028b\u2029c')).toBe('a\\u2028b\\u2029c');
  });

  it('leaves ordinary text alone', () => {
    expect(visible('pr-7 (é, 漢字, emoji 🚀)')).toBe('pr-7 (é, 漢字, emoji 🚀)');
  });

  it('cannot start a command, even as a whole line', () => {
    for (const hostile of [
      '::add-mask::preview',
      '  ::stop-commands::x',
      '##[warning]x',
      'x ##[add-mask]y',
    ]) {
      expect(runnerSeesCommand(visible(hostile))).toBe(false);
    }
  });
});

describe('commandSafe and safeLogText: every line a runner reads as text', () => {
  it.each([
    '::warning title=X::fake',
    '   ::add-mask::preview',
    '\u0085::error::x',
    '\u00a0\u2003::notice::x',
    'text ##[warning]legacy',
    '##[set-output name=x]y',
  ])('%j is no command', (line) => {
    expect(runnerSeesCommand(commandSafe(line))).toBe(false);
  });

  it('keeps the lines of a message and breaks a command on any of them', () => {
    const text = safeLogText('first line\n::warning::second\n  third ##[error]x\u001b[0m');
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.some(runnerSeesCommand)).toBe(false);
    expect(lines[2]).toContain('\\u001b[0m');
  });

  it('reads the same to a person: only a zero-width space is added', () => {
    expect(commandSafe('::warning::x').replaceAll('\u200b', '')).toBe('::warning::x');
  });
});

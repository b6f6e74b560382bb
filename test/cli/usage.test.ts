// Wrong usage answers with one line saying what is wrong, the command's help, and exit code 2; --help
// answers every command. Most cases run in-process (fast); a few through a real process and the bundle.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INPUTS_WITHOUT_FLAG } from '../../src/cli/inputs.ts';
import { type CliIO, redactor } from '../../src/cli/io.ts';
import { COMMANDS, runCli as runInProcess } from '../../src/cli/main.ts';
import { runCli } from './run-cli.ts';

async function run(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    env,
    out: (text) => {
      stdout += `${text}\n`;
    },
    err: (text) => {
      stderr += `${text}\n`;
    },
    errRaw: (text) => {
      stderr += text;
    },
    outStyle: { color: false },
    errStyle: { color: false },
    errIsTTY: false,
    signal: new AbortController().signal,
  };
  const code = await runInProcess(args, io);
  return { code, stdout, stderr };
}

const SEMAPHORE_ENV = { SEMAPHORE_URL: 'http://127.0.0.1:9', SEMAPHORE_TOKEN: 'token-for-usage-tests' };

describe('preview-gc --help', () => {
  it.each(COMMANDS.map((spec) => spec.name))(
    '%s --help prints its usage, flags and examples, exit 0',
    async (name) => {
      const result = await run([...name.split(' '), '--help']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain(`Usage: preview-gc ${name}`);
      expect(result.stdout).toContain('--json');
      expect(result.stdout).toContain(`Examples:\n  preview-gc ${name}`);
    },
  );

  it('lists every command at the top level and under slots', async () => {
    const top = await run(['--help']);
    const slots = await run(['slots', '--help']);
    expect(top.code).toBe(0);
    for (const spec of COMMANDS) expect(top.stdout).toContain(`  ${spec.name}  `);
    for (const name of ['list', 'add', 'remove', 'sync']) expect(slots.stdout).toContain(`slots ${name}`);
  });
});

describe('wrong usage', () => {
  it.each([
    [[], 'which command?', 'Usage: preview-gc <command>'],
    [['sweep'], "unknown command 'sweep'", 'Usage: preview-gc <command>'],
    [['stauts'], "unknown command 'stauts': did you mean 'status'?", 'Usage: preview-gc <command>'],
    [['slots', 'lst'], "unknown command 'slots lst': did you mean 'slots list'?", 'Usage: preview-gc slots'],
    [
      ['gc', '--max-slot', '3'],
      "Unknown option '--max-slot': did you mean --max-slots?",
      'Usage: preview-gc gc',
    ],
    [
      ['acquire', '--pr-number', '3'],
      "Unknown option '--pr-number': did you mean --pr?",
      'Usage: preview-gc acquire',
    ],
    [
      ['cleanup', '--pr-number', '3'],
      "Unknown option '--pr-number': did you mean --pr?",
      'Usage: preview-gc cleanup',
    ],
    [
      ['cleanup', '--pr', '3', '--pull-request', '4'],
      'give --pull-request or --pr, not both',
      'Usage: preview-gc cleanup',
    ],
    [['slots'], 'slots needs a command', 'Usage: preview-gc slots'],
    [['slots', 'rename'], "unknown command 'slots rename'", 'Usage: preview-gc slots'],
    [['gc', '--bogus'], "Unknown option '--bogus'", 'Usage: preview-gc gc'],
    [['gc', 'extra'], 'Unexpected argument', 'Usage: preview-gc gc'],
    [['cleanup'], 'cleanup needs the pull request: --pull-request <n>', 'Usage: preview-gc cleanup'],
    [
      ['release', '--slot', 'preview-3'],
      'exactly one of --lease-id <id> or --force',
      'Usage: preview-gc release',
    ],
    [['release', '--force'], 'release needs the slot: --slot <slug>', 'Usage: preview-gc release'],
    [
      ['release', '--slot', 'Preview 3', '--force'],
      "--slot 'Preview 3' is not a slot name",
      'Usage: preview-gc release',
    ],
    [
      ['release', '--slot', 'preview-3', '--lease-id', 'abc'],
      "--lease-id 'abc' is not a lease id",
      'Usage: preview-gc release',
    ],
    [['slots', 'add'], 'give at least one slot', 'Usage: preview-gc slots add'],
    [['slots', 'add', 'UPPER'], "'UPPER' is not a slot name", 'Usage: preview-gc slots add'],
    [['slots', 'sync'], 'exactly one of --slugs <a,b,c> or --count <n>', 'Usage: preview-gc slots sync'],
    [['slots', 'sync', '--count', 'nine'], '--count must be a whole number', 'Usage: preview-gc slots sync'],
    [
      ['slots', 'sync', '--count', '3', '--pattern', 'preview'],
      '--pattern must contain {n}',
      'Usage: preview-gc slots sync',
    ],
  ])('preview-gc %j: %s', async (args, message, help) => {
    const result = await run(args, SEMAPHORE_ENV);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const [first, blank, ...rest] = result.stderr.split('\n');
    expect(first).toContain(message);
    expect(first?.startsWith('preview-gc: ')).toBe(true);
    expect(blank).toBe('');
    expect(rest.join('\n')).toContain(help);
  });

  it('names each missing or invalid setting by its flag and environment variable, before any call', async () => {
    const result = await run(['gc', '--max-slots', 'many'], { CLOUDFLARE_ACCOUNT_ID: 'not-hex' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--semaphore-url / SEMAPHORE_URL is required');
    expect(result.stderr).toContain('SEMAPHORE_TOKEN (environment variable) is required');
    expect(result.stderr).toContain('CLOUDFLARE_API_TOKEN (environment variable) is required');
    expect(result.stderr).toContain(
      '--cloudflare-account-id / CLOUDFLARE_ACCOUNT_ID must be the 32-character hex',
    );
    expect(result.stderr).toContain("--max-slots must be a whole number from 1 to 1000, got 'many'");
    expect(result.stderr).toContain('Usage: preview-gc gc');
  });

  it('has a flag or an environment variable for every input of the action', async () => {
    const action = parse(await readFile('action.yml', 'utf8')) as { inputs: Record<string, unknown> };
    const flagged = new Set(
      COMMANDS.flatMap((spec) => Object.values(spec.options).map((option) => option.input)),
    );
    const missing = Object.keys(action.inputs).filter(
      (input) => !flagged.has(input) && !INPUTS_WITHOUT_FLAG.includes(input),
    );
    expect(missing).toEqual([]);
  });
});

describe('redactor', () => {
  it('replaces the tokens from the environment wherever a message quotes them', () => {
    const redact = redactor({ SEMAPHORE_TOKEN: 'sem-secret-123', CLOUDFLARE_API_TOKEN: 'cf-secret-456' });
    expect(redact('Bearer sem-secret-123 was refused; cf-secret-456')).toBe('Bearer *** was refused; ***');
  });
});

describe('the preview-gc process', () => {
  it('exits 2 with the one-line error and the help on stderr', async () => {
    const result = await runCli(['status', '--pool']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe("preview-gc: Option '--pool <value>' argument missing");
    expect(result.stderr).toContain('Usage: preview-gc status');
  });

  it('is bundled into dist/cli.js, an executable that starts with a shebang', async () => {
    const bundle = await readFile('dist/cli.js', 'utf8');
    expect(bundle.startsWith('#!/usr/bin/env node\n')).toBe(true);
    const result = await runCli(['slots', 'sync', '--help'], {}, 'dist/cli.js');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: preview-gc slots sync');
  });
});

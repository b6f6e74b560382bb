// Runs the CLI as a user does: a child process with flags and environment variables. Asynchronous on
// purpose: the twin answers from this very process, so blocking here would starve it.
import { type ChildProcess, spawn } from 'node:child_process';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: this process's PATH and HOME only, plus `env`; never colour. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env };
}

/**
 * Starts `node <script> ...args`; `result` settles when it exits. With `stdin: 'pipe'` the test types
 * into `child.stdin` (a confirmation); otherwise stdin is empty.
 */
export function startNode(
  script: string,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  options: { stdin?: 'pipe' } = {},
): { child: ChildProcess; result: Promise<CliResult> } {
  const child = spawn(process.execPath, [script, ...args], {
    env: childEnv(env),
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  const result = new Promise<CliResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, result };
}

export function runCli(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  entry = 'src/cli.ts',
): Promise<CliResult> {
  return startNode(entry, args, env).result;
}

// Runs the bundled action (dist/index.js) as GitHub's runner does: a child process on Node 24 with
// INPUT_* variables and the GITHUB_* files, and reads back what a user would see.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ActionRunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  summary: string;
  outputs: Record<string, string>;
}

export interface ActionRunOptions {
  /** The webhook payload of the triggering event (GITHUB_EVENT_PATH). */
  event?: { name: string; payload: Record<string, unknown> };
  /** Called once the child runs, e.g. to signal it mid-run. */
  onSpawn?: (child: ChildProcess, output: { stdout: () => string }) => void;
  /** Leave GITHUB_STEP_SUMMARY unset, as outside Actions. */
  withoutSummaryFile?: boolean;
  /** More variables of the runner, e.g. GITHUB_API_URL pointing at a GitHub double. */
  env?: Record<string, string>;
  /** The working directory (the checkout); this process's by default. */
  cwd?: string;
}

const ACTION_ENTRY = new URL('../../dist/index.js', import.meta.url).pathname;

/** The inputs of a gc run with slot config `config` against a semaphore and a Cloudflare twin. */
export function gcInputs(
  config: string,
  semaphore: { url: string; token: string },
  cloudflare: { baseUrl: string; token: string; accountId: string },
): Record<string, string> {
  return {
    command: 'gc',
    config,
    'semaphore-url': semaphore.url,
    'semaphore-token': semaphore.token,
    'cloudflare-api-token': cloudflare.token,
    'cloudflare-account-id': cloudflare.accountId,
    'cloudflare-api-base-url': cloudflare.baseUrl,
    'requests-per-second': '50',
  };
}

/** `name<<DELIMITER\nvalue\nDELIMITER` blocks, as @actions/core writes them to GITHUB_OUTPUT. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const block = /^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (const match of text.matchAll(block)) outputs[match[1] as string] = match[3] as string;
  return outputs;
}

function baseEnvironment(): NodeJS.ProcessEnv {
  // The runner's own environment, without anything that could point the action elsewhere.
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(INPUT_|GITHUB_|RUNNER_|CLOUDFLARE_|SEMAPHORE_)/.test(name),
    ),
  );
}

export async function runAction(
  inputs: Record<string, string>,
  options: ActionRunOptions = {},
): Promise<ActionRunResult> {
  const dir = await mkdtemp(join(tmpdir(), 'preview-gc-action-'));
  const summaryPath = join(dir, 'summary.md');
  const outputPath = join(dir, 'output');
  const eventPath = join(dir, 'event.json');
  await Promise.all([
    writeFile(summaryPath, ''),
    writeFile(outputPath, ''),
    writeFile(eventPath, JSON.stringify(options.event?.payload ?? {})),
  ]);
  const env: NodeJS.ProcessEnv = {
    ...baseEnvironment(),
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: outputPath,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_EVENT_NAME: options.event?.name ?? 'schedule',
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_SERVER_URL: 'https://github.com',
    ...(options.withoutSummaryFile ? {} : { GITHUB_STEP_SUMMARY: summaryPath }),
    ...options.env,
    ...Object.fromEntries(
      Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    ),
  };
  try {
    const child = spawn(process.execPath, [ACTION_ENTRY], {
      env,
      cwd: options.cwd ?? process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    options.onSpawn?.(child, { stdout: () => stdout });
    const exitCode = await new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    );
    return {
      exitCode,
      stdout,
      stderr,
      summary: await readFile(summaryPath, 'utf8'),
      outputs: parseOutputFile(await readFile(outputPath, 'utf8')),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

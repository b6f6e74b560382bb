// Where the CLI writes and what it reads from its process, passed in so commands never touch globals.
import { createInterface } from 'node:readline';
import { rawSecretsOf } from '../config/settings.ts';
import { secretRedactor } from '../text/redact.ts';
import { commandSafeLines } from '../text/log-text.ts';
import { type TerminalStyle, wantsColor } from './style.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export interface CliIO {
  env: Env;
  /** Writes a line (or lines) to stdout. */
  out(text: string): void;
  /** Writes a line (or lines) to stderr. */
  err(text: string): void;
  /** Writes to stderr as is (no newline), for progress that rewrites its own line on a TTY. */
  errRaw(text: string): void;
  outStyle: TerminalStyle;
  errStyle: TerminalStyle;
  errIsTTY: boolean;
  /** Aborted on SIGINT/SIGTERM, with the signal's name as the reason. */
  signal: AbortSignal;
  /**
   * Asks a question on stderr and answers the next line of stdin (a terminal, or a pipe), or null
   * when stdin ends first. Absent: nobody can be asked, so a command that needs a confirmation refuses.
   */
  ask?: (question: string) => Promise<string | null>;
}

/**
 * Replaces every secret from the environment (the tokens, a password in a URL) in `text`, in every
 * form the action's net knows. The CLI never prints a token on purpose; this is the net under that
 * promise, for a message from a server or a library that quotes more than it should.
 */
export function redactor(env: Env): (text: string) => string {
  return secretRedactor(envSecrets(env));
}

/** The secrets in the environment: the tokens, and a password in a URL. */
export function envSecrets(env: Env): string[] {
  return rawSecretsOf({
    'semaphore-token': env.SEMAPHORE_TOKEN,
    'cloudflare-api-token': env.CLOUDFLARE_API_TOKEN,
    'semaphore-url': env.SEMAPHORE_URL,
    'cloudflare-api-base-url': env.CLOUDFLARE_API_BASE_URL,
  });
}

interface WritableLike {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** The next line of `input`, or null when it ends first. */
function nextLine(input: NodeJS.ReadableStream): Promise<string | null> {
  return new Promise((resolve) => {
    const lines = createInterface({ input, terminal: false });
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      resolve(line);
    });
    lines.once('close', () => {
      if (!answered) resolve(null);
    });
  });
}

export function processIO(options: {
  env: Env;
  stdout: WritableLike;
  stderr: WritableLike;
  signal: AbortSignal;
  stdin?: NodeJS.ReadableStream;
}): CliIO {
  const redact = redactor(options.env);
  // The CLI runs in CI too: no line it writes may start a workflow command there.
  const safe = (text: string) => commandSafeLines(redact(text));
  return {
    env: options.env,
    out: (text) => options.stdout.write(`${safe(text)}\n`),
    err: (text) => options.stderr.write(`${safe(text)}\n`),
    errRaw: (text) => options.stderr.write(safe(text)),
    outStyle: { color: wantsColor(options.stdout, options.env) },
    errStyle: { color: wantsColor(options.stderr, options.env) },
    errIsTTY: options.stderr.isTTY === true,
    signal: options.signal,
    ...(options.stdin === undefined
      ? {}
      : {
          ask: (question: string) => {
            options.stderr.write(safe(question));
            return nextLine(options.stdin as NodeJS.ReadableStream);
          },
        }),
  };
}

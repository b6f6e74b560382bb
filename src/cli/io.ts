// Where the CLI writes and what it reads from its process, passed in so commands never touch globals.
import { type TerminalStyle, wantsColor } from '../report/terminal.ts';

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
}

/** The secrets the CLI reads, by environment variable. */
const SECRET_ENV = ['SEMAPHORE_TOKEN', 'CLOUDFLARE_API_TOKEN'] as const;

/**
 * Replaces every secret from the environment in `text`. The CLI never prints a token on purpose; this
 * is the net under that promise, for a message from a library that quotes more than it should.
 */
export function redactor(env: Env): (text: string) => string {
  const secrets = SECRET_ENV.map((name) => env[name] ?? '').filter((secret) => secret.length >= 8);
  return (text) => secrets.reduce((result, secret) => result.replaceAll(secret, '***'), text);
}

interface WritableLike {
  isTTY?: boolean;
  write(text: string): unknown;
}

export function processIO(options: {
  env: Env;
  stdout: WritableLike;
  stderr: WritableLike;
  signal: AbortSignal;
}): CliIO {
  const redact = redactor(options.env);
  return {
    env: options.env,
    out: (text) => options.stdout.write(`${redact(text)}\n`),
    err: (text) => options.stderr.write(`${redact(text)}\n`),
    errRaw: (text) => options.stderr.write(redact(text)),
    outStyle: { color: wantsColor(options.stdout, options.env) },
    errStyle: { color: wantsColor(options.stderr, options.env) },
    errIsTTY: options.stderr.isTTY === true,
    signal: options.signal,
  };
}

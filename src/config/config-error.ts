// The error a refused slot config raises: every problem with the file, the place inside it and what
// to write instead, in one message; and the same for an app's wrangler config, which acquire reads.
import { visible } from '../text/log-text.ts';

/** One problem in the file: where it is and what to do about it. */
export interface ConfigProblem {
  /** Dotted path inside the file, e.g. `resources.r2[1].expire.after`; '' for the file itself. */
  path: string;
  line?: number;
  column?: number;
  message: string;
}

export class ConfigError extends Error {
  readonly file: string;
  readonly problems: readonly ConfigProblem[];
  constructor(file: string, problems: readonly ConfigProblem[], headline?: string) {
    const lines = problems.map((problem) => `  - ${formatProblem(file, problem)}`);
    super(`${headline ?? `the slot config ${file} was refused (nothing was changed)`}:\n${lines.join('\n')}`);
    this.name = 'ConfigError';
    this.file = file;
    this.problems = problems;
  }
}

/** A resource name of a slot is protected (`protect-words`, `protect`): the slot is refused before any call. */
export class ProtectedResourceError extends ConfigError {
  constructor(file: string, slot: string, problems: readonly ConfigProblem[]) {
    super(file, problems, `refusing to touch slot '${slot}' (no Cloudflare call was made)`);
    this.name = 'ProtectedResourceError';
  }
}

function formatProblem(file: string, problem: ConfigProblem): string {
  const where = problem.line === undefined ? file : `${file}:${problem.line}:${problem.column ?? 1}`;
  return problem.path === ''
    ? `${where}: ${problem.message}`
    : `${where} ${problem.path}: ${problem.message}`;
}

/**
 * An app's wrangler config acquire cannot use: each problem names its place (the file, a line or a
 * key) and the fix. The file is the branch's: whatever it says is quoted with its control characters
 * spelled out.
 */
export class WranglerConfigError extends ConfigError {
  constructor(file: string, problems: readonly string[]) {
    super(
      file,
      problems.map((message) => ({ path: '', message })),
    );
    this.message = `the wrangler config ${file} was refused (no slot was taken):\n${problems.map((problem) => `  - ${visible(problem)}`).join('\n')}`;
    this.name = 'WranglerConfigError';
  }
}

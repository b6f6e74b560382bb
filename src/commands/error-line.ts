import { ConfigError } from '../config/slot-config.ts';
import { visible } from '../text/log-text.ts';

/**
 * An error as one line of a report. A config error is ours and lists its problems a line each;
 * anything else may carry a server's words (an error message, an echoed value), so its newlines and
 * control characters are spelled out rather than starting lines of their own.
 */
export function oneLineError(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  return visible(error instanceof Error ? error.message : String(error));
}

// What a write leaves in the semaphore is read by everyone who may read it (a read-only token, the
// console, `preview-gc status` run without the run's secrets), for as long as the history keeps it. So
// the client, before it sends, and the Worker, before it stores, put every write through the same
// redaction net as the logs: free text (a note, an erase failure, which may quote a Cloudflare error
// that repeats the token) has each secret replaced, and a name (a holder, a slug, a request id) that
// carries one is refused, never rewritten into another name.
import { redactData } from '../report/redact.ts';

/** The fields of a write that are free text, kept to be shown: a note and an erase failure's step and message. */
const FREE_TEXT = new Set(['note', 'eraseFailure']);

export type RedactedWrite<T> = { body: T } | { field: string };

/**
 * The body with its free text redacted, or the first other field that carries a secret (it is not
 * sent, or not stored: a secret in a name is a mistake to refuse, not text to rewrite).
 */
export function redactWrite<T extends object>(body: T, redact: (text: string) => string): RedactedWrite<T> {
  const redacted: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    const clean = redactData(value, redact);
    if (!FREE_TEXT.has(field) && JSON.stringify(clean) !== JSON.stringify(value)) return { field };
    redacted[field] = clean;
  }
  return { body: redacted as T };
}

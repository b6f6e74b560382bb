// What a write leaves in the semaphore is read by everyone who may read it (a read-only token, the
// console, `preview-gc status` run without the run's secrets), for as long as the history keeps it. So
// the client, before it sends, and the Worker, before it stores, put every write through the same
// redaction net as the logs: free text (a note, an erase failure, which may quote a Cloudflare error
// that repeats the token) has each secret replaced, and a name (a holder, a slug, a request id) that
// carries one is refused, never rewritten into another name. Free text is clipped to the protocol's
// lengths only after the redaction, so a clip never cuts a secret in two and leaves half of it shown.
import { redactData } from '../text/redact.ts';
import {
  MAX_ERASE_MESSAGE_CODE_POINTS,
  MAX_ERASE_STEP_CODE_POINTS,
  MAX_NOTE_CODE_POINTS,
} from './protocol.ts';

/** `text` in at most `max` code points, a clipped one ending in `…`. */
function clip(text: string, max: number): string {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}

/** The fields of a write that are free text, kept to be shown, and how each is clipped once redacted. */
const FREE_TEXT: Readonly<Record<string, (value: unknown) => unknown>> = {
  note: (note) => (typeof note === 'string' ? clip(note, MAX_NOTE_CODE_POINTS) : note),
  eraseFailure: (failure) => {
    if (typeof failure !== 'object' || failure === null) return failure;
    const { step, message } = failure as { step?: unknown; message?: unknown };
    return typeof step === 'string' && typeof message === 'string'
      ? {
          step: clip(step, MAX_ERASE_STEP_CODE_POINTS),
          message: clip(message, MAX_ERASE_MESSAGE_CODE_POINTS),
        }
      : failure;
  },
};

export type RedactedWrite<T> = { body: T } | { field: string };

/**
 * The body with its free text redacted, or the first other field that carries a secret (it is not
 * sent, or not stored: a secret in a name is a mistake to refuse, not text to rewrite).
 */
export function redactWrite<T extends object>(body: T, redact: (text: string) => string): RedactedWrite<T> {
  const redacted: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    const clean = redactData(value, redact);
    const freeText = FREE_TEXT[field];
    if (freeText === undefined && JSON.stringify(clean) !== JSON.stringify(value)) return { field };
    redacted[field] = freeText === undefined ? clean : freeText(clean);
  }
  return { body: redacted as T };
}

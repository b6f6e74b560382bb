// The one redaction net under every exit of the action and the CLI (log lines, annotations, the job
// summary, every output, the report, stdout and stderr) and of everything written to the semaphore
// (the client's notes and erase failures, and the Worker's own answers and stored text). Nothing
// should print a secret on purpose; this catches what a server or a library repeats back: a
// Cloudflare error that quotes the token, a URL with the token in its query (URL-encoded), a Basic
// header or a debug dump (Base64). It runs in Node and in workerd alike (no Buffer).

export const REDACTED = '***';

/**
 * The Base64 characters that encode `secret` wherever it sits in a longer encoded text: for each of
 * the three byte offsets inside a 3-byte group, the characters that depend on the secret's bytes
 * alone (the first and the last character may mix in a neighbour's bits).
 */
function base64Cores(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  return [0, 1, 2].map((offset) => {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = btoa(Array.from(padded, (byte) => String.fromCharCode(byte)).join(''));
    return encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
  });
}

/** A Base64 core shorter than this could match by chance in unrelated text. */
const MIN_CORE_LENGTH = 8;

/** Every form of `secret` the net looks for: as is, URL-encoded, JSON-escaped, and in Base64. */
export function secretForms(secret: string): string[] {
  const urlEncoded = encodeURIComponent(secret);
  const cores = base64Cores(secret).filter((core) => core.length >= MIN_CORE_LENGTH);
  const forms = [
    secret,
    urlEncoded,
    urlEncoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    JSON.stringify(secret).slice(1, -1),
    ...cores,
    ...cores.map((core) => core.replaceAll('+', '-').replaceAll('/', '_')),
  ];
  return [...new Set(forms)].filter((form) => form.length > 0);
}

/** Replaces every form of every secret in a text; longer forms first, so none is left half-shown. */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets.filter((secret) => secret.length > 0).flatMap(secretForms))].sort(
    (a, b) => b.length - a.length,
  );
  return (text) => forms.reduce((result, form) => result.replaceAll(form, REDACTED), text);
}

/**
 * Plain data (a run report) with every string redacted, before anything renders it: escaping for
 * Markdown or a terminal changes how a secret is spelled, so the net must act on the data first.
 */
export function redactData<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactData(item, redact)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redact(key), redactData(item, redact)]),
    ) as T;
  }
  return value;
}

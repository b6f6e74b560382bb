// The one redaction net under every exit of the action and the CLI (log lines, annotations, the job
// summary, every output, the report, stdout and stderr) and of everything written to the semaphore
// (the client's notes and erase failures, and the Worker's own answers and stored text). Nothing
// should print a secret on purpose; this catches what a server or a library repeats back: a
// Cloudflare error that quotes the token, a URL with the token in its query (URL-encoded), a Basic
// header or a debug dump (Base64), a hex dump, the secret upper- or lower-cased, or split by a
// zero-width character or a soft hyphen (which a viewer hides). It runs in Node and in workerd alike
// (no Buffer).

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

/** The secret's UTF-8 bytes in hex (the net matches either case). */
function hexOf(secret: string): string {
  return Array.from(new TextEncoder().encode(secret), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Every form of `secret` the net looks for: as is, URL-encoded, JSON-escaped, in Base64 and in hex. */
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
    hexOf(secret),
  ];
  return [...new Set(forms)].filter((form) => form.length > 0);
}

/** How a text clipped to a length ends (`answer.ts` and the semaphore's free text clip so). */
const CLIPPED = '…';

/**
 * The text with the start of a form cut off by a clip redacted: `…cf-tok…` shows no token whole, but
 * a long enough start of one is still the token's to hide.
 */
function withoutClippedForms(text: string, forms: readonly string[]): string {
  let result = text;
  for (let at = result.indexOf(CLIPPED); at !== -1; at = result.indexOf(CLIPPED, at + 1)) {
    const before = result.slice(0, at);
    const start = longestClippedStart(before, forms);
    if (start === 0) continue;
    result = `${before.slice(0, -start)}${REDACTED}${result.slice(at)}`;
    at += REDACTED.length - start;
  }
  return result;
}

/** The length of the longest start of a form (MIN_CORE_LENGTH or more) that `text` ends with; 0 for none. */
function longestClippedStart(text: string, forms: readonly string[]): number {
  let longest = 0;
  for (const form of forms) {
    for (
      let size = Math.min(form.length - 1, text.length);
      size >= MIN_CORE_LENGTH && size > longest;
      size--
    ) {
      if (text.endsWith(form.slice(0, size))) longest = size;
    }
  }
  return longest;
}

/**
 * Characters a viewer shows as nothing, which a secret split by them still reads as the secret: the
 * soft hyphen, zero-width spaces and joiners, bidi marks, word joiners and the BOM.
 */
const HIDDEN_INSIDE = '[\\u00ad\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\ufeff]*';

/** A form as a pattern: any case, and hidden characters allowed between any two of its characters. */
function formPattern(form: string): RegExp {
  const characters = Array.from(form, (char) => char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(characters.join(HIDDEN_INSIDE), 'giu');
}

/**
 * Replaces every form of every secret in a text; longer forms first, so none is left half-shown,
 * and the start of one a clip cut off.
 */
export function secretRedactor(secrets: readonly string[]): (text: string) => string {
  const forms = [...new Set(secrets.filter((secret) => secret.length > 0).flatMap(secretForms))].sort(
    (a, b) => b.length - a.length,
  );
  const patterns = forms.map(formPattern);
  return (text) =>
    withoutClippedForms(
      patterns.reduce((result, pattern) => result.replace(pattern, REDACTED), text),
      forms,
    );
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

import { describe, expect, it } from 'vitest';
import { redactData, secretForms, secretRedactor } from '../../src/text/redact.ts';

const TOKEN = 'cf-TOKEN+/9x_Qz7~ab"c\\d';

describe('secretRedactor: every form a server might repeat a secret in', () => {
  const redact = secretRedactor([TOKEN, 'sem-token-2f8c41d7']);

  it.each([
    ['as is', `Authentication error for ${TOKEN}.`],
    ['URL-encoded', `GET /x?token=${encodeURIComponent(TOKEN)}&a=1`],
    [
      'URL-encoded with lowercase hex',
      `?t=${encodeURIComponent(TOKEN).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())}`,
    ],
    ['JSON-escaped', JSON.stringify({ message: `token ${TOKEN}` })],
    ['Base64', `debug: ${Buffer.from(TOKEN).toString('base64')}`],
    ['Base64url', `debug: ${Buffer.from(TOKEN).toString('base64url')}`],
  ])('%s', (_, text) => {
    expect(redact(text)).not.toContain(TOKEN);
    expect(redact(text)).toContain('***');
    for (const form of secretForms(TOKEN)) expect(redact(text)).not.toContain(form);
  });

  it.each([0, 1, 2, 3, 4, 5])('inside a longer Base64 text, at offset %i', (offset) => {
    const blob = Buffer.from(`${'u'.repeat(offset)}user:${TOKEN} and more`).toString('base64');
    const redacted = redact(`Authorization: Basic ${blob}`);
    expect(redacted).toContain('***');
    // What is left cannot be decoded back to the token.
    const left = Buffer.from(redacted.replace('Authorization: Basic ', '').replace('***', ''), 'base64');
    expect(left.toString('latin1')).not.toContain(TOKEN.slice(2, -2));
  });

  // Cloudflare's messages are clipped at 300 characters before any redaction sees them: a clip
  // through a token leaves its start, which is still the token's to hide.
  it('redacts the start of a secret a clip cut off, and only a start long enough to tell', () => {
    expect(redact(`denied for ${TOKEN.slice(0, 12)}…`)).toBe('denied for ***…');
    expect(redact(`url ${encodeURIComponent(TOKEN).slice(0, 15)}… and ${TOKEN.slice(0, 9)}…`)).toBe(
      'url ***… and ***…',
    );
    expect(redact(`short ${TOKEN.slice(0, 5)}…`)).toBe(`short ${TOKEN.slice(0, 5)}…`);
    expect(redact('cf-TOKEN+/9x and more')).toBe('cf-TOKEN+/9x and more');
  });

  it('leaves text without a secret alone', () => {
    expect(redact('preview-3 reclaimed in 4 s')).toBe('preview-3 reclaimed in 4 s');
  });

  it('ignores empty secrets', () => {
    expect(secretRedactor(['', ''])('nothing to hide')).toBe('nothing to hide');
  });
});

describe('redactData', () => {
  it('redacts every string of plain data, keys included, and keeps the rest', () => {
    const redact = secretRedactor(['s3cr3t-token']);
    expect(
      redactData(
        {
          problem: 'x s3cr3t-token y',
          n: 3,
          ok: true,
          none: null,
          list: ['s3cr3t-token'],
          's3cr3t-token': 1,
        },
        redact,
      ),
    ).toEqual({ problem: 'x *** y', n: 3, ok: true, none: null, list: ['***'], '***': 1 });
  });
});

// A hostile read found these spellings passing the net into the log, the summary, the slot record and
// the events: a secret echoed in hex, upper- or lower-cased, or split by a character a viewer hides.
describe('secretRedactor: spellings a viewer reads as the secret', () => {
  const secret = 'cf-Tok3n-a1b2c3d4e5';
  const redact = secretRedactor([secret]);
  const hex = Buffer.from(secret).toString('hex');

  it.each([
    ['in lower-case hex', `dump: ${hex}`],
    ['in upper-case hex', `dump: ${hex.toUpperCase()}`],
    ['upper-cased', `token ${secret.toUpperCase()} refused`],
    ['lower-cased', `token ${secret.toLowerCase()} refused`],
    ['split by a zero-width space', `token ${secret.slice(0, 5)}\u200b${secret.slice(5)} refused`],
    ['split by a soft hyphen', `token ${secret.slice(0, 9)}\u00ad${secret.slice(9)} refused`],
    [
      'split by a word joiner and a BOM',
      `token ${secret.slice(0, 3)}\u2060${secret.slice(3, 7)}\ufeff${secret.slice(7)}`,
    ],
    [
      'upper-cased and split',
      `token ${secret.toUpperCase().slice(0, 6)}\u200c${secret.toUpperCase().slice(6)}`,
    ],
  ])('%s', (_, text) => {
    const redacted = redact(text);
    expect(redacted).toContain('***');
    const shown = redacted.replace(/[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]/g, '').toLowerCase();
    expect(shown).not.toContain(secret.toLowerCase());
    expect(shown).not.toContain(hex);
  });

  it('leaves text that only shares a short run with the secret alone', () => {
    expect(redact('cf-tok is a prefix, a1b2 a fragment')).toBe('cf-tok is a prefix, a1b2 a fragment');
  });
});

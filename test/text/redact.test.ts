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

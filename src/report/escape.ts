// Every dynamic string in the job summary goes through here: holder names, slugs and API messages
// come from outside and must not inject HTML, links, mentions or table cells.

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, but tabs and newlines may stay
const CONTROL_CHARACTERS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Invisible characters that change how the text around them reads (bidi overrides and isolates,
// zero-width spaces and joiners, line and paragraph separators): spelt out as ⟨U+202E⟩, as the web
// console shows them, so a holder with a hidden right-to-left override cannot pass for another one.
const FORMAT_CHARACTERS = /[\p{Cf}\p{Zl}\p{Zp}]/gu;

function spelledOut(text: string): string {
  return text.replace(
    FORMAT_CHARACTERS,
    (char) => `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for a Markdown paragraph or table cell (GitHub-flavoured, HTML allowed). */
export function escapeMarkdown(text: string): string {
  return (
    // Control characters would break lines or the terminal: the replacement mark; format ones: spelt out.
    spelledOut(text.replace(CONTROL_CHARACTERS, '\ufffd'))
      // Markdown punctuation that can start emphasis, code, links, tables or headings mid-line.
      .replace(/[\\`*_[\]|~#]/g, '\\$&')
      // A holder like https://… or www.… must not become an autolink (a joiner breaks `www.`).
      .replace(/:\/\//g, '\\://')
      .replace(/www\./gi, (www) => `${www.slice(0, 3)}\u200d.`)
      .replace(/[&<>]/g, (char) => HTML_ENTITIES[char] ?? char)
      // An @mention in a summary would notify somebody; a zero-width joiner defuses it.
      .replace(/@/g, '@\u200d')
  );
}

/** Text for inside a fenced code block: only a fence could break out of it. */
export function escapeCodeBlock(text: string): string {
  return spelledOut(text.replace(CONTROL_CHARACTERS_BUT_LINES, '\ufffd')).replace(/`{3,}/g, (fence) =>
    fence.split('').join('\u200b'),
  );
}

/** Inline code for a slug or pool name; safe inside a table cell too (GFM splits cells on '|'). */
export function inlineCode(text: string): string {
  const body = spelledOut(text.replace(CONTROL_CHARACTERS, '\ufffd'))
    .replace(/`/g, "'")
    .replace(/\|/g, '\\|');
  return `\`${body}\``;
}

// Every dynamic string in the job summary goes through here: holder names, slugs and API messages
// come from outside and must not inject HTML, links, mentions or table cells.

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, but tabs and newlines may stay
const CONTROL_CHARACTERS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Characters that show nothing or change how the text around them reads: format characters (bidi
// overrides and isolates, zero-width spaces and joiners, interlinear marks) and Unicode's other
// default-ignorable ones (fillers, variation selectors), and line or paragraph separators. Shown by
// name, ⟨U+202E⟩, as the web console shows them, so a holder with a hidden character cannot pass for
// another one.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/gu;
// An emoji as a title uses it: one style selector after it at most, and a joiner only between two
// emoji (👨‍👩‍👧). Nothing else hidden rides along.
const EMOJI_SEQUENCE =
  /\p{Extended_Pictographic}[\ufe0e\ufe0f]?(?:\u200d\p{Extended_Pictographic}[\ufe0e\ufe0f]?)*/gu;

function named(char: string): string {
  return `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

function showInvisible(text: string): string {
  return text.replace(INVISIBLE, named);
}

/** As showInvisible, but an emoji sequence keeps its joiners and style selector (👨‍👩‍👧 in a title). */
function showInvisibleButEmoji(text: string): string {
  let shown = '';
  let from = 0;
  for (const match of text.matchAll(EMOJI_SEQUENCE)) {
    shown += showInvisible(text.slice(from, match.index)) + match[0];
    from = match.index + match[0].length;
  }
  return shown + showInvisible(text.slice(from));
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
  return escapeShown(showInvisible(text));
}

/** escapeMarkdown for text of several lines in one paragraph or cell: each line escaped, joined by <br>. */
export function escapeLines(text: string): string {
  return text.split('\n').map(escapeMarkdown).join('<br>');
}

/** escapeMarkdown for a pull request's title, whose emoji keep their joiners. */
export function escapeTitle(text: string): string {
  return escapeShown(showInvisibleButEmoji(text));
}

function escapeShown(text: string): string {
  return (
    // Control characters would break lines or the terminal; show them as the replacement mark.
    text
      .replace(CONTROL_CHARACTERS, '\ufffd')
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
  return showInvisible(text.replace(CONTROL_CHARACTERS_BUT_LINES, '\ufffd')).replace(/`{3,}/g, (fence) =>
    fence.split('').join('\u200b'),
  );
}

/** Inline code for a slug or pool name; safe inside a table cell too (GFM splits cells on '|'). */
export function inlineCode(text: string): string {
  const body = showInvisible(text.replace(CONTROL_CHARACTERS, '\ufffd'))
    .replace(/`/g, "'")
    .replace(/\|/g, '\\|');
  return `\`${body}\``;
}

/** What a URL preview-gc built from checked parts looks like: https, a hostname, a plain path. */
const CHECKED_URL = /^https:\/\/[a-z0-9.-]+(?:\/[A-Za-z0-9._~/-]*)?$/;

/**
 * A link to a URL preview-gc built (the preview's `url`), shown as inline code. Anything that does
 * not look like one is shown as text, never linked: a link's target is the one place escaping cannot reach.
 */
export function urlLink(url: string): string {
  return CHECKED_URL.test(url) ? `[${inlineCode(url)}](${url})` : escapeMarkdown(url);
}

// Every dynamic string in the job summary goes through here: holder names, slugs and API messages
// come from outside and must not inject HTML, links, mentions or table cells.

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, but tabs and newlines may stay
const CONTROL_CHARACTERS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Characters that show nothing (Unicode's default-ignorable ones: bidi overrides and isolates,
// zero-width spaces and joiners, fillers, variation selectors) and line or paragraph separators:
// shown by name, ⟨U+202E⟩, as the web console shows them, so a holder with a hidden character cannot
// pass for another one.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/gu;
// What joins an emoji to the next or picks its style: a pull request title may use them as meant.
const EMOJI_GLUE = /^[\u200d\ufe0e\ufe0f\u{e0020}-\u{e007f}]$/u;
const EMOJI = /\p{Extended_Pictographic}|[\u{1f3fb}-\u{1f3ff}]/u;

function named(char: string): string {
  return `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

function showInvisible(text: string): string {
  return text.replace(INVISIBLE, named);
}

/** As showInvisible, but an emoji's own joiners and selectors stay (👨‍👩‍👧 in a title). */
function showInvisibleButEmoji(text: string): string {
  let inEmoji = false;
  return Array.from(text, (char) => {
    const keep = EMOJI.test(char) || (inEmoji && EMOJI_GLUE.test(char));
    inEmoji = keep;
    return keep ? char : showInvisible(char);
  }).join('');
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

// Text from outside (a slug, a holder, an error message from a server) on its way to a log line. The
// Actions runner reads its step's output line by line and acts on two things in it: a line that starts
// with `::` once leading whitespace is trimmed (`::warning::`, `::add-mask::`, `::stop-commands::`) and
// the legacy `##[command]` anywhere in a line. A terminal acts on control characters. So every string
// from a server is shown on one line with its control characters spelled out, and every line written
// is broken where the runner would read a command.

// Unicode's control characters (Cc), the line and paragraph separators some viewers break on (a line
// that could pass for preview-gc's own), and the characters that show nothing or reorder the text
// around them: format characters (bidi overrides and isolates, zero-width spaces and joiners) and the
// other default-ignorable ones.
const INVISIBLE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function spelledOut(char: string): string {
  return (
    NAMED_ESCAPES[char] ?? `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0').toLowerCase()}`
  );
}

/** One line: every control and hidden character (newlines too) spelled out, `\n`, `\u202e`, and no command in it. */
export function visible(text: string): string {
  return commandSafe(text.replace(INVISIBLE, spelledOut));
}

/**
 * Text from a server as a quoted field of one line: `"…"`, its quotes and backslashes escaped and its
 * control and hidden characters spelled out, so where it starts and ends shows, and nothing in it can
 * pass for a line or a word of ours.
 */
export function quoted(text: string): string {
  return `"${visible(text.replace(/[\\"]/g, '\\$&'))}"`;
}

// What the runner trims before it looks for `::`: .NET's white space, which includes U+0085.
const COMMAND_AT_START = /^([\s\u0085]*):(?=:)/;
const LEGACY_COMMAND = /##\[/g;
// A zero-width space: not white space to the runner, so `:\u200b:` is no command and reads the same.
const BREAK = '\u200b';

/** A line the runner reads as text: a leading `::` and every `##[` get a zero-width space inside. */
export function commandSafe(line: string): string {
  return line.replace(COMMAND_AT_START, `$1:${BREAK}`).replace(LEGACY_COMMAND, `#${BREAK}#[`);
}

/**
 * Output that keeps its control characters (a terminal's colours, a progress line that rewrites
 * itself): every line, split the way the runner splits them (CR, LF, CRLF), made command-safe.
 */
export function commandSafeLines(text: string): string {
  return text
    .split(/(\r\n|\r|\n)/)
    .map((part, index) => (index % 2 === 0 ? commandSafe(part) : part))
    .join('');
}

// Those characters but the newline, which separates the lines of a message we wrote ourselves.
const INVISIBLE_BUT_NEWLINE = /[^\n\P{Cc}]|[\p{Zl}\p{Zp}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * A message of one or more lines for the log: the lines it was written with stay, every other control
 * character is spelled out, and no line starts a command.
 */
export function safeLogText(text: string): string {
  return text.replace(INVISIBLE_BUT_NEWLINE, spelledOut).split('\n').map(commandSafe).join('\n');
}

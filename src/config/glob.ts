// What keeps a slot's templates away from production names. `protect-words` are whole words: a name
// is split into words at every character that is not a letter or a digit (`-`, `_`, `.`, a space,
// the ends) and wherever letters and digits meet, so `prod` finds `app_prod.db`, `App prod PROD`,
// `prod1` and `prd01`'s `prd`, but not `product-catalog`. A protected word with digits (`live2`) is
// found as the same run of words (`app-live2`, `app-live-2`). The
// `protect` patterns are shell-style globs: `*` matches any run of characters (also none), `?`
// exactly one, everything else itself. Both ignore case: `App-PROD` is as much production as
// `app-prod`.

/** A run of letters or a run of digits: the words a name is made of. */
const WORD = /\p{L}+|\p{N}+/gu;

const wordsOf = (text: string): string[] => text.toLowerCase().match(WORD) ?? [];

/** Whether `words` holds `run` as consecutive words. */
function holdsRun(words: readonly string[], run: readonly string[]): boolean {
  if (run.length === 0) return false;
  for (let start = 0; start + run.length <= words.length; start++) {
    if (run.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** The first of `words` that `name` holds as a whole word, in any case, or undefined. */
export function firstProtectedWord(name: string, words: readonly string[]): string | undefined {
  const inName = wordsOf(name);
  return words.find((word) => holdsRun(inName, wordsOf(word)));
}

/** Turns one glob into an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const body = Array.from(glob, (char) => {
    if (char === '*') return '.*';
    if (char === '?') return '.';
    return char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }).join('');
  return new RegExp(`^${body}$`, 'is');
}

/** The first pattern that matches `name`, or undefined. */
export function firstMatchingGlob(name: string, globs: readonly string[]): string | undefined {
  return globs.find((glob) => globToRegExp(glob).test(name));
}

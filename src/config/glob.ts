// What keeps a slot's templates away from production names. `protect-words` are whole words: a name
// is split into words at every character that is not a letter or a digit (`-`, `_`, `.`, a space,
// the ends), so `prod` finds `app_prod.db` and `App prod PROD` but not `product-catalog`. The
// `protect` patterns are shell-style globs: `*` matches any run of characters (also none), `?`
// exactly one, everything else itself. Both ignore case: `App-PROD` is as much production as
// `app-prod`.

const WORD_BOUNDARIES = /[^\p{L}\p{N}]+/u;

/** The first of `words` that `name` holds as a whole word, in any case, or undefined. */
export function firstProtectedWord(name: string, words: readonly string[]): string | undefined {
  const inName = new Set(name.toLowerCase().split(WORD_BOUNDARIES));
  return words.find((word) => inName.has(word.toLowerCase()));
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

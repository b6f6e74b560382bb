// The `protect` patterns are shell-style globs: `*` matches any run of characters (also none),
// `?` exactly one, everything else itself. Matching is case-insensitive because the guard exists to
// refuse production names, and `App-PROD` is as much production as `app-prod`.

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

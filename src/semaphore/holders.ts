// The holders a pull request's lease is taken under. A deploy job signed in with a token of its own
// leases as `pr-<n>` (a one-repository setup, as before); one signed in with its OIDC token leases as
// `<owner>/<repo>/pr-<n>`, so two repositories' pull requests with the same number are two holders.
// Holders are compared exactly everywhere, never by prefix or with case folded: `pr-7` is not `pr-70`,
// and `acme/shop/pr-6` is not `ACME/shop/pr-6`.

/**
 * A GitHub repository's `owner/name`: the owner 1-39 of letters, digits and '-', the name 1-100 of
 * letters, digits, '.', '_' and '-', and neither '.' nor '..'.
 */
export const REPOSITORY_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;

/** The pull request's number in the one spelling acquire writes (`7`, never `07` or `0`). */
const NUMBER = '([1-9][0-9]{0,9})';
const PLAIN_HOLDER = new RegExp(`^pr-${NUMBER}$`);

/** The holder of pull request `number`'s lease: `pr-<n>`, or `<repository>/pr-<n>` when a repository is named. */
export function pullRequestHolder(number: number, repository?: string): string {
  return repository === undefined ? `pr-${number}` : `${repository}/pr-${number}`;
}

/**
 * The pull request behind a holder, when it is one of `repository`'s: `pr-<n>`, or exactly
 * `<repository>/pr-<n>`. A look-alike (a person's `pr-07`, another repository's `acme/blog/pr-7`) is
 * none, so nothing acts on a pull request it cannot tell apart.
 */
export function pullRequestOfHolder(holder: string | null, repository?: string): number | null {
  if (holder === null) return null;
  const plain = PLAIN_HOLDER.exec(holder);
  if (plain) return Number(plain[1]);
  if (repository === undefined) return null;
  const prefix = `${repository}/`;
  if (!holder.startsWith(prefix)) return null;
  const own = PLAIN_HOLDER.exec(holder.slice(prefix.length));
  return own ? Number(own[1]) : null;
}

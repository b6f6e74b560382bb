// What a person reads when the credential check finds a problem: what is wrong, what preview-gc did
// about it, and the fix, with the permissions named as the dashboard offers them.
import type { CredentialProblem } from '../cloudflare/credentials.ts';
import type { RunPlace } from '../config/run-place.ts';
import { permissionOf } from '../kinds/permissions.ts';
import { listed } from '../text/words.ts';

const INVALID: Record<Extract<CredentialProblem, { kind: 'invalid' }>['status'], string> = {
  refused: 'is invalid or expired: Cloudflare does not accept it',
  expired: 'is expired',
  disabled: 'is disabled',
};

/** The problem in one paragraph: what is wrong, what preview-gc did about it, and the fix. */
export function describeCredentialProblem(
  problem: CredentialProblem,
  context: { accountId: string; place: RunPlace; consequence: string },
): string {
  const { accountId, place, consequence } = context;
  const token = place.credential('cloudflare-api-token');
  switch (problem.kind) {
    case 'invalid':
      return `The Cloudflare API token ${INVALID[problem.status]}, so ${consequence}. Fix: create a token as the README's "Create the Cloudflare API token" says and put it in ${token}; then ${place.rerun}.`;
    case 'account':
      return `The Cloudflare API token cannot access account ${accountId}, so ${consequence}. Fix: check that ${place.credential('cloudflare-account-id')} is the id of the account that holds the slots (dashboard → Workers & Pages, right column), and that the token's Account Resources include that account; then ${place.rerun}.`;
    case 'permissions': {
      const missing = problem.refused.map(permissionOf);
      const lacks = listed(
        missing.map((permission) => `${permission.dashboard} for ${permission.resources}`),
      );
      const add = listed(missing.map((permission) => permission.dashboard));
      return `The Cloudflare API token lacks ${lacks}, so ${consequence}. Fix: edit the token (dashboard → My Profile → API Tokens) and add ${add} on account ${accountId}; then ${place.rerun}.`;
    }
  }
}

// The credential check a run makes once, before it touches any slot: is the API token valid, may it use
// the account, and does it have the permission each kind of resource in the config needs? A wrong
// token otherwise fails every call of every slot alike, and the per-slot messages cannot tell a
// revoked token from a token of another account.
//
// What the API offers (Cloudflare API docs): `GET /user/tokens/verify` answers a user's token with its
// status (active, disabled, expired); a token owned by an account is verified under the account
// instead (`GET /accounts/{id}/tokens/verify`). Whether the token may use a kind of resource shows in
// that kind's own listing, which the erase needs anyway (so the check costs one call more than the
// erase, not one per kind). When every listing is refused, `GET /accounts/{id}` tells a token without
// access to the account (refused) from one without any of the permissions (answered: the docs accept
// Workers Scripts, KV and R2 permissions for it).
import type { RunPlace } from '../config/run-place.ts';
import type { CloudflareAccount } from './account.ts';
import { CloudflareCallError } from './call-error.ts';
import { listed, type PermissionKind, permissionOf, type TokenPermission } from './permissions.ts';

export type CredentialProblem =
  /** Cloudflare does not take the token: `refused` (unknown, revoked, malformed), or its status. */
  | { kind: 'invalid'; status: 'refused' | 'expired' | 'disabled' }
  | { kind: 'account' }
  | { kind: 'permissions'; missing: TokenPermission[] };

/** One listing of a kind of resource the run will touch; it throws when Cloudflare refuses it. */
export interface CredentialProbe {
  kind: PermissionKind;
  list: () => Promise<unknown>;
}

type TokenStatus = 'active' | 'expired' | 'disabled' | 'refused' | 'unknown';

/** Cloudflare said no to these credentials (rather than failing to answer). */
function isRefusal(error: unknown, statuses: readonly number[]): boolean {
  return (
    error instanceof CloudflareCallError &&
    error.reason === 'api' &&
    error.status !== undefined &&
    statuses.includes(error.status)
  );
}

/** A verify route's answer; 400 too, the answer to a malformed Authorization header. */
async function statusFrom(verify: () => Promise<string>): Promise<TokenStatus> {
  try {
    const status = await verify();
    return status === 'active' || status === 'expired' || status === 'disabled' ? status : 'unknown';
  } catch (error) {
    return isRefusal(error, [400, 401, 403]) ? 'refused' : 'unknown';
  }
}

async function tokenStatus(account: CloudflareAccount): Promise<TokenStatus> {
  const asUserToken = await statusFrom(() => account.verifyUserToken());
  return asUserToken === 'refused' ? statusFrom(() => account.verifyAccountToken()) : asUserToken;
}

/** Whether Cloudflare lets the token read the account; an unanswered call gives it the benefit of the doubt. */
async function accountReadable(account: CloudflareAccount): Promise<boolean> {
  try {
    await account.readAccount();
    return true;
  } catch (error) {
    return !isRefusal(error, [401, 403, 404]);
  }
}

/**
 * What is wrong with the credentials, or null when nothing is (or nothing could be told: a check that
 * got no answer lets the run go on, and the erase reports whatever keeps failing, slot by slot).
 */
export async function checkCredentials(
  account: CloudflareAccount,
  probes: readonly CredentialProbe[],
): Promise<CredentialProblem | null> {
  const status = await tokenStatus(account);
  if (status === 'refused' || status === 'expired' || status === 'disabled')
    return { kind: 'invalid', status };
  const refused: PermissionKind[] = [];
  for (const probe of probes) {
    try {
      await probe.list();
    } catch (error) {
      if (isRefusal(error, [401, 403])) refused.push(probe.kind);
    }
  }
  if (refused.length === 0) return null;
  if (refused.length === probes.length && !(await accountReadable(account))) return { kind: 'account' };
  return { kind: 'permissions', missing: refused.map(permissionOf) };
}

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
      const lacks = listed(
        problem.missing.map((permission) => `${permission.dashboard} for ${permission.resources}`),
      );
      const add = listed(problem.missing.map((permission) => permission.dashboard));
      return `The Cloudflare API token lacks ${lacks}, so ${consequence}. Fix: edit the token (dashboard → My Profile → API Tokens) and add ${add} on account ${accountId}; then ${place.rerun}.`;
    }
  }
}

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
import { BaseAccounts } from 'cloudflare/resources/accounts/accounts';
import { BaseTokens as BaseAccountTokens } from 'cloudflare/resources/accounts/tokens/tokens';
import { BaseTokens as BaseUserTokens } from 'cloudflare/resources/user/tokens/tokens';
import * as z from '../zod.ts';
import { CloudflareCallError } from './call-error.ts';
import type { CloudflareApi } from './client.ts';

const RESOURCES = [BaseUserTokens, BaseAccounts, BaseAccountTokens] as const;
const tokenStatusSchema = z.looseObject({ status: z.string() });

/** The status of the token as a user's token: `active`, `disabled`, `expired`. A token of an account is refused here. */
async function verifyUserToken(api: CloudflareApi): Promise<string> {
  const { result } = await api.send(
    'tokens.verify',
    (options) => api.sdk(RESOURCES).user.tokens.verify(options).asResponse(),
    tokenStatusSchema,
  );
  return result.status;
}

/** The status of the token as a token owned by this account. */
async function verifyAccountToken(api: CloudflareApi): Promise<string> {
  const { result } = await api.send(
    'tokens.verify',
    (options) =>
      api.sdk(RESOURCES).accounts.tokens.verify({ account_id: api.accountId }, options).asResponse(),
    tokenStatusSchema,
  );
  return result.status;
}

/** Reads the account itself: refused when the token may not use the account at all. */
async function readAccount(api: CloudflareApi): Promise<void> {
  await api.send(
    'accounts.get',
    (options) => api.sdk(RESOURCES).accounts.get({ account_id: api.accountId }, options).asResponse(),
    z.looseObject({ id: z.string() }),
  );
}

export type CredentialProblem<Kind extends string = string> =
  /** Cloudflare does not take the token: `refused` (unknown, revoked, malformed), or its status. */
  | { kind: 'invalid'; status: 'refused' | 'expired' | 'disabled' }
  | { kind: 'account' }
  /** The listings of these kinds of resource were refused: the token lacks their permissions. */
  | { kind: 'permissions'; refused: Kind[] };

/** One listing of a kind of resource the run will touch; it throws when Cloudflare refuses it. */
export interface CredentialProbe<Kind extends string = string> {
  kind: Kind;
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

async function tokenStatus(api: CloudflareApi): Promise<TokenStatus> {
  const asUserToken = await statusFrom(() => verifyUserToken(api));
  return asUserToken === 'refused' ? statusFrom(() => verifyAccountToken(api)) : asUserToken;
}

/** Whether Cloudflare lets the token read the account; an unanswered call gives it the benefit of the doubt. */
async function accountReadable(api: CloudflareApi): Promise<boolean> {
  try {
    await readAccount(api);
    return true;
  } catch (error) {
    return !isRefusal(error, [401, 403, 404]);
  }
}

/**
 * What is wrong with the credentials, or null when nothing is (or nothing could be told: a check that
 * got no answer lets the run go on, and the erase reports whatever keeps failing, slot by slot).
 */
export async function checkCredentials<Kind extends string>(
  api: CloudflareApi,
  probes: readonly CredentialProbe<Kind>[],
): Promise<CredentialProblem<Kind> | null> {
  const status = await tokenStatus(api);
  if (status === 'refused' || status === 'expired' || status === 'disabled')
    return { kind: 'invalid', status };
  const refused: Kind[] = [];
  for (const probe of probes) {
    try {
      await probe.list();
    } catch (error) {
      if (isRefusal(error, [401, 403])) refused.push(probe.kind);
    }
  }
  if (refused.length === 0) return null;
  if (refused.length === probes.length && !(await accountReadable(api))) return { kind: 'account' };
  return { kind: 'permissions', refused };
}

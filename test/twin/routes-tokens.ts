// The token's own routes and the account itself: what preview-gc's credential check calls once a run.
// `GET /user/tokens/verify` and `GET /accounts/:account/tokens/verify` answer the token's id and status
// (the SDK's TokenVerifyResponse: active, disabled or expired); a token they do not know is refused
// with 401 code 1000 (the API docs' example error code; the exact answer is a stand-in). A user's
// token is known to the first route only, an account-owned token to the second only.
// `GET /accounts/:account` answers the account (the SDK's Account) to a token with a permission it
// accepts (see permissions.ts).
import { createHash } from 'node:crypto';
import type { Account } from 'cloudflare/resources/accounts/accounts';
import type { TokenVerifyResponse } from 'cloudflare/resources/user/tokens/tokens';
import type { HttpHandler } from 'msw';
import type { AccountCore, TwinToken } from './account-core.ts';
import { fail, ok } from './envelope.ts';
import { presentedToken, type RouteContext, route } from './gate.ts';

const INVALID_TOKEN = 'Invalid API Token';

/** A token id derived from the token, so the answer never carries the token itself. */
function tokenId(ctx: RouteContext): string {
  const header = ctx.request.headers.get('authorization') ?? '';
  return createHash('sha256').update(header).digest('hex').slice(0, 32);
}

function verified(ctx: RouteContext, owner: TwinToken['owner']): Response {
  const token = presentedToken(ctx);
  const accountParam = ctx.params.account;
  const mine = accountParam === undefined || accountParam === (token?.accountId ?? ctx.account.accountId);
  if (token === undefined || token.owner !== owner || !mine) return fail(401, 1000, INVALID_TOKEN);
  return ok<TokenVerifyResponse>({ id: tokenId(ctx), status: token.status });
}

export function tokenRoutes(account: AccountCore): HttpHandler[] {
  return [
    route(account, 'GET', '/user/tokens/verify', (ctx) => verified(ctx, 'user'), { verifiesToken: true }),
    route(account, 'GET', '/accounts/:account/tokens/verify', (ctx) => verified(ctx, 'account'), {
      verifiesToken: true,
    }),
    route(account, 'GET', '/accounts/:account', () =>
      ok<Account>({
        id: account.accountId,
        name: 'Twin account',
        type: 'standard',
        created_on: '2026-01-01T00:00:00Z',
        settings: { enforce_twofactor: false },
      }),
    ),
  ];
}

// Who is calling: one of the Worker's tokens (each a role: SEMAPHORE_TOKEN admin, SEMAPHORE_GC_TOKEN
// gc, SEMAPHORE_READ_TOKEN read), or a deploy job's OIDC token (oidc.ts). The scheme is matched
// case-insensitively; a token is compared in constant time, against every configured token alike,
// by comparing SHA-256 digests (equal length whatever the input) with timingSafeEqual.
import { BEARER_TOKEN } from '../protocol.ts';
import { looksLikeJwt, type OidcEnv, OidcRefusal, oidcConfig, verifyPullRequestToken } from './oidc.ts';
import type { Caller } from './roles.ts';

export interface AuthEnv extends OidcEnv {
  SEMAPHORE_TOKEN?: string;
  SEMAPHORE_GC_TOKEN?: string;
  SEMAPHORE_READ_TOKEN?: string;
}

/** Each token secret and the role it signs in as; SEMAPHORE_TOKEN is the one every semaphore has. */
export const TOKEN_SECRETS = [
  ['SEMAPHORE_TOKEN', 'admin'],
  ['SEMAPHORE_GC_TOKEN', 'gc'],
  ['SEMAPHORE_READ_TOKEN', 'read'],
] as const;

type TokenSecret = (typeof TOKEN_SECRETS)[number][0];

/** Who the caller is, or the answer that refuses them (401), or says the Worker is set up wrong (500). */
export type Identified = { caller: Caller } | { status: 401 | 500; message: string };

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

async function digest(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(value));
}

/** The tokens the Worker has, by secret; unset and empty ones left out. */
export function configuredTokens(env: AuthEnv): [TokenSecret, string][] {
  return TOKEN_SECRETS.flatMap(([secret]): [TokenSecret, string][] => {
    const value = env[secret];
    return value === undefined || value === '' ? [] : [[secret, value]];
  });
}

/**
 * Why the server's own token can never match any request, if it cannot: a bearer token travels as
 * printable ASCII without spaces, so a secret set with a trailing newline (from `echo`, or a file)
 * or with other characters would refuse every caller with no hint. Says what is wrong, never the token.
 */
export function serverTokenProblem(
  token: string,
  secret: TokenSecret = 'SEMAPHORE_TOKEN',
): string | undefined {
  if (BEARER_TOKEN.test(token)) return undefined;
  if (BEARER_TOKEN.test(token.trim())) {
    return `the server's ${secret} has leading or trailing whitespace (a newline, often), so no request can match it; set it again without it (docs/semaphore.md)`;
  }
  return `the server's ${secret} contains whitespace, control characters or non-ASCII characters, which an Authorization header cannot carry, so no request can match it; set it again (docs/semaphore.md)`;
}

/** What is wrong with the Worker's tokens as a whole, so that no call can be trusted; undefined when nothing. */
function setupProblem(tokens: readonly [TokenSecret, string][]): Identified | undefined {
  if (!tokens.some(([secret]) => secret === 'SEMAPHORE_TOKEN'))
    return {
      status: 500,
      message: 'the semaphore has no SEMAPHORE_TOKEN; run `wrangler secret put SEMAPHORE_TOKEN`',
    };
  for (const [secret, value] of tokens) {
    const problem = serverTokenProblem(value, secret);
    if (problem !== undefined) return { status: 401, message: problem };
  }
  for (const [index, [secret, value]] of tokens.entries()) {
    const same = tokens.slice(0, index).find(([, other]) => other === value);
    // Two roles under one token would give whoever holds it the higher one.
    if (same !== undefined)
      return {
        status: 500,
        message: `the semaphore's ${secret} is the same as its ${same[0]}: give each role a token of its own (docs/semaphore.md)`,
      };
  }
  return undefined;
}

const WRONG_TOKEN =
  "the token is missing or wrong: send the header Authorization: Bearer <token>, with a token the Worker has as a secret (SEMAPHORE_TOKEN, SEMAPHORE_GC_TOKEN or SEMAPHORE_READ_TOKEN), or a deploy job's OIDC token";

export async function identify(authorization: string | null, env: AuthEnv): Promise<Identified> {
  const tokens = configuredTokens(env);
  const problem = setupProblem(tokens);
  if (problem !== undefined) return problem;
  const presented = authorization === null ? undefined : BEARER.exec(authorization)?.[1];
  // Still hash something when no token was presented, so a missing header costs the same as a wrong one.
  const actual = await digest(presented ?? '');
  const matches = await Promise.all(
    tokens.map(async ([secret, value]) => ({
      secret,
      equal: crypto.subtle.timingSafeEqual(await digest(value), actual),
    })),
  );
  const match = presented === undefined ? undefined : matches.find((candidate) => candidate.equal);
  const role = TOKEN_SECRETS.find(([secret]) => secret === match?.secret)?.[1];
  if (role !== undefined) return { caller: { role } };
  if (presented === undefined || !looksLikeJwt(presented)) return { status: 401, message: WRONG_TOKEN };
  const oidc = oidcConfig(env);
  if (oidc === undefined)
    return {
      status: 401,
      message:
        'the token looks like an OIDC token, but this semaphore takes none: set SEMAPHORE_OIDC_REPOSITORIES on the Worker to the repositories whose deploy jobs may sign in (docs/semaphore.md)',
    };
  if ('problem' in oidc) return { status: 500, message: oidc.problem };
  try {
    const identity = await verifyPullRequestToken(presented, oidc);
    return { caller: { role: 'pull-request', ...identity } };
  } catch (error) {
    if (error instanceof OidcRefusal) return { status: error.status, message: error.message };
    throw error;
  }
}

// Bearer token check. The scheme is matched case-insensitively; the token is compared in constant
// time by comparing SHA-256 digests (equal length whatever the input) with timingSafeEqual.
import { BEARER_TOKEN } from '../protocol.ts';

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

async function digest(value: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(value));
}

export async function isAuthorized(authorization: string | null, token: string): Promise<boolean> {
  const presented = authorization === null ? undefined : BEARER.exec(authorization)?.[1];
  // Still hash something when no token was presented, so a missing header costs the same as a wrong one.
  const [expected, actual] = await Promise.all([digest(token), digest(presented ?? '')]);
  return crypto.subtle.timingSafeEqual(expected, actual) && presented !== undefined;
}

/**
 * Why the server's own token can never match any request, if it cannot: a bearer token travels as
 * printable ASCII without spaces, so a secret set with a trailing newline (from `echo`, or a file)
 * or with other characters would refuse every caller with no hint. Says what is wrong, never the token.
 */
export function serverTokenProblem(token: string): string | undefined {
  if (BEARER_TOKEN.test(token)) return undefined;
  if (BEARER_TOKEN.test(token.trim())) {
    return "the server's SEMAPHORE_TOKEN has leading or trailing whitespace (a newline, often), so no request can match it; set it again without it (docs/semaphore.md)";
  }
  return "the server's SEMAPHORE_TOKEN contains whitespace, control characters or non-ASCII characters, which an Authorization header cannot carry, so no request can match it; set it again (docs/semaphore.md)";
}

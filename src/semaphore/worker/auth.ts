// Bearer token check. The scheme is matched case-insensitively; the token is compared in constant
// time by comparing SHA-256 digests (equal length whatever the input) with timingSafeEqual.
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

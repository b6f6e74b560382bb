// Deploy jobs sign in with the OIDC token their CI issues (GitHub Actions: `core.getIDToken`), not a
// shared secret. The signature and the standard claims are checked by `jose` (a JOSE library is not
// something to write by hand): RS256 only, keys from the issuer's own discovery document
// (`/.well-known/openid-configuration` → `jwks_uri`, both cached), the issuer, the audience, `exp`
// and `nbf`. Then the token must be a pull_request job's of an allowed repository, and its holder is
// that pull request's, `<owner>/<repo>/pr-<n>` from the ref `refs/pull/<n>/merge`, and its tenant the
// repository's ids (`repository_id`, `repository_owner_id`). Every refusal says which check failed.
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { pullRequestHolder, REPOSITORY_NAME } from '../holders.ts';

export const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';
const CLOCK_TOLERANCE_S = 60;
export const DEFAULT_AUDIENCE = 'preview-gc';

export interface OidcEnv {
  SEMAPHORE_OIDC_ISSUER?: string;
  SEMAPHORE_OIDC_AUDIENCE?: string;
  /** Comma-separated `owner/repo`: the repositories whose pull requests may sign in. Unset: OIDC is off. */
  SEMAPHORE_OIDC_REPOSITORIES?: string;
}

export interface OidcConfig {
  issuer: string;
  audience: string;
  /** Lower case: GitHub's names are case-insensitive. */
  repositories: ReadonlySet<string>;
}

/**
 * A pull request's deploy job: its holder names the repository (`acme/shop/pr-6`), and its tenant is
 * the repository's and owner's ids, which a repository deleted and created again under the same name
 * (or transferred) does not keep: a lease records its tenant, and only the same tenant may touch it.
 */
export type PullRequestIdentity = { holder: string; repository: string; tenant: string };

/** A token the semaphore refuses (401), or a semaphore that cannot check tokens now (500). */
export class OidcRefusal extends Error {
  readonly status: 401 | 500;
  constructor(status: 401 | 500, message: string) {
    super(message);
    this.status = status;
  }
}

const PULL_REQUEST_REF = /^refs\/pull\/([1-9][0-9]{0,9})\/merge$/;
/** GitHub's ids are decimal numbers, sent as strings in its tokens. */
const GITHUB_ID = /^[1-9][0-9]{0,19}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A compact JWS: three base64url parts. Any other bearer is a plain token. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/** The OIDC settings, undefined when OIDC is off, or what is wrong with them (for a 500). */
export function oidcConfig(env: OidcEnv): OidcConfig | undefined | { problem: string } {
  const listed = (env.SEMAPHORE_OIDC_REPOSITORIES ?? '').trim();
  if (listed === '') return undefined;
  const repositories = listed.split(',').map((name) => name.trim());
  if (repositories.some((name) => !REPOSITORY_NAME.test(name)))
    return {
      problem:
        'SEMAPHORE_OIDC_REPOSITORIES must be a comma-separated list of owner/repo (e.g. acme/shop,acme/blog); fix the var',
    };
  const issuer = (env.SEMAPHORE_OIDC_ISSUER ?? '').trim() || GITHUB_ISSUER;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return { problem: `SEMAPHORE_OIDC_ISSUER is not a URL; set it to the issuer, e.g. ${GITHUB_ISSUER}` };
  }
  // Plain http only to a loopback issuer (tests): keys from anywhere else travel over TLS.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)))
    return { problem: 'SEMAPHORE_OIDC_ISSUER must be an https URL' };
  return {
    issuer: issuer.replace(/\/+$/, ''),
    audience: (env.SEMAPHORE_OIDC_AUDIENCE ?? '').trim() || DEFAULT_AUDIENCE,
    repositories: new Set(repositories.map((name) => name.toLowerCase())),
  };
}

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/** How long a discovery document is kept; the key set has its own cache (jose: 10 minutes, and a refetch for an unknown kid). */
const DISCOVERY_MAX_AGE_MS = 60 * 60_000;
const discovered = new Map<string, { keys: KeySet; at: number }>();

/** The issuer's key set, from its discovery document (cached per isolate). */
async function keySetOf(issuer: string): Promise<KeySet> {
  const cached = discovered.get(issuer);
  if (cached !== undefined && Date.now() - cached.at < DISCOVERY_MAX_AGE_MS) return cached.keys;
  const unreachable = (why: string) =>
    new OidcRefusal(
      500,
      `the semaphore could not read the OIDC issuer's keys (${why}); retry, and check SEMAPHORE_OIDC_ISSUER`,
    );
  let document: unknown;
  try {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
      headers: { accept: 'application/json' },
      // Workers know no 'error': a redirect is an answer that is not 200, and refused as such.
      redirect: 'manual',
      signal: AbortSignal.timeout(5_000),
    });
    if (!response.ok) throw unreachable(`its discovery document answered HTTP ${response.status}`);
    document = await response.json();
  } catch (error) {
    throw error instanceof OidcRefusal ? error : unreachable('its discovery document could not be fetched');
  }
  const fields = (typeof document === 'object' && document !== null ? document : {}) as Record<
    string,
    unknown
  >;
  if (fields.issuer !== issuer) throw unreachable('its discovery document names another issuer');
  let jwksUri: URL;
  try {
    jwksUri = new URL(String(fields.jwks_uri));
  } catch {
    throw unreachable('its discovery document has no jwks_uri');
  }
  // The keys come from the issuer's own host, nowhere a discovery document could point elsewhere.
  if (jwksUri.origin !== new URL(issuer).origin) throw unreachable('its jwks_uri is on another host');
  const keys = createRemoteJWKSet(jwksUri);
  discovered.set(issuer, { keys, at: Date.now() });
  return keys;
}

/** What a refused token was refused for, in words a deploy job's log can act on. */
function describeRefusal(
  error: unknown,
  config: OidcConfig,
  header: { alg?: unknown; kid?: unknown },
): OidcRefusal {
  const refused = (why: string) => new OidcRefusal(401, `the OIDC token was refused: ${why}`);
  if (error instanceof OidcRefusal) return error;
  if (error instanceof errors.JWTExpired)
    return refused('it expired (exp); the action fetches a fresh one for each run, so retry the job');
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
        return refused('it is not valid yet (nbf); check the clock of the machine that issued it');
      case 'iss':
        return refused(`it was issued by another issuer than ${config.issuer} (SEMAPHORE_OIDC_ISSUER)`);
      case 'aud':
        return refused(
          `it is for another audience than '${config.audience}' (the Worker's SEMAPHORE_OIDC_AUDIENCE; the action's semaphore-audience input must be the same)`,
        );
      default:
        return refused(
          `its claim ${JSON.stringify(String(error.claim)).slice(0, 40)} is not valid (${error.reason})`,
        );
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return refused(
      `it is signed with ${JSON.stringify(String(header.alg)).slice(0, 20)}; only RS256 is accepted`,
    );
  if (error instanceof errors.JWKSNoMatchingKey)
    return refused(
      `it is signed with a key (kid ${JSON.stringify(String(header.kid)).slice(0, 80)}) the issuer does not publish`,
    );
  if (error instanceof errors.JWSSignatureVerificationFailed) return refused('its signature does not verify');
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid)
    return new OidcRefusal(500, "the semaphore could not read the OIDC issuer's keys; retry");
  return refused('it is not a well-formed, signed JWT');
}

/** The header of a compact JWS, for messages only (nothing in it is trusted). */
function headerOf(token: string): { alg?: unknown; kid?: unknown } {
  try {
    const part = (token.split('.')[0] ?? '').replaceAll('-', '+').replaceAll('_', '/');
    return JSON.parse(atob(part)) as { alg?: unknown; kid?: unknown };
  } catch {
    return {};
  }
}

/** The pull request a verified token is for, or why it names none this semaphore accepts. */
function pullRequestOf(payload: JWTPayload, config: OidcConfig): PullRequestIdentity {
  const refused = (why: string) => new OidcRefusal(401, `the OIDC token was refused: ${why}`);
  const {
    repository,
    repository_id: repositoryId,
    repository_owner_id: ownerId,
    event_name: event,
    ref,
  } = payload as Record<string, unknown>;
  if (
    typeof repository !== 'string' ||
    !REPOSITORY_NAME.test(repository) ||
    !config.repositories.has(repository.toLowerCase())
  )
    throw refused('it is for a repository this semaphore does not serve (SEMAPHORE_OIDC_REPOSITORIES)');
  const number = typeof ref === 'string' ? PULL_REQUEST_REF.exec(ref)?.[1] : undefined;
  if (event !== 'pull_request' || number === undefined)
    throw refused("it is not a pull_request job's (event_name pull_request, ref refs/pull/<n>/merge)");
  if (
    typeof repositoryId !== 'string' ||
    !GITHUB_ID.test(repositoryId) ||
    typeof ownerId !== 'string' ||
    !GITHUB_ID.test(ownerId)
  )
    throw refused('it has no repository_id and repository_owner_id claims, which name the tenant');
  // The name as the token spells it, which is the job's GITHUB_REPOSITORY too (the action builds the same holder).
  return {
    holder: pullRequestHolder(Number(number), repository),
    repository,
    tenant: `github:${repositoryId}:${ownerId}`,
  };
}

/** Verifies a deploy job's OIDC token; throws an OidcRefusal saying why it is refused. */
export async function verifyPullRequestToken(
  token: string,
  config: OidcConfig,
): Promise<PullRequestIdentity> {
  const header = headerOf(token);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, await keySetOf(config.issuer), {
      issuer: config.issuer,
      audience: config.audience,
      algorithms: ['RS256'],
      requiredClaims: ['exp', 'iat'],
      // The issuer's clock and the Worker's may differ a little; a token lives minutes anyway.
      clockTolerance: CLOCK_TOLERANCE_S,
    }));
  } catch (error) {
    throw describeRefusal(error, config, header);
  }
  return pullRequestOf(payload, config);
}

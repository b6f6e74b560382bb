// A loopback OIDC issuer with keys of its own, playing GitHub Actions' token service for the tests:
// the discovery document and key set the semaphore reads (/.well-known/openid-configuration →
// jwks_uri), and the endpoint the action's core.getIDToken asks for a job's token
// (ACTIONS_ID_TOKEN_REQUEST_URL, with ACTIONS_ID_TOKEN_REQUEST_TOKEN as its bearer). Tokens carry the
// claims GitHub's do for a pull_request job (repository, event_name, ref refs/pull/<n>/merge), signed
// RS256; a test can sign any other claims or header to see them refused. Listens on 127.0.0.1 only.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

export interface PullRequestClaims {
  repository: string;
  pullRequest: number;
  /**
   * GitHub's ids of the repository and its owner (`repository_id`, `repository_owner_id`): by default
   * a number derived from the name, so one name has one id unless a test re-creates the repository.
   */
  repositoryId?: string;
  repositoryOwnerId?: string;
}

/** A stable id for a name, as GitHub's numeric ids look (decimal digits). */
function idOf(name: string): string {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) % 1_000_000_007;
  return String(hash);
}

export interface TokenOptions {
  /** Claims over the pull_request job's (e.g. another `aud`, `exp` in the past, `event_name: push`). */
  claims?: JWTPayload & Record<string, unknown>;
  /** Another key id than the published one, or another algorithm (then a key of its own signs). */
  kid?: string;
  alg?: 'RS256' | 'HS256' | 'PS256';
}

export interface OidcIssuer {
  /** The issuer (`iss`), `http://127.0.0.1:<port>`. */
  url: string;
  /** What the runner puts in ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN for a job of `job`'s pull request. */
  actionsEnv(job: PullRequestClaims): Record<string, string>;
  /** A token of a pull_request job, with `options` changing what a test wants refused. */
  token(job: PullRequestClaims, audience: string, options?: TokenOptions): Promise<string>;
  /** Requests the issuer served, by path (the discovery document, the key set, the job's token). */
  requests: string[];
  /** Every token a job was handed, in order. */
  issued: string[];
  /** The next `count` job tokens are handed out expired (as if the job waited past their life). */
  expireNext(count: number): void;
  close(): Promise<void>;
}

const KID = 'test-key-1';
const REQUEST_TOKEN = 'actions-id-token-request-7c1e';

export async function startOidcIssuer(): Promise<OidcIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const other = await generateKeyPair('PS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const requests: string[] = [];
  const issued: string[] = [];
  let expired = 0;
  let url = '';
  const jobs = new Map<string, PullRequestClaims>();

  const token = async (job: PullRequestClaims, audience: string, options: TokenOptions = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const alg = options.alg ?? 'RS256';
    const claims: JWTPayload & Record<string, unknown> = {
      iss: url,
      aud: audience,
      sub: `repo:${job.repository}:pull_request`,
      iat: now,
      nbf: now - 5,
      exp: now + 300,
      repository: job.repository,
      repository_id: job.repositoryId ?? idOf(job.repository),
      repository_owner: job.repository.split('/')[0],
      repository_owner_id: job.repositoryOwnerId ?? idOf(job.repository.split('/')[0] ?? ''),
      event_name: 'pull_request',
      ref: `refs/pull/${job.pullRequest}/merge`,
      ...options.claims,
    };
    const key =
      alg === 'HS256'
        ? new TextEncoder().encode('a shared secret, not the issuer key')
        : alg === 'PS256'
          ? other.privateKey
          : privateKey;
    return new SignJWT(claims).setProtectedHeader({ alg, kid: options.kid ?? KID, typ: 'JWT' }).sign(key);
  };

  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', url).pathname;
    requests.push(path);
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (path === '/.well-known/openid-configuration')
      return send(200, {
        issuer: url,
        jwks_uri: `${url}/.well-known/jwks`,
        id_token_signing_alg_values_supported: ['RS256'],
      });
    if (path === '/.well-known/jwks') return send(200, { keys: [jwk] });
    if (path === '/actions/token') {
      const job = jobs.get(new URL(request.url ?? '/', url).searchParams.get('job') ?? '');
      if (request.headers.authorization !== `Bearer ${REQUEST_TOKEN}` || job === undefined)
        return send(401, { message: 'bad request token' });
      const audience =
        new URL(request.url ?? '/', url).searchParams.get('audience') ?? 'https://github.com/acme';
      const stale = expired > 0;
      if (stale) expired -= 1;
      const past = Math.floor(Date.now() / 1000) - 600;
      const claims = stale ? { claims: { iat: past, nbf: past, exp: past + 300 } } : {};
      token(job, audience, claims).then((value) => {
        issued.push(value);
        send(200, { value });
      });
      return;
    }
    send(404, { message: 'no such route' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    issued,
    expireNext: (count) => {
      expired = count;
    },
    token,
    actionsEnv(job) {
      const id = `${job.repository}#${job.pullRequest}`;
      jobs.set(id, job);
      return {
        ACTIONS_ID_TOKEN_REQUEST_URL: `${url}/actions/token?job=${encodeURIComponent(id)}`,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN,
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

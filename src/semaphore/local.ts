// DEV ONLY, never bundled (test/scripts/bundle-contents.unit.test.ts checks dist/): the semaphore
// Worker in a local workerd, through wrangler's programmatic API, for tests, the benchmark and
// `npm run semaphore`. Listens on 127.0.0.1 only and never reaches the network.
import { randomBytes } from 'node:crypto';
import { enableCompileCache } from 'node:module';
import { fileURLToPath } from 'node:url';
import { TEST_CLOCK_BINDING, TEST_CLOCK_ENABLED } from './worker/test-clock.ts';

/** The operator's settings of what a pull request may lease, read from the environment as the Worker reads its vars. */
const TENANCY_SETTINGS = [
  'SEMAPHORE_POOL_REPOSITORIES',
  'SEMAPHORE_PR_LEASE_MAX_MINUTES',
  'SEMAPHORE_PR_LEASES_PER_POOL',
] as const;
type TenancySetting = (typeof TENANCY_SETTINGS)[number];

export interface LocalSemaphoreOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** SEMAPHORE_TOKEN, the admin role's. Default: a random token. */
  token?: string;
  /** SEMAPHORE_GC_TOKEN (the gc role's) and SEMAPHORE_READ_TOKEN (read-only); unset: no such role. */
  gcToken?: string;
  readToken?: string;
  /**
   * OIDC sign-in for deploy jobs (SEMAPHORE_OIDC_ISSUER, _AUDIENCE, _REPOSITORIES). Tests point the
   * issuer at a loopback issuer of their own; the Worker reaches it like any address (workerd's
   * network in wrangler's dev server allows private and loopback addresses).
   */
  oidc?: { issuer?: string; audience?: string; repositories: readonly string[] };
  /**
   * What a pull request may lease (worker/tenancy.ts), as the Worker's vars of the same names:
   * SEMAPHORE_POOL_REPOSITORIES, SEMAPHORE_PR_LEASE_MAX_MINUTES, SEMAPHORE_PR_LEASES_PER_POOL.
   */
  tenancy?: Partial<Record<TenancySetting, string>>;
  /** A directory that keeps the state across restarts; default: in memory only. */
  persistDir?: string;
  /**
   * Tests only: adds `POST /api/test-clock/advance {type, advanceMs}`, which moves one pool's server
   * clock forward so leases expire without waiting (src/semaphore/worker/test-clock.ts).
   */
  testClock?: boolean;
  /** `owner/name`, the Worker's REPOSITORY var: the web console links `pr-<n>` holders to it. */
  repository?: string;
}

export interface LocalSemaphore {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  /** The admin token (SEMAPHORE_TOKEN). */
  token: string;
  stop(): Promise<void>;
}

const secret = (value: string | undefined) =>
  value === undefined ? undefined : ({ type: 'secret_text', value } as const);
const plain = (value: string | undefined) =>
  value === undefined ? undefined : ({ type: 'plain_text', value } as const);

/** The Worker's role tokens and OIDC settings as bindings; an unset one is left out. */
function roleBindings(options: LocalSemaphoreOptions, token: string) {
  const bindings = {
    SEMAPHORE_TOKEN: secret(token),
    SEMAPHORE_GC_TOKEN: secret(options.gcToken),
    SEMAPHORE_READ_TOKEN: secret(options.readToken),
    SEMAPHORE_OIDC_ISSUER: plain(options.oidc?.issuer),
    SEMAPHORE_OIDC_AUDIENCE: plain(options.oidc?.audience),
    SEMAPHORE_OIDC_REPOSITORIES: plain(options.oidc?.repositories.join(',')),
    ...Object.fromEntries(TENANCY_SETTINGS.map((name) => [name, plain(options.tenancy?.[name])])),
  };
  return Object.fromEntries(
    Object.entries(bindings).filter(([, binding]) => binding !== undefined),
  ) as Record<string, NonNullable<(typeof bindings)[keyof typeof bindings]>>;
}

const WORKER_CONFIG = fileURLToPath(new URL('./worker/wrangler.jsonc', import.meta.url));

/**
 * The roles' tokens and the OIDC settings from the environment, under the Worker's own names
 * (SEMAPHORE_GC_TOKEN, SEMAPHORE_READ_TOKEN, SEMAPHORE_OIDC_ISSUER, _AUDIENCE, _REPOSITORIES), for
 * `npm run semaphore` and `npm run stack`, and what a pull request may lease (the tenancy settings).
 * Unset or empty ones are left out.
 */
export function roleOptionsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Pick<LocalSemaphoreOptions, 'gcToken' | 'readToken' | 'oidc' | 'tenancy'> {
  const value = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const repositories = value('SEMAPHORE_OIDC_REPOSITORIES');
  const issuer = value('SEMAPHORE_OIDC_ISSUER');
  const audience = value('SEMAPHORE_OIDC_AUDIENCE');
  const gcToken = value('SEMAPHORE_GC_TOKEN');
  const readToken = value('SEMAPHORE_READ_TOKEN');
  const tenancy = TENANCY_SETTINGS.flatMap((name) => {
    const setting = value(name);
    return setting === undefined ? [] : [[name, setting] as const];
  });
  return {
    ...(tenancy.length === 0 ? {} : { tenancy: Object.fromEntries(tenancy) }),
    ...(gcToken === undefined ? {} : { gcToken }),
    ...(readToken === undefined ? {} : { readToken }),
    ...(repositories === undefined
      ? {}
      : {
          oidc: {
            repositories: repositories.split(','),
            ...(issuer === undefined ? {} : { issuer }),
            ...(audience === undefined ? {} : { audience }),
          },
        }),
  };
}

export async function startLocalSemaphore(options: LocalSemaphoreOptions = {}): Promise<LocalSemaphore> {
  // workerd would otherwise download the `request.cf` data from the internet on start.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
  process.env.WRANGLER_SEND_METRICS = 'false';
  const token = options.token ?? randomBytes(24).toString('base64url');
  // Wrangler is one 15 MB module: Node's compile cache saves a good part of loading it on every start
  // after the first. Imported here so that loading this module alone does not load wrangler.
  enableCompileCache();
  const { unstable_startWorker } = await import('wrangler');
  const worker = await unstable_startWorker({
    config: WORKER_CONFIG,
    bindings: {
      ...roleBindings(options, token),
      ...(options.testClock === true
        ? { [TEST_CLOCK_BINDING]: { type: 'plain_text', value: TEST_CLOCK_ENABLED } as const }
        : {}),
      ...(options.repository === undefined
        ? {}
        : { REPOSITORY: { type: 'plain_text', value: options.repository } as const }),
    },
    dev: {
      server: { hostname: '127.0.0.1', port: options.port ?? 0 },
      inspector: false,
      persist: options.persistDir ?? false,
      watch: false,
      logLevel: 'warn',
    },
  });
  // Wrangler reports a failed start (a busy port, a build error) as an event, and `worker.url` then
  // never resolves: without this race a failed start would hang instead of failing.
  const events = worker.raw;
  let onFailure: (event: unknown) => void = () => {};
  const failed = new Promise<never>((_resolve, reject) => {
    onFailure = (event) => reject(new Error(describeStartFailure(event)));
    events.on('error', onFailure);
    events.on('buildFailed', onFailure);
  });
  try {
    const url = (await Promise.race([worker.url, failed])).origin;
    // `worker.url` resolves when wrangler's proxy listens, while the Worker behind it may still be
    // starting (the proxy holds requests meanwhile). Ready means it answers.
    const health = await Promise.race([fetch(`${url}/api/health`), failed]);
    await health.body?.cancel();
    if (!health.ok)
      throw new Error(`the local semaphore answered GET /api/health with HTTP ${health.status}`);
    return { url, token, stop: () => worker.dispose() };
  } catch (error) {
    // Not worker.dispose(): it first waits for the proxy to be ready, which a failed start never is.
    // Teardown rethrows the start failure itself; `error` already says what went wrong.
    await events.teardown().catch(() => undefined);
    throw error;
  } finally {
    events.off('error', onFailure);
    events.off('buildFailed', onFailure);
  }
}

function describeStartFailure(event: unknown): string {
  if (event instanceof Error) return event.message;
  const { reason, cause } = (event ?? {}) as { reason?: unknown; cause?: unknown };
  const detail = cause instanceof Error ? cause.message : undefined;
  return (
    [reason, detail].filter((part) => typeof part === 'string' && part !== '').join(': ') || String(event)
  );
}

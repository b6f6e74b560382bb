// What a pull request's deploy job may lease, beyond its role: the pools its repository may lease in,
// how long a lease may last, and how many leases one holder may have in a pool. Operator settings, read
// the same way by the deployed Worker (wrangler vars), `npm run semaphore` and `npm run stack` (their
// environment). Without them a one-repository setup behaves as before, bounded by the defaults.
import { REPOSITORY_NAME } from '../holders.ts';
import type { LeaseOwner, TenantLimits } from './pool.ts';
import type { Caller } from './roles.ts';

export interface TenancyEnv {
  /**
   * Which repositories' pull requests may lease in which pools: `pool=owner/repo,owner/repo;pool=…`.
   * Unset: every repository the semaphore serves (SEMAPHORE_OIDC_REPOSITORIES) leases in every pool.
   * Set: a pool it does not name takes no pull request's lease.
   */
  SEMAPHORE_POOL_REPOSITORIES?: string;
  /** The longest lease a pull request may ask for, on acquire and on renew: minutes, 720 (12 h) by default. */
  SEMAPHORE_PR_LEASE_MAX_MINUTES?: string;
  /** How many live leases one pull request's holder may have in one pool: 1 by default. */
  SEMAPHORE_PR_LEASES_PER_POOL?: string;
}

export const DEFAULT_PR_LEASE_MAX_MINUTES = 720;
export const DEFAULT_PR_LEASES_PER_POOL = 1;

export interface TenancyConfig {
  /** Pool → the repositories (lower case: GitHub's names are case-insensitive) that may lease there. */
  poolRepositories: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  maxLeaseMs: number;
  leasesPerPool: number;
}

const POOL = /^[a-z0-9][a-z0-9-]{0,62}$/;

function wholeNumber(
  value: string | undefined,
  name: string,
  fallback: number,
  max: number,
): number | string {
  const text = (value ?? '').trim();
  if (text === '') return fallback;
  const number = /^[1-9][0-9]{0,6}$/.test(text) ? Number(text) : Number.NaN;
  return Number.isInteger(number) && number <= max
    ? number
    : `${name} must be a whole number from 1 to ${max}; fix the var (unset, it is ${fallback})`;
}

function poolRepositoriesOf(value: string | undefined): TenancyConfig['poolRepositories'] | string {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  const pools = new Map<string, Set<string>>();
  const problem =
    'SEMAPHORE_POOL_REPOSITORIES must be pool=owner/repo,owner/repo entries separated by ";" (e.g. preview-slot=acme/shop,acme/blog;staging-slot=acme/shop); fix the var';
  for (const entry of text.split(';')) {
    const [pool, repositories, ...rest] = entry.split('=').map((part) => part.trim());
    if (pool === undefined || repositories === undefined || rest.length > 0 || !POOL.test(pool))
      return problem;
    const names = repositories.split(',').map((name) => name.trim());
    if (names.some((name) => !REPOSITORY_NAME.test(name)) || pools.has(pool)) return problem;
    pools.set(pool, new Set(names.map((name) => name.toLowerCase())));
  }
  return pools;
}

/** The operator's settings, or what is wrong with them (the semaphore answers 500 to pull requests until fixed). */
export function tenancyConfig(env: TenancyEnv): TenancyConfig | { problem: string } {
  const poolRepositories = poolRepositoriesOf(env.SEMAPHORE_POOL_REPOSITORIES);
  const maxMinutes = wholeNumber(
    env.SEMAPHORE_PR_LEASE_MAX_MINUTES,
    'SEMAPHORE_PR_LEASE_MAX_MINUTES',
    DEFAULT_PR_LEASE_MAX_MINUTES,
    43_200,
  );
  const leasesPerPool = wholeNumber(
    env.SEMAPHORE_PR_LEASES_PER_POOL,
    'SEMAPHORE_PR_LEASES_PER_POOL',
    DEFAULT_PR_LEASES_PER_POOL,
    1_000,
  );
  for (const value of [poolRepositories, maxMinutes, leasesPerPool])
    if (typeof value === 'string') return { problem: value };
  return {
    poolRepositories: poolRepositories as TenancyConfig['poolRepositories'],
    maxLeaseMs: (maxMinutes as number) * 60_000,
    leasesPerPool: leasesPerPool as number,
  };
}

type PullRequestCaller = Extract<Caller, { role: 'pull-request' }>;

/** Why a pull request's job may not lease in `pool` or for `leaseMs` (a 403), if it may not. */
export function tenancyRefusal(
  caller: PullRequestCaller,
  config: TenancyConfig,
  body: { type: string; leaseMs?: number | undefined },
): string | undefined {
  const allowed = config.poolRepositories?.get(body.type);
  if (config.poolRepositories !== undefined && !allowed?.has(caller.repository.toLowerCase()))
    return `lease in pool ${body.type}: SEMAPHORE_POOL_REPOSITORIES does not list ${caller.repository} for it (add it there, or lease in a pool that lists it)`;
  if (body.leaseMs !== undefined && body.leaseMs > config.maxLeaseMs)
    return `lease for ${Math.ceil(body.leaseMs / 60_000)} minutes: a pull request's lease may last at most ${config.maxLeaseMs / 60_000} minutes (SEMAPHORE_PR_LEASE_MAX_MINUTES on the semaphore; or lower the action's lease-minutes)`;
  return undefined;
}

/** The pull request's job as the pool checks it: its holder and tenant, and its lease count limit. */
export function tenantLimits(caller: PullRequestCaller, config: TenancyConfig): TenantLimits {
  const owner: LeaseOwner = { holder: caller.holder, tenant: caller.tenant };
  return { owner, leasesPerHolder: config.leasesPerPool };
}

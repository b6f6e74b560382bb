// A deploy job signs in with its OIDC token, not a shared secret: the bundled action with
// `semaphore-auth: oidc` asks the runner's token service for a token (ACTIONS_ID_TOKEN_REQUEST_URL,
// played by a loopback issuer with its own keys) and the real semaphore Worker verifies it. The token
// of acme/shop's pull request 7's job acquires, erases and releases as acme/shop/pr-7 and nothing else; a token that expired
// meanwhile is fetched anew; a job without `id-token: write` is told what to add.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import type { RunReport } from '../../src/report/model.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { type ActionRunResult, runAction } from '../support/action-run.ts';
import { actionInputs, expectNoLeaks, SLOTS_CONFIG_PATH } from '../support/action-stack.ts';
import { type OidcIssuer, startOidcIssuer } from '../support/oidc-issuer.ts';
import { isErased, slotContents, slotSeed, tenantData } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const REPOSITORY = 'acme/shop';
const CLOUDFLARE_TOKEN = 'cf-oidc-61d0b9a4e2';
const HOUR = 3_600_000;

let issuer: OidcIssuer;
let semaphore: LocalSemaphore;
let twin: Twin;
let config: SlotConfig;
let admin: SemaphoreClient;

beforeAll(async () => {
  issuer = await startOidcIssuer();
  [semaphore, twin, config] = await Promise.all([
    startLocalSemaphore({ oidc: { issuer: issuer.url, repositories: [REPOSITORY] } }),
    startTwin({ token: CLOUDFLARE_TOKEN }),
    loadSlotConfig(SLOTS_CONFIG_PATH),
  ]);
  admin = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close(), issuer?.close()]);
});

/** The deploy job of pull request `pr` (the event's), signed in with the OIDC token of `tokenFor`'s job. */
async function deployJob(
  pool: string,
  pr: number,
  options: { tokenFor?: number; idToken?: boolean; extra?: Record<string, string> } = {},
): Promise<ActionRunResult> {
  const { 'semaphore-token': _semaphoreToken, ...inputs } = actionInputs({ semaphore, twin }, pool, {
    command: 'acquire',
    'semaphore-auth': 'oidc',
    ...options.extra,
  });
  const env =
    options.idToken === false
      ? {}
      : issuer.actionsEnv({ repository: REPOSITORY, pullRequest: options.tokenFor ?? pr });
  const result = await runAction(inputs, {
    event: { name: 'pull_request', payload: { action: 'synchronize', pull_request: { number: pr } } },
    env: { ...env, GITHUB_REPOSITORY: REPOSITORY },
  });
  expectNoLeaks(result, [semaphore.token, CLOUDFLARE_TOKEN, ...issuer.issued]);
  return result;
}

const reportOf = (result: ActionRunResult): RunReport => JSON.parse(result.outputs.report ?? '{}');

/** Slots whose resources exist in the twin; `dirtyFor` leaves a tenant's data in the first one. */
async function poolOf(pool: string, slugs: string[], dirtyFor?: string): Promise<void> {
  twin.seed(slotSeed(config, slugs, slugs));
  for (const slug of slugs) await admin.add({ type: pool, slug });
  if (dirtyFor === undefined) return;
  const [first = ''] = slugs;
  const lease = await admin.acquireSpecific({ type: pool, slug: first, holder: dirtyFor, leaseMs: HOUR });
  twin.seed(tenantData(config, first, dirtyFor));
  await admin.release({ type: pool, slug: first, leaseId: lease?.leaseId ?? '' });
}

describe('the deploy job of pull request 7, signed in with its OIDC token', () => {
  it('acquires as acme/shop/pr-7 (its holder names the repository), erases the previous tenant first, and needs no semaphore secret', async () => {
    const pool = 'oidc-deploy';
    await poolOf(pool, ['oidc-1'], 'pr-3');
    const result = await deployJob(pool, 7);
    expect(result.exitCode, result.stdout).toBe(0);
    expect(result.outputs).toMatchObject({ slot: 'oidc-1', 'was-dirty': 'true' });
    expect(isErased(slotContents(twin, config, 'oidc-1'))).toBe(true);
    expect(await admin.find(pool, 'oidc-1')).toMatchObject({
      holder: 'acme/shop/pr-7',
      leaseState: 'leased',
    });
    // The token the job was handed is a secret like the others: masked, and nowhere in what it shows.
    expect(issuer.issued.length).toBeGreaterThan(0);
    expect(result.stdout).toContain(`::add-mask::${issuer.issued.at(-1)}`);
  });

  it('releases its lease itself when the erase fails: the deploy’s own release, as acme/shop/pr-7', async () => {
    const pool = 'oidc-release';
    await poolOf(pool, ['oidc-2'], 'pr-4');
    twin.faults.add({
      route: 'POST /accounts/:account/d1/database/:id/query',
      status: 403,
      code: 10000,
      message: 'Authentication error',
    });
    try {
      const result = await deployJob(pool, 7);
      expect(result.exitCode, result.stdout).toBe(1);
      expect(reportOf(result).slots).toMatchObject([{ slug: 'oidc-2', outcome: 'erase-failed' }]);
    } finally {
      twin.faults.clear();
    }
    const [released] = await admin.events(pool, 'oidc-2', 1);
    expect(released).toMatchObject({ event: 'released', holder: 'acme/shop/pr-7', detail: { clean: false } });
    expect(await admin.find(pool, 'oidc-2')).toMatchObject({ leaseState: 'available', dirty: true });
  });

  it('is refused (403) for pull request 8 and changes nothing', async () => {
    const pool = 'oidc-other';
    await poolOf(pool, ['oidc-3']);
    const result = await deployJob(pool, 8, { tokenFor: 7 });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      'The run stopped: the pull-request role (acme/shop/pr-7) may not acquire for holder "acme/shop/pr-8". It may read, and acquire, renew and release only its own pull request\'s lease',
    );
    expect(await admin.find(pool, 'oidc-3')).toMatchObject({ holder: null, generation: 0 });
  });

  it('fetches a fresh token when the one it had expired', async () => {
    const pool = 'oidc-expired';
    await poolOf(pool, ['oidc-4']);
    const asked = issuer.requests.filter((path) => path === '/actions/token').length;
    issuer.expireNext(1);
    const result = await deployJob(pool, 7);
    expect(result.exitCode, result.stdout).toBe(0);
    expect(issuer.requests.filter((path) => path === '/actions/token').length).toBe(asked + 2);
    expect(await admin.find(pool, 'oidc-4')).toMatchObject({ holder: 'acme/shop/pr-7' });
  });

  it('says what the job lacks when it may not get a token (no id-token: write)', async () => {
    const pool = 'oidc-no-permission';
    await poolOf(pool, ['oidc-5']);
    const result = await deployJob(pool, 7, { idToken: false });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("the job's OIDC token could not be had");
    expect(result.stdout).toContain('needs permissions: id-token: write');
    expect(await admin.find(pool, 'oidc-5')).toMatchObject({ holder: null });
  });
});

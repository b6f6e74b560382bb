// A new user's first hour, mistake by mistake: each test makes one mistake an adopter makes (a pool
// name that matches no slot, a revoked or wrong Cloudflare token, a wrong semaphore token, a flag
// named like the action's input) and checks the answer says what is wrong, where, and what to do,
// once. The CLI runs as a process (`node src/cli.ts`), the action in-process, both against the real
// semaphore in workerd and the Cloudflare twin.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import type { RunReport } from '../../src/report/model.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { appSlotConfig } from '../support/app-slot-config.ts';
import { runActionInProcess } from '../support/in-process-action.ts';
import { slotSeed, tenantData } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { type CliResult, runCli } from './run-cli.ts';

const SLUGS = ['preview-1', 'preview-2', 'preview-3'];
const OTHER_ACCOUNT = 'f'.repeat(32);
/** The twin's account (its default id). */
const ACCOUNT = '023e105f4ecef8ad9ca31a8372d0c353';

let semaphore: LocalSemaphore;
let twin: Twin;
let client: SemaphoreClient;
let dir: string;
let config: SlotConfig;
/** The config of each pool a test works on, by pool. */
const configPaths = new Map<string, string>();
/** Everything the CLI printed in this file, for the checks that span every run. */
const printed: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preview-gc-adoption-'));
  config = parseSlotConfig(appSlotConfig('app-preview'), 'app.yml');
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ port: 0 }),
    startTwin({ seed: slotSeed(config, SLUGS) }),
  ]);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
  twin.account.addToken('expired-token-0001', { status: 'expired', owner: 'user' });
  twin.account.addToken('other-account-token', { status: 'active', owner: 'user', accountId: OTHER_ACCOUNT });
  twin.account.addToken('account-owned-token', { status: 'active', owner: 'account' });
  twin.account.addToken('token-without-d1', {
    status: 'active',
    owner: 'user',
    permissions: ['Workers Scripts Write', 'Workers KV Storage Write', 'Workers R2 Storage Write'],
  });
}, 60_000);

afterAll(async () => {
  await twin?.close();
  await semaphore?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A config file for `pool`, written once. */
async function configFor(pool: string): Promise<string> {
  const known = configPaths.get(pool);
  if (known !== undefined) return known;
  const path = join(dir, `${pool}.yml`);
  await writeFile(path, appSlotConfig(pool));
  configPaths.set(pool, path);
  return path;
}

function env(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    SEMAPHORE_URL: semaphore.url,
    SEMAPHORE_TOKEN: semaphore.token,
    CLOUDFLARE_API_TOKEN: twin.token,
    CLOUDFLARE_ACCOUNT_ID: twin.accountId,
    CLOUDFLARE_API_BASE_URL: twin.baseUrl,
    ...overrides,
  };
}

/** The twin shares no account limit: runs may pace faster than the default 3 requests a second. */
const FAST = ['--requests-per-second', '50'];

async function cli(args: string[], overrides: Record<string, string> = {}): Promise<CliResult> {
  const paced = ['gc', 'cleanup'].includes(args[0] ?? '') ? [...args, ...FAST] : args;
  const result = await runCli(paced, env(overrides));
  printed.push(result.stdout, result.stderr);
  return result;
}

function show(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** A pool of the three app slots, each left dirty by a pull request (so gc has work to do). */
async function dirtyPool(pool: string): Promise<void> {
  for (const slug of SLUGS) {
    await client.add({ type: pool, slug });
    const lease = await client.acquireSpecific({ type: pool, slug, holder: 'pr-7', leaseMs: 60_000 });
    await client.release({ type: pool, slug, leaseId: lease?.leaseId ?? '' });
  }
}

async function generations(pool: string): Promise<number[]> {
  return (await client.list(pool)).resources.map((slot) => slot.generation);
}

describe('a pool with no slots', () => {
  it("fails gc, naming the pool, the config's pool: key it came from, the pools there are, and both fixes", async () => {
    for (const slug of SLUGS) await client.add({ type: 'preview-slot', slug });
    const path = await configFor('preview-slots');
    const result = await cli(['gc', '--config', path]);
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe('✖ preview-gc gc on pool preview-slots: did not complete');
    expect(result.stdout).toContain(
      `Pool 'preview-slots' has no slots (its name comes from the 'pool:' key of ${path}), so there is nothing to work on. Nothing was changed.`,
    );
    expect(result.stdout).toContain(
      `the slots are in another pool (the semaphore has preview-slot (3 slots)): set the 'pool:' key of ${path} to that pool's name`,
    );
    expect(result.stdout).toContain(
      "'preview-gc slots sync --count <N> --pool preview-slots --dirty', N the number of slots you want",
    );
  });

  it('fails cleanup too, and names --pool when the flag gave the name', async () => {
    const result = await cli([
      'cleanup',
      '--pull-request',
      '12',
      '--pool',
      'no-such-pool',
      '--config',
      await configFor('app-preview'),
    ]);
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout).toContain("Pool 'no-such-pool' has no slots (its name comes from --pool)");
  });

  it('is a warning in status, which changes nothing', async () => {
    const result = await cli(['status', '--pool', 'no-such-pool']);
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toContain(
      "WARNING  Pool 'no-such-pool' has no slots (its name comes from --pool), so gc and cleanup would fail on it.",
    );
  });

  it('does not make a quiet sweep louder: one semaphore call, one Cloudflare call (the spend read)', async () => {
    for (const slug of SLUGS) await client.add({ type: 'quiet', slug });
    const result = await cli(['gc', '--json', '--config', await configFor('quiet')]);
    const report = JSON.parse(result.stdout) as RunReport;
    expect(result.code, show(result)).toBe(0);
    expect(report.semaphoreRequests).toBe(1);
    expect(report.cloudflare).toMatchObject({ requests: 1, byKind: { 'analytics.graphql': 1 } });
  });
});

describe('the Cloudflare credentials, checked once before any slot is touched', () => {
  it('checks them with one call more than the erase makes anyway', async () => {
    await dirtyPool('creds-ok');
    const result = await cli(['gc', '--dry-run', '--json', '--config', await configFor('creds-ok')]);
    const report = JSON.parse(result.stdout) as RunReport;
    expect(result.code, show(result)).toBe(0);
    expect(report.slots.map((slot) => slot.outcome)).toEqual([
      'would-reclaim',
      'would-reclaim',
      'would-reclaim',
    ]);
    expect(report.cloudflare?.byKind['tokens.verify']).toBe(1);
  });

  it.each([
    [
      'a revoked token',
      'a-token-cloudflare-never-issued',
      'The Cloudflare API token is invalid or expired: Cloudflare does not accept it',
    ],
    ['an expired token', 'expired-token-0001', 'The Cloudflare API token is expired'],
    [
      'a token of another account',
      'other-account-token',
      `The Cloudflare API token cannot access account ${ACCOUNT}`,
    ],
    ['a token without D1', 'token-without-d1', 'The Cloudflare API token lacks D1: Edit for D1 databases'],
  ])('%s fails gc once, with the fix, and touches no slot', async (_, token, message) => {
    const pool = `creds-${token.replace(/[^a-z]/g, '').slice(0, 12)}`;
    await dirtyPool(pool);
    const before = await generations(pool);
    twin.resetRequests();
    const result = await cli(['gc', '--config', await configFor(pool)], { CLOUDFLARE_API_TOKEN: token });
    const output = result.stdout + result.stderr;
    expect(result.code, show(result)).toBe(1);
    expect(occurrences(output, message), show(result)).toBe(1);
    expect(output).toContain('so nothing was erased. Fix: ');
    expect(output).toContain("then run 'preview-gc gc' again.");
    expect(result.stdout).not.toContain('\nSlots\n');
    expect(await generations(pool)).toEqual(before);
    const touched = twin.requests().filter((request) => /preview-\d/.test(request.path));
    expect(touched).toEqual([]);
  });

  it('takes a token owned by the account', async () => {
    await dirtyPool('creds-account-token');
    const result = await cli(['gc', '--config', await configFor('creds-account-token')], {
      CLOUDFLARE_API_TOKEN: 'account-owned-token',
    });
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout.split('\n')[0]).toContain('3 of 3 reclaimed');
  });

  it('still gives back the slots of a closed pull request, and says once why they were not erased', async () => {
    const pool = 'creds-cleanup';
    await client.add({ type: pool, slug: 'preview-1' });
    await client.acquireSpecific({ type: pool, slug: 'preview-1', holder: 'pr-31', leaseMs: 600_000 });
    const result = await cli(['cleanup', '--pull-request', '31', '--config', await configFor(pool)], {
      CLOUDFLARE_API_TOKEN: 'a-token-cloudflare-never-issued',
    });
    expect(result.code, show(result)).toBe(1);
    expect(occurrences(result.stdout, 'The Cloudflare API token is invalid or expired')).toBe(1);
    expect((await client.find(pool, 'preview-1')).leaseState).toBe('available');
  });

  it('speaks the workflow in the action: the input, its secret, and the workflow to run again', async () => {
    await dirtyPool('creds-action');
    const run = await runActionInProcess(
      {
        command: 'gc',
        config: await configFor('creds-action'),
        'semaphore-url': semaphore.url,
        'semaphore-token': semaphore.token,
        'cloudflare-api-token': 'token-without-d1',
        'cloudflare-account-id': twin.accountId,
        'cloudflare-api-base-url': twin.baseUrl,
      },
      'real',
    );
    expect(run.exitCode).toBe(1);
    expect(run.summary).toContain('The Cloudflare API token lacks D1: Edit for D1 databases');
    expect(run.summary).toContain('then run the preview-gc workflow again.');
  });
});

describe('a wrong semaphore token', () => {
  it.each([
    ['status', ['status', '--pool', 'app-preview']],
    ['slots list', ['slots', 'list', '--pool', 'app-preview']],
  ])('%s says the semaphore refused it, where it comes from, and that nothing changed', async (_, args) => {
    const result = await cli(args, { SEMAPHORE_TOKEN: 'not-the-semaphore-token' });
    expect(result.code, show(result)).toBe(1);
    const output = result.stdout + result.stderr;
    expect(output).toContain('the semaphore refused the token (HTTP 401), so nothing was changed');
    expect(output).toContain(
      '. The token comes from SEMAPHORE_TOKEN (environment variable): it must be one of the tokens set on the semaphore Worker',
    );
  });

  it('takes a SEMAPHORE_URL given with the /api its routes start with', async () => {
    for (const url of [`${semaphore.url}/api`, `${semaphore.url}/api/`]) {
      const result = await cli(['status', '--pool', 'app-preview'], { SEMAPHORE_URL: url });
      expect(result.code, show(result)).toBe(0);
      expect(result.stdout).not.toContain('/api/api/');
    }
  });

  it('says a wrong token is refused in whole words, also when the token is a word of the answer', async () => {
    const result = await cli(['status', '--pool', 'app-preview'], { SEMAPHORE_TOKEN: 'wrong' });
    expect(result.code, show(result)).toBe(1);
    const output = result.stdout + result.stderr;
    expect(output).not.toContain('[the token]');
    expect(output).not.toContain('***');
    expect(output).toContain(
      "the semaphore refused the token (HTTP 401), so nothing was changed (its reason is not repeated here, as it contains the token's text). The token comes from SEMAPHORE_TOKEN (environment variable)",
    );
  });

  it('says a token that cannot be sent was not sent, and where it comes from', async () => {
    const result = await cli(['status', '--pool', 'app-preview'], {
      SEMAPHORE_TOKEN: 'pasted with a newline\n',
    });
    // Refused with the other settings, before any call, naming where it came from and not its value.
    expect(result.code, show(result)).toBe(2);
    expect(result.stderr).toContain('did not start; fix these settings (nothing was changed)');
    expect(result.stderr).toContain(
      'SEMAPHORE_TOKEN (environment variable) must not contain spaces, line breaks or control characters (the value is not shown)',
    );
    expect(result.stdout + result.stderr).not.toContain('pasted with a newline');
  });

  it('names the input and its secret in the action', async () => {
    const run = await runActionInProcess(
      {
        command: 'status',
        pool: 'app-preview',
        'semaphore-url': semaphore.url,
        'semaphore-token': 'not-the-semaphore-token',
      },
      'real',
    );
    expect(run.exitCode).toBe(1);
    expect(run.log).toContain('the semaphore refused the token (HTTP 401), so nothing was changed');
    expect(run.log).toContain(
      ". The token comes from input 'semaphore-token' (the SEMAPHORE_GC_TOKEN secret in the README's workflows)",
    );
  });
});

describe('adopting slots that already hold data', () => {
  /** Rows in a slot's D1 database, now. */
  function rows(slug: string): number {
    const database = twin.state().d1.find((d1) => d1.name === `app-${slug}-db`);
    return (database?.objects ?? [])
      .filter((object) => object.type === 'table' && object.name !== 'd1_migrations')
      .reduce((sum, object) => sum + (object.rows ?? 0), 0);
  }

  it('slots sync --dirty adds them dirty, checking their resources with one listing per kind, and the next gc sweeps them', async () => {
    const path = await configFor('adopted');
    for (const slug of SLUGS) twin.seed(tenantData(config, slug, 'before-adoption'));
    twin.resetRequests();
    const added = await cli(['slots', 'sync', '--count', '3', '--dirty', '--config', path]);
    expect(added.code, show(added)).toBe(0);
    expect(added.stdout).toContain('added 3 dirty (the next gc erases their data), removed 0.');
    expect(added.stderr).toContain(
      `Checked in account ${ACCOUNT}: every resource of the 3 slot(s) to add exists.`,
    );
    const listings = twin
      .requests()
      .filter((request) => request.method === 'GET')
      .map((request) => request.route);
    for (const route of [
      'GET /accounts/:account/workers/scripts',
      'GET /accounts/:account/d1/database',
      'GET /accounts/:account/storage/kv/namespaces',
      'GET /accounts/:account/r2/buckets',
    ])
      expect(
        listings.filter((listed) => listed === route),
        route,
      ).toHaveLength(1);
    expect((await client.list('adopted')).resources.every((slot) => slot.dirty)).toBe(true);
    expect(rows('preview-2')).toBeGreaterThan(0);

    const swept = await cli(['gc', '--config', path]);
    expect(swept.code, show(swept)).toBe(0);
    expect(swept.stdout.split('\n')[0]).toBe('✔ preview-gc gc on pool adopted: 3 of 3 reclaimed');
    for (const slug of SLUGS) expect(rows(slug), slug).toBe(0);
  });

  it('slots mark-dirty marks a free slot that holds data, and the next gc sweeps it', async () => {
    const path = await configFor('marked');
    await client.add({ type: 'marked', slug: 'preview-1' });
    twin.seed(tenantData(config, 'preview-1', 'left-over'));
    const release = await cli([
      'release',
      ...[
        '--slot',
        'preview-1',
        '--force',
        '--holder',
        'pr-1',
        '--generation',
        '0',
        '--note',
        'left-over',
        '--yes',
      ],
      ...['--config', path],
    ]);
    expect(release.stdout).toContain(
      'Nothing to release: preview-1 was not leased. To have its data erased anyway: preview-gc slots mark-dirty preview-1',
    );
    const marked = await cli([
      'slots',
      'mark-dirty',
      'preview-1',
      '--note',
      'adopted with data',
      '--config',
      path,
    ]);
    expect(marked.code, show(marked)).toBe(0);
    expect(marked.stdout).toContain('✔ preview-1 is dirty: the next gc erases it.');
    const swept = await cli(['gc', '--config', path]);
    expect(swept.stdout.split('\n')[0], show(swept)).toBe('✔ preview-gc gc on pool marked: 1 of 1 reclaimed');
    expect(rows('preview-1')).toBe(0);
  });

  it('refuses slots whose resources do not exist, naming each, and adds nothing', async () => {
    const path = await configFor('checked');
    const result = await cli(['slots', 'add', 'preview-2', 'preview-9', '--config', path]);
    expect(result.code, show(result)).toBe(1);
    expect(result.stderr).toContain(
      `nothing was changed: these resources do not exist in account ${ACCOUNT}:`,
    );
    expect(result.stderr).toContain(
      `- preview-9: D1 database 'app-preview-9-db' (from 'app-{slot}-db' at ${path} resources.d1[0].name)`,
    );
    expect(result.stderr.match(/- preview-9: /g)).toHaveLength(4);
    expect(result.stderr).not.toContain('- preview-2:');
    expect((await client.list('checked')).resources).toEqual([]);
  });

  it('says so when it could not check, and adds the slots', async () => {
    const path = await configFor('unchecked');
    const result = await cli(['slots', 'add', 'preview-9', '--config', path], { CLOUDFLARE_API_TOKEN: '' });
    expect(result.code, show(result)).toBe(0);
    expect(result.stderr).toContain(
      'Not checked that the Cloudflare resources of the slots exist: set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID to check.',
    );
    expect((await client.list('unchecked')).resources.map((slot) => slot.slug)).toEqual(['preview-9']);
  });
});

describe('the CLI speaks the terminal', () => {
  it('--version prints the version of package.json', async () => {
    const result = await cli(['--version']);
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toMatch(/^preview-gc \d+\.\d+\.\d+\n$/);
  });

  it("accepts the action's input name --pull-request, and suggests it for a near miss", async () => {
    const pool = 'flags';
    await client.add({ type: pool, slug: 'preview-2' });
    await client.acquireSpecific({ type: pool, slug: 'preview-2', holder: 'pr-103', leaseMs: 600_000 });
    const near = await cli(['cleanup', '--pul-request', '103', '--config', await configFor(pool)]);
    expect(near.code, show(near)).toBe(2);
    expect(near.stderr.split('\n')[0]).toBe(
      "preview-gc: Unknown option '--pul-request': did you mean --pull-request?",
    );
    const result = await cli(['cleanup', '--pull-request', '103', '--config', await configFor(pool)]);
    expect(result.code, show(result)).toBe(0);
    expect((await client.find(pool, 'preview-2')).leaseState).toBe('available');
  });

  it('names --config for a missing config, and a refused dry run does not claim to show a real run', async () => {
    const result = await cli(['gc', '--dry-run', '--config', join(dir, 'missing.yml')]);
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout).toContain('create it (or point --config at it)');
    expect(result.stdout).toContain('DRY RUN  Nothing was acquired, erased or released.');
    expect(result.stdout).not.toContain('this is what a real run would do');
  });

  it('names the environment variable of a missing token, without workflow syntax', async () => {
    const result = await cli(['gc'], { CLOUDFLARE_API_TOKEN: '' });
    expect(result.code, show(result)).toBe(2);
    expect(result.stderr).toContain(
      "CLOUDFLARE_API_TOKEN (environment variable) is required for 'gc': a Cloudflare API token",
    );
  });

  it('never says workflow things at a terminal', () => {
    const everything = printed.join('\n');
    for (const workflowTalk of ['${{', 'workflow again', "'config' input", "input '"]) {
      expect(everything).not.toContain(workflowTalk);
    }
  });
});

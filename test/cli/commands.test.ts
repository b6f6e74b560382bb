// Every CLI command as a user runs it: `node src/cli.ts` with flags and environment variables, against
// the real semaphore Worker in workerd and the Cloudflare twin over loopback, on the demo pool. The
// tests run in order and each starts from the state the previous one left, as a session at a terminal.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_CONFIG_PATH,
  DEMO_POOL,
  demoPlan,
  demoSlugs,
  demoTwinSeed,
  seedDemoPool,
} from '../../demo/fixture.ts';
import { bundleEntry, ENTRY_POINTS } from '../../scripts/bundle.ts';
import type { RunReport } from '../../src/report/model.ts';
import { alertParts } from '../../src/report/spend-text.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import type { Slot } from '../../src/semaphore/protocol.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { type CliResult, startNode } from './run-cli.ts';

let semaphore: LocalSemaphore;
let twin: Twin;
let client: SemaphoreClient;
let env: Record<string, string>;
/** Rows each slot's D1 database was seeded with. */
let rowsPerSlot = 0;
/** The CLI, bundled from the current source as `dist/cli.js` is, into a temporary folder. */
let cliBundle: string;
let bundleDir: string;
/** Every byte the CLI printed in this file, for the check that no token ever appears. */
const printed: string[] = [];

beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), 'preview-gc-cli-'));
  cliBundle = join(bundleDir, 'cli.js');
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ port: 0 }),
    // Resources for two slots more than the pool has: `slots add` and `sync` check they exist.
    startTwin({ seed: demoTwinSeed(demoSlugs(11), { orders: 6, kvKeys: 40 }) }),
    bundleEntry(bundleDir, 'cli', ENTRY_POINTS.cli),
  ]);
  client = new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token });
  await seedDemoPool(client, demoPlan());
  env = {
    SEMAPHORE_URL: semaphore.url,
    SEMAPHORE_TOKEN: semaphore.token,
    CLOUDFLARE_API_TOKEN: twin.token,
    CLOUDFLARE_ACCOUNT_ID: twin.accountId,
    CLOUDFLARE_API_BASE_URL: twin.baseUrl,
  };
});

afterAll(async () => {
  await twin?.close();
  await semaphore?.stop();
  await rm(bundleDir, { recursive: true, force: true });
});

function startCli(
  args: string[],
  options: { stdin?: 'pipe' } = {},
): { child: ChildProcess; result: Promise<CliResult> } {
  const config = args.includes('--config') ? [] : ['--config', DEMO_CONFIG_PATH];
  const started = startNode(cliBundle, [...args, ...config], env, options);
  const result = started.result.then((done) => {
    printed.push(done.stdout, done.stderr);
    return done;
  });
  return { child: started.child, result };
}

function cli(args: string[]): Promise<CliResult> {
  return startCli(args).result;
}

/** What the CLI printed, shown when an exit code is not the one expected. */
function show(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** The twin is local, so runs pace fast; the default 3/s is for a shared real account. */
const FAST = ['--requests-per-second', '50'];

async function slotsBySlug(): Promise<Map<string, Slot>> {
  const listing = await client.list(DEMO_POOL);
  return new Map(listing.resources.map((slot) => [slot.slug, slot]));
}

function d1Rows(slug: string): number {
  const database = twin.state().d1.find((d1) => d1.name === `shop-${slug}-db`);
  return (database?.objects ?? [])
    .filter((object) => object.type === 'table' && object.name !== 'd1_migrations')
    .reduce((sum, object) => sum + (object.rows ?? 0), 0);
}

describe('status', () => {
  it('prints the pool as a table: three expired leases, two live, two dirty', async () => {
    const result = await cli(['status']);
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('✔ preview-gc status on pool preview-slot: 9 slots');
    expect(result.stdout.match(/leased \(expired\) +pr-\d+ +expired/g)).toHaveLength(3);
    expect(result.stdout).toMatch(/preview-2 +leased +pr-1601 +ends in/);
    expect(result.stdout).toMatch(/preview-4 +available +– +– +yes/);
    expect(result.stdout.trim().split('\n').at(-1)).toBe(
      'Signed in to the semaphore as admin: it may do everything: read, lease, force, mark slots dirty, add and remove slots.',
    );
  });

  it('prints the run report as JSON with --json', async () => {
    const result = await cli(['status', '--json']);
    const report = JSON.parse(result.stdout) as RunReport;
    expect(result.code, show(result)).toBe(0);
    expect(report.command).toBe('status');
    expect(report).toMatchObject({ semaphoreRole: { role: 'admin', holder: null } });
    expect(report.poolAfter?.map((row) => row.slug)).toEqual(demoSlugs(9));
    expect(report.expired).toBe(3);
  });

  it('exits 1 and says why when the run cannot complete', async () => {
    const result = await cli(['status', '--config', 'no/such/preview-slots.yml']);
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe('✖ preview-gc status on pool (unknown): did not complete');
    expect(result.stdout).toContain('no/such/preview-slots.yml');
  });
});

describe('gc', () => {
  it('--dry-run reports the five slots it would reclaim and changes nothing', async () => {
    const before = await slotsBySlug();
    rowsPerSlot = d1Rows('preview-1');
    const result = await cli(['gc', '--dry-run', '--json', ...FAST]);
    const report = JSON.parse(result.stdout) as RunReport;
    expect(result.code, show(result)).toBe(0);
    expect(report.dryRun).toBe(true);
    // Which slots wait longest depends on how fast the seeding ran; the order rule does not.
    expect(report.slots.map((slot) => [slot.slug, slot.outcome]).sort()).toEqual([
      ['preview-1', 'would-reclaim'],
      ['preview-3', 'would-reclaim'],
      ['preview-4', 'would-reclaim'],
      ['preview-6', 'would-reclaim'],
      ['preview-8', 'would-reclaim'],
    ]);
    const waiting = report.slots.map((slot) => slot.waitingMs);
    expect(waiting).toEqual([...waiting].sort((a, b) => b - a));
    expect(await slotsBySlug()).toEqual(before);
    expect(rowsPerSlot).toBeGreaterThan(0);
    expect(d1Rows('preview-1')).toBe(rowsPerSlot);
  });

  it('reclaims them, shows progress per slot on stderr, and leaves the live leases alone', async () => {
    const result = await cli(['gc', ...FAST]);
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('✔ preview-gc gc on pool preview-slot: 5 of 5 reclaimed');
    expect(result.stdout).toMatch(/preview-1 +pr-1588 +\S+ \S+ \(expired\) +✔ reclaimed/);
    expect(result.stdout).toContain(`shop-preview-1-db: deleted ${rowsPerSlot} rows in 5 tables`);
    expect(result.stderr).toContain('Listed 9 slots; 5 to reclaim.');
    expect(result.stderr).toMatch(/\[5\/5\] preview-\d ✔ reclaimed/);

    const slots = await slotsBySlug();
    for (const slug of ['preview-1', 'preview-3', 'preview-4', 'preview-6', 'preview-8']) {
      expect(slots.get(slug)).toMatchObject({ leaseState: 'available', dirty: false });
      expect(d1Rows(slug)).toBe(0);
    }
    expect(slots.get('preview-2')).toMatchObject({ leaseState: 'leased', holder: 'pr-1601' });
    expect(d1Rows('preview-2')).toBe(rowsPerSlot);
  });
});

describe('cleanup', () => {
  it('--pr gives back the slot of a closed pull request at once, and says how long the pull request held it', async () => {
    const acquiredAt = (await slotsBySlug()).get('preview-2')?.lastAcquiredAt ?? 0;
    const startedAt = Date.now();
    const result = await cli(['cleanup', '--pr', '1601', ...FAST]);
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toMatch(/\n {2}SLOT +PREVIOUS HOLDER +HELD FOR +OUTCOME +DURATION\n/);
    const held = /\n {2}preview-2 +pr-1601 +(\d+) (s|min) +✔ reclaimed/.exec(result.stdout);
    expect(held, result.stdout).not.toBeNull();
    // Since the lease began (the semaphore's clock is this machine's): from then until the run started, at least.
    const heldMs = Number(held?.[1]) * (held?.[2] === 'min' ? 60_000 : 1_000);
    expect(heldMs).toBeGreaterThanOrEqual(startedAt - acquiredAt - 60_000);
    expect(heldMs).toBeLessThanOrEqual(Date.now() - acquiredAt + 60_000);
    expect((await slotsBySlug()).get('preview-2')).toMatchObject({ leaseState: 'available', holder: null });
  });

  it('says so when the pull request holds no slot', async () => {
    const result = await cli(['cleanup', '--pr', '4242']);
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(
      '✔ preview-gc cleanup on pool preview-slot: pull request #4242 holds no slot, nothing to do',
    );
  });
});

describe('release', () => {
  /** `release --force` of the lease `status` shows on the slot, asking to confirm unless `--yes`. */
  async function forceArgs(slug: string, ...more: string[]): Promise<string[]> {
    const slot = await client.find(DEMO_POOL, slug);
    const named = ['--holder', slot.holder ?? '', '--generation', String(slot.generation)];
    return ['release', '--slot', slug, '--force', ...named, '--note', 'by hand', ...more];
  }

  it('--force needs the lease it ends (holder, generation) and a note, before any call', async () => {
    for (const args of [
      ['release', '--slot', 'preview-7', '--force'],
      ['release', '--slot', 'preview-7', '--force', '--holder', 'pr-1603', '--generation', '1'],
      ['release', '--slot', 'preview-7', '--force', '--holder', 'pr-1603', '--note', 'x'],
    ]) {
      const result = await cli(args);
      expect(result.code, show(result)).toBe(2);
      expect(result.stderr).toContain('release --force needs the lease you mean and why');
    }
    const noTerminal = await cli(await forceArgs('preview-7'));
    expect(noTerminal.code, show(noTerminal)).toBe(1);
    expect(noTerminal.stdout).toContain(
      'Not confirmed: nothing was released. The slot name to type is preview-7.',
    );
    const wrongHolder = await cli([
      ...(await forceArgs('preview-7')).slice(0, 5),
      'pr-1604',
      '--generation',
      '1',
      '--note',
      'x',
      '--yes',
    ]);
    expect(wrongHolder.code, show(wrongHolder)).toBe(1);
    expect(wrongHolder.stdout).toContain('Nothing released: preview-7 is not the lease you named ("pr-1604"');
    expect((await slotsBySlug()).get('preview-7')).toMatchObject({ leaseState: 'leased', holder: 'pr-1603' });
  });

  // Found by a hostile read: `release --force` ended whatever lease was there, with no condition, no
  // note and no confirmation. Now the lease named, pinned as read, confirmed by typing the slot's name.
  it('--force asks to confirm, and releases nothing when the lease was renewed while it asked', async () => {
    const before = await client.find(DEMO_POOL, 'preview-7');
    const asking = startCli(await forceArgs('preview-7'), { stdin: 'pipe' });
    let stderr = '';
    await new Promise<void>((resolve) => {
      asking.child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('to confirm: ')) resolve();
      });
    });
    expect(stderr).toContain('Force-release preview-7: this ends the live lease of');
    // The deploy of pr-1603 pushes again while the person reads the question.
    await client.acquire({ type: DEMO_POOL, holder: 'pr-1603', leaseMs: 600_000, reuseHeld: true });
    asking.child.stdin?.end('preview-7\n');
    const result = await asking.result;
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout).toContain(
      `Nothing released: preview-7 changed after it was read (pr-1603 held it at generation ${before.generation}, lease version ${before.leaseVersion}; pr-1603 holds it now, generation ${before.generation}, lease version ${(before.leaseVersion ?? 0) + 1})`,
    );
    expect((await slotsBySlug()).get('preview-7')).toMatchObject({ leaseState: 'leased', holder: 'pr-1603' });
  });

  // Found by an adopter: the spend alert suggested `release --force` without the flags a force needs.
  it("the spend alert's command runs as printed and ends that lease", async () => {
    const free = (await client.list(DEMO_POOL)).resources.find((row) => row.leaseState === 'available');
    if (free === undefined) throw new Error('the demo pool has no free slot');
    const lease = await client.acquireSpecific({
      type: DEMO_POOL,
      slug: free.slug,
      holder: 'pr-4321',
      leaseMs: 3_600_000,
    });
    const slot = { slug: free.slug, holder: 'pr-4321', generation: lease?.generation ?? 0 };
    const { release } = alertParts(
      { slug: slot.slug, holder: slot.holder, generation: slot.generation, usdPerHour: 5, burning: null },
      { pool: DEMO_POOL },
    );
    // The shell's words: single quotes keep a word with a space whole.
    const words = (release ?? '').match(/'[^']*'|\S+/g)?.map((word) => word.replace(/^'|'$/g, '')) ?? [];
    expect(words[0]).toBe('preview-gc');
    const asking = startCli(words.slice(1), { stdin: 'pipe' });
    asking.child.stdin?.end(`${slot.slug}\n`);
    const result = await asking.result;
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toContain(
      `✔ Released ${slot.slug} in pool ${DEMO_POOL} (held by pr-4321, lease was live).`,
    );
  });

  it('--force releases a live lease once confirmed, says whose it was, and keeps the note', async () => {
    const asking = startCli(await forceArgs('preview-7'), { stdin: 'pipe' });
    asking.child.stdin?.end('preview-7\n');
    const result = await asking.result;
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toContain(
      '✔ Released preview-7 in pool preview-slot (held by pr-1603, lease was live).',
    );
    expect(result.stdout).toContain('It is dirty: the next gc or its next acquirer erases it.');
    expect((await slotsBySlug()).get('preview-7')).toMatchObject({ leaseState: 'available', dirty: true });
    const [event] = await client.events(DEMO_POOL, 'preview-7', 1);
    expect(event).toMatchObject({ event: 'force-released', holder: 'pr-1603', detail: { note: 'by hand' } });
  });

  it('--lease-id releases that lease only, and once', async () => {
    const lease = await client.acquireSpecific({
      type: DEMO_POOL,
      slug: 'preview-5',
      holder: 'manual-ana',
      leaseMs: 600_000,
    });
    const leaseId = lease?.leaseId ?? '';
    const first = await cli(['release', '--slot', 'preview-5', '--lease-id', leaseId, '--json']);
    expect(first.code, show(first)).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      pool: DEMO_POOL,
      slug: 'preview-5',
      previousHolder: 'manual-ana',
      released: true,
      dirty: true,
      holder: 'manual-ana',
      generation: 1,
      leaseVersion: 1,
      conditionFailed: false,
    });
    const again = await cli(['release', '--slot', 'preview-5', '--lease-id', leaseId]);
    expect(again.code, show(again)).toBe(0);
    expect(again.stdout).toContain(
      'Nothing released: that lease is no longer the current lease of preview-5',
    );
  });

  it('exits 1 for a slot the pool does not have', async () => {
    const result = await cli([
      'release',
      '--slot',
      'preview-99',
      '--force',
      '--holder',
      'x',
      '--generation',
      '0',
      '--note',
      'n',
      '--yes',
    ]);
    expect(result.code, show(result)).toBe(1);
    expect(result.stderr).toContain("preview-gc release: pool 'preview-slot' has no slot 'preview-99'");
  });
});

describe('slots', () => {
  it('list shows the inventory, and as JSON', async () => {
    const table = await cli(['slots', 'list']);
    expect(table.code, show(table)).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^Pool preview-slot: 9 slots, \d leased, \d available, \d dirty$/,
    );
    expect(table.stdout).toMatch(/preview-7 +available +– +yes +1 +pr-1603/);
    const json = JSON.parse((await cli(['slots', 'list', '--json'])).stdout) as { slots: Slot[] };
    expect(json.slots.map((slot) => slot.slug)).toEqual(demoSlugs(9));
  });

  it('add adds new slots, once, and refuses a protected name before any call', async () => {
    const added = await cli(['slots', 'add', 'preview-10']);
    expect(added.code, show(added)).toBe(0);
    expect(added.stdout).toMatch(/preview-10 +\+ add/);
    const again = await cli(['slots', 'add', 'preview-10']);
    expect(again.code, show(again)).toBe(0);
    expect(again.stdout).toMatch(/preview-10 +in place +already in the pool/);

    const refused = await cli(['slots', 'add', 'preview-11', 'app-prod-1']);
    expect(refused.code, show(refused)).toBe(1);
    expect(refused.stderr).toContain("refusing to touch slot 'app-prod-1'");
    const slots = await slotsBySlug();
    expect(slots.has('preview-10')).toBe(true);
    expect(slots.has('preview-11')).toBe(false);
  });

  it('remove removes a free slot and keeps a leased one', async () => {
    await client.acquireSpecific({ type: DEMO_POOL, slug: 'preview-9', holder: 'pr-1700', leaseMs: 600_000 });
    const result = await cli(['slots', 'remove', 'preview-10', 'preview-9']);
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout).toMatch(/preview-10 +- remove/);
    expect(result.stdout).toMatch(
      /preview-9 +! keep +a live lease of pr-1700 holds it; run gc, or release it first: preview-gc release --slot preview-9 --force --holder pr-1700 --generation \d+ --note why/,
    );
    const slots = await slotsBySlug();
    expect(slots.has('preview-10')).toBe(false);
    expect(slots.has('preview-9')).toBe(true);
  });

  it('sync --dry-run prints the plan and changes nothing', async () => {
    const result = await cli(['slots', 'sync', '--count', '11', '--dry-run']);
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe('Pool preview-slot: 11 slots wanted, 9 in the pool (dry run)');
    expect(result.stdout).toMatch(/preview-10 +\+ add +in the list, not in the pool/);
    expect(result.stdout).toMatch(/preview-11 +\+ add/);
    expect(result.stdout).toContain('Dry run, nothing was changed: would add 2, would remove 0.');
    expect((await slotsBySlug()).size).toBe(9);
  });

  it('sync adds what is missing, and prunes extras only with --prune and never a leased slot', async () => {
    const grow = await cli(['slots', 'sync', '--count', '11']);
    expect(grow.code, show(grow)).toBe(0);
    expect(grow.stdout).toContain('added 2, removed 0.');
    expect((await slotsBySlug()).size).toBe(11);

    const keep = await cli(['slots', 'sync', '--slugs', 'preview-1,preview-2', '--json']);
    const plan = JSON.parse(keep.stdout) as { changes: { slug: string; action: string; reason: string }[] };
    expect(plan.changes.filter((change) => change.action === 'keep')).toHaveLength(9);
    expect((await slotsBySlug()).size).toBe(11);

    const prune = await cli(['slots', 'sync', '--slugs', 'preview-1,preview-2', '--prune']);
    expect(prune.code, show(prune)).toBe(0);
    expect(prune.stdout).toMatch(/preview-9 +! keep +a live lease of pr-1700 holds it/);
    // preview-5 and preview-7 were released dirty by hand: their data would stay behind.
    expect(prune.stdout).toMatch(/preview-5 +! keep +dirty: it may hold data/);
    expect(prune.stdout).toContain('added 0, removed 6, kept 3 that may not go.');
    const dirtyToo = await cli([
      'slots',
      'sync',
      '--slugs',
      'preview-1,preview-2',
      '--prune',
      '--allow-dirty',
    ]);
    expect(dirtyToo.code, show(dirtyToo)).toBe(0);
    expect(dirtyToo.stdout).toMatch(
      /preview-7 +- remove +not in the list \(dirty: its Cloudflare resources keep their data\)/,
    );
    expect(dirtyToo.stdout).toContain('added 0, removed 2, kept 1 that may not go.');
    expect([...(await slotsBySlug()).keys()]).toEqual(['preview-1', 'preview-2', 'preview-9']);
  });
});

describe('a stopped run', () => {
  it('on SIGTERM releases the lease in hand, reports it and exits 1', async () => {
    await client.release({ type: DEMO_POOL, slug: 'preview-9', force: true });
    // The first Worker upload of the erase hangs, so the signal lands mid-erase.
    twin.faults.add({ method: 'PUT', pathPattern: '/workers/scripts/[^/]+$', delayMs: 5_000, times: 1 });
    const running = startCli(['gc', ...FAST]);
    const deadline = Date.now() + 20_000;
    let held = false;
    while (!held && Date.now() < deadline) {
      held = [...(await slotsBySlug()).values()].some((slot) => slot.holder === 'gc');
      if (!held) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(held).toBe(true);
    running.child.kill('SIGTERM');
    const result = await running.result;
    twin.faults.clear();
    expect(result.code, show(result)).toBe(1);
    expect(result.stdout).toContain('STOPPED  by SIGTERM');
    expect(result.stdout).toContain('■ interrupted');
    expect([...(await slotsBySlug()).values()].filter((slot) => slot.holder === 'gc')).toEqual([]);
  });
});

describe('acquire', () => {
  it('--pr gives the pull request a slot and prints its resources; a second run extends the same lease', async () => {
    const first = await cli(['acquire', '--pr', '1700', ...FAST]);
    expect(first.code, show(first)).toBe(0);
    const headline = first.stdout.split('\n')[0] ?? '';
    expect(headline).toMatch(
      /^✔ preview-gc acquire on pool preview-slot: pull request #1700 has preview-\d until \S+ \d\d:\d\d UTC, a clean slot$/,
    );
    const slug = /has (preview-\d)/.exec(headline)?.[1] ?? '';
    // Each name with the id its deploy binds, as the account lists it.
    const state = twin.state();
    const uuid = state.d1.find((db) => db.name === `shop-${slug}-db`)?.uuid ?? '?';
    const namespaceId = state.kv.find((ns) => ns.title === `shop-${slug}-cache`)?.id ?? '?';
    expect(first.stdout).toContain(
      `Resources   workers: shop-${slug}; d1: shop-${slug}-db (${uuid}); kv: shop-${slug}-cache (${namespaceId}); r2: shop-${slug}-files, shop-${slug}-sandboxes`,
    );
    // Where the preview answers once deployed, in the terminal and in --json.
    const url = `https://shop-${slug}.${twin.account.workers.subdomain}.workers.dev`;
    expect(first.stdout).toContain(`URL         ${url} once the deploy is done`);
    const second = await cli(['acquire', '--pr', '1700', '--json', ...FAST]);
    expect(second.code, show(second)).toBe(0);
    expect((JSON.parse(second.stdout) as RunReport).acquired).toMatchObject({ slug, reused: true, url });
    // Give it back, so the session goes on with the pool as it was.
    await client.release({ type: DEMO_POOL, slug, force: true, ifHolder: 'pr-1700' });
  });
});

describe('output', () => {
  it('never contains a token', () => {
    const everything = printed.join('\n');
    expect(everything.length).toBeGreaterThan(1000);
    for (const token of [semaphore.token, twin.token]) expect(everything).not.toContain(token);
  });
});

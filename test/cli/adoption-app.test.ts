// The README's adoption steps, top to bottom, for an app of a new user's own: a Worker with two
// Durable Object classes, D1 with foreign keys and wrangler's d1_migrations, KV, R2 and a Queue, five
// slots. No hand seeding: the rehearsal (`npm run stack -- --seed … --wrangler-config … --migrations …`)
// makes the slots from the app's own files; `slots sync` and `gc` run as the README says, from the
// app's root; the deploy workflow's steps run as written: the bundled action's acquire, then the real
// wrangler CLI's `d1 migrations apply` and `deploy` from the wrangler config acquire wrote.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import { runAction } from '../support/action-run.ts';
import type { TwinStateDump } from '../twin/account.ts';
import { wranglerFor } from '../twin/wrangler-cli.ts';
import { type CliResult, runCli, startNode } from './run-cli.ts';

const SLOTS = `pool: rooms-preview
resources:
  workers:
    - name: rooms-{slot}
  d1:
    - name: rooms-{slot}-db
  kv:
    - title: rooms-{slot}-cache
  r2:
    - bucket: rooms-{slot}-uploads
      expire: { id: expire-preview-uploads, prefix: "", after: 3h }
  queues:
    - name: rooms-{slot}-jobs
`;

const WRANGLER = `{
  // rooms: chat rooms with presence, as production deploys it.
  "name": "rooms",
  "main": "src/index.js",
  "compatibility_date": "2026-01-01",
  "durable_objects": {
    "bindings": [{ "name": "ROOM", "class_name": "Room" }, { "name": "PRESENCE", "class_name": "Presence" }]
  },
  "migrations": [{ "tag": "v1", "new_sqlite_classes": ["Room", "Presence"] }],
  "d1_databases": [
    { "binding": "DB", "database_name": "rooms-db", "database_id": "11111111-2222-4333-8444-555555555555", "migrations_dir": "migrations" }
  ],
  "kv_namespaces": [{ "binding": "CACHE", "id": "00000000000000000000000000000001" }],
  "r2_buckets": [{ "binding": "UPLOADS", "bucket_name": "rooms-uploads" }],
  "queues": {
    "producers": [{ "binding": "JOBS", "queue": "rooms-jobs" }],
    "consumers": [{ "queue": "rooms-jobs" }]
  }
}
`;

const MIGRATIONS = {
  '0001_orgs_and_users.sql': `CREATE TABLE orgs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  org_id INTEGER NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  email TEXT NOT NULL UNIQUE
);`,
  '0002_rooms.sql': `CREATE TABLE rooms (
  id INTEGER PRIMARY KEY,
  owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE RESTRICT,
  title TEXT NOT NULL
);
CREATE INDEX rooms_owner ON rooms(owner_id);`,
};

const CODE = `import { DurableObject } from 'cloudflare:workers';
export class Room extends DurableObject {}
export class Presence extends DurableObject {}
export default {
  fetch() { return new Response('rooms'); },
  queue() {},
};
`;

let app: string;
let stack: ReturnType<typeof startNode> | undefined;
let env: Record<string, string> = {};

async function stateOf(): Promise<TwinStateDump> {
  const response = await fetch(`${env.CLOUDFLARE_API_BASE_URL?.replace(/\/client\/v4$/, '')}/__twin/state`);
  return (await response.json()) as TwinStateDump;
}

function show(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** The CLI from the app's root, as the README runs it; the twin shares no account limit. */
async function cli(args: string[]): Promise<CliResult> {
  const paced = ['gc'].includes(args[0] ?? '') ? [...args, '--requests-per-second', '50'] : args;
  return runCli(paced, env, 'src/cli.ts', app);
}

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), 'preview-gc-rooms-'));
  await mkdir(join(app, '.github'));
  await mkdir(join(app, 'src'));
  await mkdir(join(app, 'migrations'));
  await mkdir(join(app, 'home'));
  await writeFile(join(app, '.github', 'preview-slots.yml'), SLOTS);
  await writeFile(join(app, 'wrangler.jsonc'), WRANGLER);
  await writeFile(join(app, 'src', 'index.js'), CODE);
  for (const [name, sql] of Object.entries(MIGRATIONS)) await writeFile(join(app, 'migrations', name), sql);
});

afterAll(async () => {
  stack?.child.kill('SIGINT');
  await stack?.result;
  if (app) await rm(app, { recursive: true, force: true });
});

describe("the README's adoption steps, for an app of one's own", () => {
  it('rehearse, add five slots, sweep them, and deploy a preview from the wrangler config acquire writes', {
    timeout: 300_000,
  }, async () => {
    // Step 3's rehearsal: the app's own slot config, wrangler config and migrations, nothing by hand.
    stack = startNode('scripts/stack.ts', [
      '--seed',
      join(app, '.github', 'preview-slots.yml'),
      '--count',
      '5',
      '--wrangler-config',
      join(app, 'wrangler.jsonc'),
      '--migrations',
      join(app, 'migrations'),
      '--semaphore-port',
      '0',
      '--twin-port',
      '0',
    ]);
    let printed = '';
    await new Promise<void>((resolve, reject) => {
      stack?.child.stdout?.on('data', (chunk: Buffer) => {
        printed += chunk.toString('utf8');
        if (printed.includes('# stack ready')) resolve();
      });
      stack?.child.on('exit', (code) => reject(new Error(`the stack exited ${code} before it was ready`)));
    });
    env = Object.fromEntries(
      [...printed.matchAll(/^export (\w+)='([^']*)'$/gm)].map((match) => [match[1] ?? '', match[2] ?? '']),
    );
    expect(printed).toContain(
      "with data in them (your Worker's classes (Room, Presence) and your D1 schema); the semaphore has no pool yet",
    );
    const seeded = await stateOf();
    const db = seeded.d1.find((database) => database.name === 'rooms-preview-4-db');
    expect(
      db?.objects.filter((object) => object.type === 'table').map((object) => [object.name, object.rows]),
    ).toEqual(
      expect.arrayContaining([
        ['d1_migrations', 2],
        ['orgs', 3],
        ['users', 3],
        ['rooms', 3],
      ]),
    );
    expect(seeded.queues.map((queue) => queue.name)).toContain('rooms-preview-5-jobs');

    // Step 3: the plan, the pool, the first sweep's plan, and the sweep.
    const plan = await cli(['slots', 'sync', '--count', '5', '--dirty', '--dry-run']);
    expect(plan.code, show(plan)).toBe(0);
    expect(plan.stderr).toContain('every resource of the 5 slot(s) to add exists');
    const added = await cli(['slots', 'sync', '--count', '5', '--dirty']);
    expect(added.stdout).toContain('added 5 dirty (the next gc erases their data), removed 0.');
    const dryRun = await cli(['gc', '--dry-run']);
    expect(dryRun.code, show(dryRun)).toBe(0);
    // The default erase (drop): the next branch's migrations build its own schema.
    expect(dryRun.stdout).toContain('rooms-preview-1-db: would drop 4 tables, d1_migrations among them');
    const swept = await cli(['gc']);
    expect(swept.code, show(swept)).toBe(0);
    expect(swept.stdout.split('\n')[0]).toBe('✔ preview-gc gc on pool rooms-preview: 5 of 5 reclaimed');

    // Step 5's deploy workflow: acquire, then the deploy step as the README writes it.
    const acquired = await runAction(
      {
        command: 'acquire',
        'pull-request': '42',
        'semaphore-url': env.SEMAPHORE_URL ?? '',
        'semaphore-token': env.SEMAPHORE_TOKEN ?? '',
        'cloudflare-api-token': env.CLOUDFLARE_API_TOKEN ?? '',
        'cloudflare-account-id': env.CLOUDFLARE_ACCOUNT_ID ?? '',
        'cloudflare-api-base-url': env.CLOUDFLARE_API_BASE_URL ?? '',
      },
      { cwd: app },
    );
    expect(acquired.exitCode, acquired.stdout).toBe(0);
    const slug = acquired.outputs.slot ?? '';
    const configPath = acquired.outputs['wrangler-config'] ?? '';
    expect(configPath).toBe(`wrangler.preview-gc.${slug}.jsonc`);
    const report = JSON.parse(acquired.outputs.report ?? '{}') as RunReport;
    expect(report.acquired?.resources.queues[0]?.name).toBe(`rooms-${slug}-jobs`);

    const wrangler = wranglerFor(
      {
        baseUrl: env.CLOUDFLARE_API_BASE_URL ?? '',
        token: env.CLOUDFLARE_API_TOKEN ?? '',
        accountId: env.CLOUDFLARE_ACCOUNT_ID ?? '',
      },
      join(app, 'home'),
    );
    // The erase dropped the schema and wrangler's record of it: the branch's migrations run again, all.
    const migrated = await wrangler(
      app,
      'd1',
      'migrations',
      'apply',
      'DB',
      '--remote',
      '--config',
      configPath,
    );
    expect(migrated.stdout).toMatch(/0001_orgs_and_users\.sql[\s\S]*0002_rooms\.sql/);
    expect(migrated.stdout).not.toContain('No migrations to apply!');
    await wrangler(app, 'deploy', '--config', configPath);

    const after = await stateOf();
    const worker = after.workers.find((candidate) => candidate.name === `rooms-${slug}`);
    expect(worker?.liveClasses.sort()).toEqual(['Presence', 'Room']);
    expect(after.workers.some((candidate) => candidate.name === 'rooms')).toBe(false);
    expect(after.queues.find((queue) => queue.name === `rooms-${slug}-jobs`)).toBeDefined();
    const written = await readFile(join(app, configPath), 'utf8');
    expect(written).toContain(`"database_id": "${report.acquired?.resources.d1[0]?.id}"`);
  });
});

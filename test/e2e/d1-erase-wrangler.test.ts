// The D1 erase against databases the real wrangler CLI made, through the bundled action's gc: a
// tenant's migration (applied with `wrangler d1 migrations apply`, which makes wrangler's own
// `d1_migrations`) plants a trigger that copies every deleted row into `d1_migrations`, and another
// tenant's tables "Ä" and "ä" (two tables to SQLite) hold rows in one of the pair only. After gc,
// wrangler reads back: d1_migrations holds the migration wrangler recorded and nothing else, and every
// table is empty.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoPool } from '../../demo/fixture.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { oracle } from '../d1/support.ts';
import { runAction } from '../support/action-run.ts';
import { expectNoLeaks } from '../support/action-stack.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { type Wrangler, wranglerFor } from '../twin/wrangler-cli.ts';

const TOKENS = { semaphore: 'sem-d1w-5d1e08c3a4', cloudflare: 'cf-d1w-7a93b0e2f6' };
/** Each wrangler start takes seconds on a busy 2-core runner. */
const SLOW = 240_000;

const SMUGGLE = `CREATE TABLE secrets (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE TRIGGER secrets_smuggle AFTER DELETE ON secrets BEGIN
  INSERT INTO d1_migrations (name) VALUES ('smuggled: ' || old.body);
END;
`;

let semaphore: LocalSemaphore;
let twin: Twin;
let dir: string;
let wrangler: Wrangler;

/** One wrangler `d1 execute --remote --json`: each statement's rows. */
async function execute(database: string, sql: string): Promise<Record<string, unknown>[][]> {
  const { stdout } = await wrangler(dir, 'd1', 'execute', database, '--remote', '--json', '--command', sql);
  return (JSON.parse(stdout) as { results: Record<string, unknown>[] }[]).map((result) => result.results);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preview-gc-d1-wrangler-'));
  await mkdir(join(dir, 'home'));
  await mkdir(join(dir, 'migrations'));
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ token: TOKENS.semaphore }),
    startTwin({ token: TOKENS.cloudflare }),
  ]);
  wrangler = wranglerFor(twin, join(dir, 'home'));
  const client = new SemaphoreClient({ baseUrl: semaphore.url, token: TOKENS.semaphore });
  await seedDemoPool(
    client,
    ['smuggle', 'names'].map((slug) => ({ slug, state: 'dirty', holder: `pr-${slug}` })),
    'wz',
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('gc erases databases wrangler made', () => {
  it('leaves nothing a tenant\'s trigger copied into d1_migrations, and empties one-sided "Ä"/"ä" pairs', {
    timeout: SLOW,
  }, async () => {
    await wrangler(dir, 'd1', 'create', 'wz-smuggle-db');
    await wrangler(dir, 'd1', 'create', 'wz-names-db');
    const uuid = twin.account.d1.find('wz-smuggle-db')?.uuid ?? '';
    await writeFile(
      join(dir, 'wrangler.json'),
      JSON.stringify({
        name: 'wz',
        compatibility_date: '2026-01-01',
        d1_databases: [
          { binding: 'DB', database_name: 'wz-smuggle-db', database_id: uuid, migrations_dir: 'migrations' },
        ],
      }),
    );
    await writeFile(join(dir, 'migrations', '0001_secrets.sql'), SMUGGLE);
    await wrangler(dir, 'd1', 'migrations', 'apply', 'DB', '--remote');
    await execute(
      'wz-smuggle-db',
      "INSERT INTO secrets (body) VALUES ('salary 1'), ('salary 2'), ('salary 3')",
    );
    const recorded = (await execute('wz-smuggle-db', 'SELECT id, name, applied_at FROM d1_migrations'))[0];
    expect(recorded).toMatchObject([{ id: 1, name: '0001_secrets.sql' }]);
    await execute(
      'wz-names-db',
      `CREATE TABLE "Ä" (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE "ä" (id INTEGER PRIMARY KEY, v TEXT);
CREATE TABLE "é" (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE "É" (id INTEGER PRIMARY KEY, v TEXT);
INSERT INTO "Ä" (v) VALUES ('upper'), ('upper'); INSERT INTO "é" (v) VALUES ('lower');`,
    );

    const configPath = join(dir, 'wz.yml');
    await writeFile(configPath, 'pool: wz\nresources:\n  d1:\n    - name: wz-{slot}-db\n      erase: rows\n');
    const run = await runAction({
      command: 'gc',
      config: configPath,
      'semaphore-url': semaphore.url,
      'semaphore-token': TOKENS.semaphore,
      'cloudflare-api-token': TOKENS.cloudflare,
      'cloudflare-account-id': twin.accountId,
      'cloudflare-api-base-url': twin.baseUrl,
    });
    expectNoLeaks(run, Object.values(TOKENS));
    const outcomes = JSON.parse(run.outputs.report ?? '{}').slots.map(
      (slot: { slug: string; outcome: string }) => [slot.slug, slot.outcome],
    );
    expect(Object.fromEntries(outcomes)).toEqual({ smuggle: 'reclaimed', names: 'reclaimed' });

    const [migrations, secrets, triggers] = await execute(
      'wz-smuggle-db',
      "SELECT id, name, applied_at FROM d1_migrations; SELECT count(*) AS n FROM secrets; SELECT name FROM sqlite_schema WHERE type = 'trigger'",
    );
    expect(migrations).toEqual(recorded);
    expect(secrets).toEqual([{ n: 0 }]);
    // rows mode keeps the schema: the trigger is there, as the tenant wrote it, and ran on no erase.
    expect(triggers).toEqual([{ name: 'secrets_smuggle' }]);
    expect(
      await execute(
        'wz-names-db',
        'SELECT count(*) AS n FROM "Ä"; SELECT count(*) AS n FROM "ä"; SELECT count(*) AS n FROM "é"; SELECT count(*) AS n FROM "É"',
      ),
    ).toEqual([[{ n: 0 }], [{ n: 0 }], [{ n: 0 }], [{ n: 0 }]]);
    for (const name of ['wz-smuggle-db', 'wz-names-db'])
      expect(oracle(twin.account.d1, name), name).toEqual([]);
  });
});

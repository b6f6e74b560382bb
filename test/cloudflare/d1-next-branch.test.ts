// The next branch gets its own database with the default config (erase: drop): after an erase, its
// `wrangler d1 migrations apply` (the real CLI, as the README's deploy job runs it) builds that
// branch's schema and inserts its migrations' reference rows, and a table only the last tenant's
// migration made is gone. `erase: rows` keeps the schema and says so. `erase: recreate` keeps the
// database's jurisdiction and read replication, and refuses, deleting nothing, what it cannot keep.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSlotConfig } from '../../src/config/slot-config.ts';
import { wranglerFor } from '../twin/wrangler-cli.ts';
import { eraseInNewRun, slotResources, twinForTheseTests } from './support.ts';

const twin = twinForTheseTests();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'd1-next-branch-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ROLES = `CREATE TABLE roles (name TEXT PRIMARY KEY);
INSERT INTO roles (name) VALUES ('admin'), ('editor'), ('viewer');`;
const AUDIT = 'CREATE TABLE audit_log (id INTEGER PRIMARY KEY, what TEXT NOT NULL);';

/** A branch's checkout: a wrangler config naming the slot's database, and its migrations. */
async function branch(name: string, databaseId: string, migrations: Record<string, string>) {
  const root = join(dir, name);
  await mkdir(join(root, 'migrations'), { recursive: true });
  await writeFile(
    join(root, 'wrangler.json'),
    JSON.stringify({
      name: 'app',
      main: 'index.js',
      compatibility_date: '2026-01-01',
      d1_databases: [
        {
          binding: 'DB',
          database_name: 'app-preview-1-db',
          database_id: databaseId,
          migrations_dir: 'migrations',
        },
      ],
    }),
  );
  for (const [file, sql] of Object.entries(migrations)) await writeFile(join(root, 'migrations', file), sql);
  return root;
}

function tablesOf(name: string): string[] {
  const db = twin()
    .state()
    .d1.find((entry) => entry.name === name);
  return (db?.objects ?? []).filter((object) => object.type === 'table').map((object) => object.name);
}

function query(name: string, sql: string): Record<string, unknown>[] {
  const db = twin().account.d1.find(name);
  if (db === undefined) throw new Error(`no database ${name}`);
  return db.execute([{ sql }])[0]?.rows.map((row) => ({ value: row[0] })) ?? [];
}

const config = (erase: string) =>
  `pool: p\nresources:\n  d1:\n    - name: app-{slot}-db\n${erase === '' ? '' : `      erase: ${erase}\n`}`;

describe('the next branch after an erase', () => {
  it('with the default config, migrates from scratch: its reference rows are there, the last tenant’s extra table is not', async () => {
    twin().seed({ d1: [{ name: 'app-preview-1-db' }] });
    const uuid = twin().account.d1.find('app-preview-1-db')?.uuid ?? '';
    const wrangler = wranglerFor(twin(), join(dir, 'home'));
    const apply = (root: string) =>
      wrangler(root, 'd1', 'migrations', 'apply', 'DB', '--remote', '--config', 'wrangler.json');

    // The last tenant: roles (reference rows) and its own audit_log, then its data.
    const last = await branch('feature-audit', uuid, { '0001_roles.sql': ROLES, '0002_audit.sql': AUDIT });
    await apply(last);
    query('app-preview-1-db', "INSERT INTO audit_log (what) VALUES ('tenant secret')");

    const { result } = await eraseInNewRun(twin(), slotResources('preview-1', config('')));
    expect(result.status).toBe('complete');
    expect(result.steps[0]?.summary).toBe(
      "dropped 3 tables, d1_migrations among them (erase: drop is the default: the next deploy's migrations apply runs every migration; erase: rows keeps the schema and d1_migrations)",
    );
    // Same database, same id: the slot's wrangler config stays right.
    expect(twin().account.d1.find('app-preview-1-db')?.uuid).toBe(uuid);

    // The next branch has only the roles migration.
    const next = await branch('feature-roles', uuid, { '0001_roles.sql': ROLES });
    const applied = await apply(next);
    expect(applied.stdout).toContain('0001_roles.sql');
    expect(query('app-preview-1-db', 'SELECT name FROM roles ORDER BY name')).toEqual([
      { value: 'admin' },
      { value: 'editor' },
      { value: 'viewer' },
    ]);
    expect(tablesOf('app-preview-1-db')).not.toContain('audit_log');
  });

  it('with erase: rows, keeps the schema and d1_migrations and says so', async () => {
    twin().seed({
      d1: [
        {
          name: 'app-preview-2-db',
          sql: `${ROLES}
CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TEXT NOT NULL);
INSERT INTO d1_migrations (name, applied_at) VALUES ('0001_roles.sql', '2026-11-01T00:00:00Z');`,
        },
      ],
    });
    const { result } = await eraseInNewRun(twin(), slotResources('preview-2', config('rows')));
    expect(result.steps[0]?.summary).toBe(
      "deleted 3 rows in 1 table, emptied SQLite's sqlite_sequence; kept the schema (1 table) and d1_migrations",
    );
    expect(tablesOf('app-preview-2-db')).toEqual(expect.arrayContaining(['roles', 'd1_migrations']));
  });
});

describe('erase: recreate', () => {
  const RECREATE = `pool: p
resources:
  d1:
    - name: eu-{slot}-db
      erase: recreate
      bound-by: wrangler-config
      location-hint: weur
`;

  it('keeps an eu database in the eu, with its read replication, as the twin reports it', async () => {
    twin().seed({
      d1: [{ name: 'eu-preview-1-db', jurisdiction: 'eu', readReplication: 'auto', sql: ROLES }],
    });
    const oldId = twin().account.d1.find('eu-preview-1-db')?.uuid;
    const { result } = await eraseInNewRun(twin(), slotResources('preview-1', RECREATE));
    expect(result.status).toBe('complete');
    const created = twin()
      .requests()
      .filter((request) => request.method === 'POST' && request.route.endsWith('/d1/database'));
    expect(created.length).toBeGreaterThan(0);
    const db = twin().account.d1.find('eu-preview-1-db');
    expect(db?.uuid).not.toBe(oldId);
    // What Cloudflare's API answers for the new database.
    const cf = new Cloudflare({ apiToken: twin().token, baseURL: twin().baseUrl, maxRetries: 0 });
    const answered = await cf.d1.database.get(db?.uuid ?? '', { account_id: twin().accountId });
    expect(answered.jurisdiction).toBe('eu');
    expect(answered.read_replication).toEqual({ mode: 'auto' });
  });

  it('refuses, deleting nothing, a database whose jurisdiction it cannot create again', async () => {
    twin().seed({ d1: [{ name: 'eu-preview-2-db', jurisdiction: 'ca', sql: ROLES }] });
    const oldId = twin().account.d1.find('eu-preview-2-db')?.uuid;
    const { result } = await eraseInNewRun(twin(), slotResources('preview-2', RECREATE));
    expect(result.status).not.toBe('complete');
    expect(result.steps[0]?.failure?.reason).toBe('refused');
    expect(result.steps[0]?.failure?.message).toBe(
      `the D1 database 'eu-preview-2-db' was not recreated, nothing was deleted: its jurisdiction "ca" is not one preview-gc can create a database in (eu, fedramp, us); use erase: drop for it`,
    );
    expect(twin().account.d1.find('eu-preview-2-db')?.uuid).toBe(oldId);
    expect(tablesOf('eu-preview-2-db')).toContain('roles');
  });

  it('refuses a location hint Cloudflare does not know, at config load', () => {
    expect(() => parseSlotConfig(RECREATE.replace('weur', 'mars'), 'slots.yml')).toThrow(
      /resources\.d1\[0\]\.location-hint: must be one of wnam, enam, weur, eeur, apac, oc/,
    );
    expect(() =>
      parseSlotConfig(
        RECREATE.replace('erase: recreate\n      bound-by: wrangler-config', 'erase: drop'),
        'slots.yml',
      ),
    ).toThrow(/resources\.d1\[0\]\.location-hint: is used only by erase: recreate/);
  });
});

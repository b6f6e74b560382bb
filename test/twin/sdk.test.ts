// The real `cloudflare` SDK (no retries) against the twin over loopback: pagination that ends, D1's
// transaction and foreign-key rules, KV bulk limits, R2 lifecycle semantics, Worker uploads.
import Cloudflare, { APIError } from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwin, type Twin } from './twin.ts';

let twin: Twin;
let cf: Cloudflare;
let account_id: string;

const CHAIN_SQL = `
  CREATE TABLE orgs (id INTEGER PRIMARY KEY, name TEXT);
  CREATE TABLE users (id INTEGER PRIMARY KEY, org INTEGER NOT NULL REFERENCES orgs(id));
  CREATE TABLE audits (id INTEGER PRIMARY KEY, org INTEGER NOT NULL REFERENCES orgs(id) ON DELETE RESTRICT);
  INSERT INTO orgs VALUES (1, 'acme'), (2, 'globex');
  INSERT INTO users VALUES (1, 1), (2, 2);
  INSERT INTO audits VALUES (1, 2);
`;

beforeAll(async () => {
  twin = await startTwin({
    seed: {
      d1: [
        { name: 'chain-db', sql: CHAIN_SQL },
        ...Array.from({ length: 24 }, (_, i) => ({ name: `filler-db-${String(i).padStart(2, '0')}` })),
      ],
      kv: [{ title: 'sessions', generate: { prefix: 'session:', count: 2500 } }, { title: 'empty' }],
      r2: [{ bucket: 'eu-files', jurisdiction: 'eu' }],
      workers: [
        {
          name: 'shop-preview-1',
          migrationTag: 'v1',
          classes: [{ name: 'Room' }, { name: 'Agent' }, { name: 'Sandbox', container: true }],
        },
        { name: 'shop-exports', exportsMode: true, classes: [{ name: 'Counter' }, { name: 'Ledger' }] },
        {
          name: 'shop-consumer',
          bindings: [{ name: 'LEDGER', class_name: 'Ledger', script_name: 'shop-exports' }],
        },
      ],
    },
  });
  account_id = twin.accountId;
  cf = new Cloudflare({ apiToken: twin.token, baseURL: twin.baseUrl, maxRetries: 0 });
});

afterAll(async () => {
  await twin?.close();
});

async function apiError(
  promise: Promise<unknown>,
): Promise<{ status: number | undefined; code: number | undefined; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof APIError) {
      const first = (error.errors as { code?: number; message?: string }[])[0];
      return { status: error.status, code: first?.code, message: first?.message ?? '' };
    }
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** The first error of a failed call as sent, `meta` included (the SDK keeps the body in `error.error`). */
async function rawError(promise: Promise<unknown>): Promise<{
  status: number | undefined;
  code: number | undefined;
  meta?: { details?: Record<string, unknown>[] };
}> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof APIError) {
      const body = error.error as {
        errors?: { code?: number; meta?: { details?: Record<string, unknown>[] } }[];
      };
      const first = body.errors?.[0];
      return { status: error.status, code: first?.code, ...(first?.meta ? { meta: first.meta } : {}) };
    }
    throw error;
  }
  throw new Error('expected the call to fail');
}

function dbId(name: string): string {
  const db = twin.state().d1.find((d) => d.name === name);
  if (!db) throw new Error(`no database ${name}`);
  return db.uuid;
}

function rowsOf(db: string, table: string): number | undefined {
  return twin
    .state()
    .d1.find((d) => d.uuid === db)
    ?.objects.find((o) => o.name === table)?.rows;
}

describe('D1', () => {
  it('lists every database across pages and stops on the empty page', async () => {
    twin.resetRequests();
    const names: string[] = [];
    for await (const db of cf.d1.database.list({ account_id, per_page: 10 })) names.push(db.name ?? '');
    expect(names).toHaveLength(25);
    expect(names).toContain('chain-db');
    expect(twin.requests()).toHaveLength(4); // three pages of 10, 10 and 5, then the empty page
  });

  it('finds a database by uuid and by name', async () => {
    const id = dbId('chain-db');
    expect((await cf.d1.database.get(id, { account_id })).name).toBe('chain-db');
    expect((await cf.d1.database.get('chain-db', { account_id })).uuid).toBe(id);
    expect(await apiError(cf.d1.database.get('missing-db', { account_id }))).toMatchObject({
      status: 404,
      code: 7404,
    });
  });

  it('answers one result per statement, as objects from /query and arrays from /raw', async () => {
    const id = dbId('chain-db');
    const page = await cf.d1.database.query(id, {
      account_id,
      sql: 'SELECT name FROM orgs WHERE id = ?',
      params: ['2'],
    });
    expect(page.result).toHaveLength(1);
    expect(page.result[0]?.results).toEqual([{ name: 'globex' }]);
    const raw = await cf.d1.database.raw(id, {
      account_id,
      sql: 'SELECT id FROM orgs ORDER BY id; SELECT 1 AS one',
    });
    expect(raw.result.map((r) => r.results)).toEqual([
      { columns: ['id'], rows: [[1], [2]] },
      { columns: ['one'], rows: [[1]] },
    ]);
  });

  it('enforces foreign keys, and defers them to the end of the batch when asked', async () => {
    const id = dbId('chain-db');
    const immediate = await apiError(
      cf.d1.database.query(id, { account_id, sql: 'DELETE FROM orgs WHERE id = 1' }),
    );
    expect(immediate).toEqual({
      status: 400,
      code: 7500,
      message: 'FOREIGN KEY constraint failed: SQLITE_CONSTRAINT',
    });

    const deferred = await cf.d1.database.query(id, {
      account_id,
      batch: [
        { sql: 'PRAGMA defer_foreign_keys = on' },
        { sql: 'DELETE FROM orgs WHERE id = 1' },
        { sql: 'DELETE FROM users WHERE org = 1' },
      ],
    });
    expect(deferred.result.map((r) => r.meta?.changes)).toEqual([0, 1, 1]);
    expect(rowsOf(id, 'orgs')).toBe(1);

    // ON DELETE RESTRICT fails at once even while checks are deferred.
    const restrict = await apiError(
      cf.d1.database.query(id, {
        account_id,
        batch: [
          { sql: 'PRAGMA defer_foreign_keys = on' },
          { sql: 'DELETE FROM orgs' },
          { sql: 'DELETE FROM audits' },
        ],
      }),
    );
    expect(restrict.code).toBe(7500);
    // A violation still present at commit fails the whole batch.
    const dangling = await apiError(
      cf.d1.database.query(id, {
        account_id,
        batch: [
          { sql: 'PRAGMA defer_foreign_keys = on' },
          { sql: 'DELETE FROM users' },
          { sql: 'DELETE FROM orgs' },
        ],
      }),
    );
    expect(dangling.message).toBe('FOREIGN KEY constraint failed: SQLITE_CONSTRAINT');
    expect(rowsOf(id, 'users')).toBe(1);
  });

  it('rolls the whole request back when one statement fails', async () => {
    const id = dbId('chain-db');
    const failed = await apiError(
      cf.d1.database.query(id, {
        account_id,
        sql: "INSERT INTO orgs VALUES (9, 'initech'); SELECT * FROM nowhere",
      }),
    );
    expect(failed).toEqual({ status: 400, code: 7500, message: 'no such table: nowhere: SQLITE_ERROR' });
    const check = await cf.d1.database.query(id, {
      account_id,
      sql: 'SELECT count(*) AS n FROM orgs WHERE id = 9',
    });
    expect(check.result[0]?.results).toEqual([{ n: 0 }]);
  });

  it('shows _cf_ tables in sqlite_master but refuses to touch them, and refuses transaction control', async () => {
    const id = dbId('chain-db');
    const listed = await cf.d1.database.query(id, {
      account_id,
      sql: "SELECT name FROM sqlite_master WHERE type = 'table'",
    });
    expect(listed.result[0]?.results).toContainEqual({ name: '_cf_KV' });
    for (const sql of [
      'SELECT * FROM _cf_KV',
      "PRAGMA table_info('_cf_KV')",
      'DROP TABLE _cf_KV',
      'BEGIN',
      'COMMIT',
    ]) {
      expect(await apiError(cf.d1.database.query(id, { account_id, sql }))).toEqual({
        status: 400,
        code: 7500,
        message: 'not authorized: SQLITE_AUTH',
      });
    }
  });
});

describe('KV', () => {
  function namespaceId(title: string): string {
    const ns = twin.state().kv.find((n) => n.title === title);
    if (!ns) throw new Error(`no namespace ${title}`);
    return ns.id;
  }

  it('lists 2,500 keys in pages of 1,000 and ends on cursor ""', async () => {
    const id = namespaceId('sessions');
    twin.resetRequests();
    const names: string[] = [];
    for await (const key of cf.kv.namespaces.keys.list(id, { account_id })) names.push(key.name);
    expect(names).toHaveLength(2500);
    expect(new Set(names).size).toBe(2500);
    expect(twin.requests()).toHaveLength(3);
    const small = await cf.kv.namespaces.keys.list(id, { account_id, limit: 1, prefix: 'session:24' });
    expect(small.result).toHaveLength(10); // the API's minimum limit
  });

  it('bulk-deletes through both endpoints and refuses more than 10,000 names', async () => {
    const id = namespaceId('sessions');
    const names = Array.from({ length: 1000 }, (_, i) => `session:${String(i).padStart(4, '0')}`);
    expect(await cf.kv.namespaces.bulkDelete(id, { account_id, body: names.slice(0, 600) })).toEqual({
      successful_key_count: 600,
      unsuccessful_keys: [],
    });
    const legacy = await cf.delete(`/accounts/${account_id}/storage/kv/namespaces/${id}/bulk`, {
      body: names.slice(600),
    });
    expect(legacy).toMatchObject({ success: true, result: { successful_key_count: 400 } });
    expect(twin.state().kv.find((n) => n.id === id)?.keyCount).toBe(1500);

    const tooMany = Array.from({ length: 10_001 }, (_, i) => `k${i}`);
    expect(await apiError(cf.kv.namespaces.bulkDelete(id, { account_id, body: tooMany }))).toMatchObject({
      status: 400,
      code: 10026,
    });
  });

  it('puts, reads and deletes single values, key names URL-encoded', async () => {
    const id = namespaceId('empty');
    await cf.kv.namespaces.values.update('a/b c', {
      account_id,
      namespace_id: id,
      value: 'hello',
      metadata: '{"x":1}',
    });
    const value = await cf.kv.namespaces.values.get('a/b c', { account_id, namespace_id: id });
    expect(await value.text()).toBe('hello');
    const listed = await cf.kv.namespaces.keys.list(id, { account_id });
    expect(listed.result).toEqual([{ name: 'a/b c', metadata: { x: 1 } }]);
    await cf.kv.namespaces.values.delete('a/b c', { account_id, namespace_id: id });
    expect(
      await apiError(cf.kv.namespaces.values.get('a/b c', { account_id, namespace_id: id })),
    ).toMatchObject({
      status: 404,
      code: 10009,
    });
  });

  it('bulk-puts values with metadata and expiration', async () => {
    const id = namespaceId('empty');
    const body = [
      { key: 'bulk:1', value: 'one', metadata: { n: 1 } },
      {
        key: 'bulk:2',
        value: Buffer.from('two').toString('base64'),
        base64: true,
        expiration: 4_102_444_800,
      },
    ];
    expect(await cf.put(`/accounts/${account_id}/storage/kv/namespaces/${id}/bulk`, { body })).toMatchObject({
      result: { successful_key_count: 2, unsuccessful_keys: [] },
    });
    const listed = await cf.kv.namespaces.keys.list(id, { account_id, prefix: 'bulk:' });
    expect(listed.result).toEqual([
      { name: 'bulk:1', metadata: { n: 1 } },
      { name: 'bulk:2', expiration: 4_102_444_800 },
    ]);
    const two = await cf.kv.namespaces.values.get('bulk:2', { account_id, namespace_id: id });
    expect(await two.text()).toBe('two');
  });
});

describe('R2', () => {
  it('starts a new bucket with the default multipart-abort rule, and a PUT replaces every rule', async () => {
    await cf.r2.buckets.create({ account_id, name: 'fresh-files' });
    expect((await cf.r2.buckets.lifecycle.get('fresh-files', { account_id })).rules).toEqual([
      {
        id: 'Default Multipart Abort Rule',
        enabled: true,
        conditions: { prefix: '' },
        abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 604800 } },
      },
    ]);
    const rule = {
      id: 'expire-all',
      enabled: true,
      conditions: { prefix: '' },
      deleteObjectsTransition: { condition: { type: 'Age' as const, maxAge: 10800 } },
    };
    await cf.r2.buckets.lifecycle.update('fresh-files', { account_id, rules: [rule] });
    expect((await cf.r2.buckets.lifecycle.get('fresh-files', { account_id })).rules).toEqual([rule]);

    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ ...rule, id: `r${i}` }));
    expect(
      await apiError(cf.r2.buckets.lifecycle.update('fresh-files', { account_id, rules: tooMany })),
    ).toMatchObject({
      status: 400,
    });
    const noId = cf.put(`/accounts/${account_id}/r2/buckets/fresh-files/lifecycle`, {
      body: { rules: [{ enabled: true, conditions: {} }] },
    });
    expect((await apiError(noId)).status).toBe(400);
  });

  it('finds a jurisdiction bucket only with its cf-r2-jurisdiction header', async () => {
    expect(await apiError(cf.r2.buckets.lifecycle.get('eu-files', { account_id }))).toEqual({
      status: 404,
      code: 10006,
      message: 'The specified bucket does not exist.',
    });
    const rules = await cf.r2.buckets.lifecycle.get('eu-files', { account_id, 'cf-r2-jurisdiction': 'eu' });
    expect(rules.rules?.map((r) => r.id)).toEqual(['Default Multipart Abort Rule']);
  });

  it('refuses a lifecycle PUT asking for the data catalog check on a bucket with R2 Data Catalog', async () => {
    twin.seed({ r2: [{ bucket: 'catalog-files', dataCatalog: true }] });
    const rules = [
      {
        id: 'expire-all',
        enabled: true,
        conditions: { prefix: '' },
        deleteObjectsTransition: { condition: { type: 'Age' as const, maxAge: 86_400 } },
      },
    ];
    const checked = { headers: { 'cf-r2-data-catalog-check': 'true' } };
    expect(
      await apiError(cf.r2.buckets.lifecycle.update('catalog-files', { account_id, rules }, checked)),
    ).toMatchObject({
      status: 409,
      code: 10081,
    });
    expect(
      twin
        .state()
        .r2.find((b) => b.name === 'catalog-files')
        ?.rules.map((r) => r.id),
    ).toEqual(['Default Multipart Abort Rule']);
    // Without the check (wrangler --force) the rules are taken; a bucket without a catalog takes both.
    await cf.r2.buckets.lifecycle.update('catalog-files', { account_id, rules });
    await cf.r2.buckets.lifecycle.update('fresh-files', { account_id, rules }, checked);
    for (const bucket of ['catalog-files', 'fresh-files'])
      expect(
        twin
          .state()
          .r2.find((b) => b.name === bucket)
          ?.rules.map((r) => r.id),
      ).toEqual(['expire-all']);
  });
});

describe('Workers and Durable Objects', () => {
  const parked = (classes: string[]) =>
    `${classes.map((c) => `export class ${c} {}`).join('\n')}\nexport default { fetch() { return new Response('parked', { status: 503 }); } };`;

  function upload(name: string, metadata: Record<string, unknown> | undefined, code: string) {
    const form = new FormData();
    if (metadata) {
      form.set(
        'metadata',
        new Blob([JSON.stringify({ main_module: 'index.js', ...metadata })], { type: 'application/json' }),
      );
    }
    form.set('index.js', new File([code], 'index.js', { type: 'application/javascript+module' }));
    return cf.put(`/accounts/${account_id}/workers/scripts/${name}`, { body: form }) as Promise<{
      success: boolean;
      result: Record<string, unknown>;
    }>;
  }

  function worker(name: string) {
    const w = twin.state().workers.find((s) => s.name === name);
    if (!w) throw new Error(`no worker ${name}`);
    return w;
  }

  it('requires exactly one JSON metadata part', async () => {
    expect(await apiError(upload('shop-preview-1', undefined, parked([])))).toMatchObject({
      status: 400,
      code: 10021,
    });
  });

  it('checks old_tag, bindings (10061) and classes dropped without a delete (10064)', async () => {
    const deleteRoom = { old_tag: 'v1', new_tag: 'v2', steps: [{ deleted_classes: ['Room'] }] };
    const keep = parked(['Agent', 'Sandbox']);
    expect(
      await apiError(upload('shop-preview-1', { migrations: { ...deleteRoom, old_tag: 'v0' } }, keep)),
    ).toEqual({
      status: 400,
      code: 10079,
      message: 'Migration tag precondition failed; current tag is v1',
    });
    const stillBound = {
      migrations: deleteRoom,
      bindings: [{ type: 'durable_object_namespace', name: 'ROOM', class_name: 'Room' }],
    };
    expect(await apiError(upload('shop-preview-1', stillBound, keep))).toMatchObject({
      status: 400,
      code: 10061,
    });
    expect(
      await apiError(upload('shop-preview-1', { migrations: deleteRoom }, parked(['Sandbox']))),
    ).toMatchObject({
      status: 400,
      code: 10064,
    });
    const container = { old_tag: 'v1', new_tag: 'v2', deleted_classes: ['Sandbox'] };
    expect(
      (await apiError(upload('shop-preview-1', { migrations: container }, parked(['Room', 'Agent']))))
        .message,
    ).toContain("container application 'shop-preview-1-sandbox'");
    expect(worker('shop-preview-1')).toMatchObject({
      migrationTag: 'v1',
      liveClasses: ['Room', 'Agent', 'Sandbox'],
    });
  });

  it('tombstones DO classes with a parked upload and shows it in every listing', async () => {
    const migrations = { old_tag: 'v1', new_tag: 'v2', steps: [{ deleted_classes: ['Room', 'Agent'] }] };
    const answer = await upload('shop-preview-1', { migrations, bindings: [] }, parked(['Sandbox']));
    expect(answer.result).toMatchObject({ id: 'shop-preview-1', migration_tag: 'v2' });
    expect(worker('shop-preview-1')).toMatchObject({
      liveClasses: ['Sandbox'],
      tombstonedClasses: ['Room', 'Agent'],
    });

    const namespaces = [];
    for await (const ns of cf.durableObjects.namespaces.list({ account_id }))
      namespaces.push(`${ns.script}:${ns.class}`);
    expect(namespaces).not.toContain('shop-preview-1:Room');
    expect(namespaces).toContain('shop-preview-1:Sandbox');
    const sandbox = twin.state().durableObjectNamespaces.find((ns) => ns.class === 'Sandbox');
    const objects = [];
    for await (const o of cf.durableObjects.namespaces.objects.list(sandbox?.id ?? '', { account_id }))
      objects.push(o);
    expect(objects).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{64}$/), hasStoredData: true }]);
    const scripts = [];
    for await (const s of cf.workers.scripts.list({ account_id })) scripts.push([s.id, s.migration_tag]);
    expect(scripts).toContainEqual(['shop-preview-1', 'v2']);
    const service = (await cf.get(`/accounts/${account_id}/workers/services/shop-preview-1`)) as {
      result: { default_environment: { script: { migration_tag: string } } };
    };
    expect(service.result.default_environment.script.migration_tag).toBe('v2');
  });

  it('refuses exports tombstones Cloudflare rejects, with per-class details in meta.details', async () => {
    const deleted = { type: 'durable-object', state: 'deleted' };
    const live = { type: 'durable-object', storage: 'sqlite' };
    const blocked = await rawError(
      upload('shop-exports', { exports: { Counter: deleted, Ledger: deleted } }, parked([])),
    );
    expect(blocked).toMatchObject({ status: 400, code: 100402 });
    expect(blocked.meta?.details).toEqual([
      expect.objectContaining({
        class: 'Ledger',
        scenario: 'tombstone_delete_blocked_by_external_bindings',
        referencing_scripts: ['shop-consumer'],
      }),
    ]);
    const inCode = await rawError(
      upload('shop-exports', { exports: { Counter: deleted, Ledger: live } }, parked(['Counter', 'Ledger'])),
    );
    expect(inCode.meta?.details).toEqual([
      expect.objectContaining({ class: 'Counter', scenario: 'tombstone_delete_class_still_in_code' }),
    ]);
    const forgotten = await rawError(
      upload('shop-exports', { exports: { Counter: deleted } }, parked(['Ledger'])),
    );
    expect(forgotten.meta?.details).toEqual([
      expect.objectContaining({ class: 'Ledger', scenario: 'provisioned_class_missing_from_config' }),
    ]);
    expect(
      await apiError(
        upload(
          'shop-exports',
          { exports: { Counter: deleted, Ledger: { ...live, storage: 'kv' } } },
          parked(['Ledger']),
        ),
      ),
    ).toMatchObject({ status: 400, code: 10021 });
    // Every refusal left the script as it was.
    expect(worker('shop-exports')).toMatchObject({
      liveClasses: ['Counter', 'Ledger'],
      tombstonedClasses: [],
    });

    const first = await upload(
      'shop-exports',
      { exports: { Counter: deleted, Ledger: live } },
      parked(['Ledger']),
    );
    expect(first.result.exports_reconciliation).toMatchObject({ deleted: ['Counter'], warnings: [] });
    const again = await upload(
      'shop-exports',
      { exports: { Counter: deleted, Ledger: live } },
      parked(['Ledger']),
    );
    expect(again.result.exports_reconciliation).toMatchObject({
      deleted: [],
      info: [{ scenario: 'stale_tombstone', class: 'Counter' }],
    });
    expect(worker('shop-exports')).toMatchObject({ liveClasses: ['Ledger'], tombstonedClasses: ['Counter'] });
    const listed = [];
    for await (const script of cf.workers.scripts.list({ account_id }))
      if (script.id === 'shop-exports') listed.push(script.exports);
    expect(listed).toEqual([{ Ledger: { type: 'durable-object', storage: 'sqlite' } }]);
  });

  it('keeps a container on only while the upload declares it, and refuses an undeclared one', async () => {
    twin.seed({
      workers: [{ name: 'shop-boxes', exportsMode: true, classes: [{ name: 'Box' }] }],
    });
    const box = (container?: string) => ({
      type: 'durable-object',
      storage: 'sqlite',
      ...(container ? { container } : {}),
    });
    const undeclared = await rawError(
      upload('shop-boxes', { exports: { Box: box('shop-boxes-box') } }, parked(['Box'])),
    );
    expect(undeclared.meta?.details).toEqual([
      expect.objectContaining({ class: 'Box', scenario: 'container_undeclared_reference' }),
    ]);
    expect(worker('shop-boxes').containerClasses).toEqual([]);
    const declared = {
      exports: { Box: box('shop-boxes-box') },
      containers: [{ name: 'shop-boxes-box', class_name: 'Box' }],
    };
    await upload('shop-boxes', declared, parked(['Box']));
    expect(worker('shop-boxes').containerClasses).toEqual(['Box']);
    await upload('shop-boxes', { exports: { Box: box() } }, parked(['Box']));
    expect(worker('shop-boxes')).toMatchObject({ liveClasses: ['Box'], containerClasses: [] });
  });

  it('serves the deployed code back as multipart with cf-entrypoint', async () => {
    await upload('shop-content', {}, 'export default { fetch() { return new Response("hi"); } };');
    const response = await cf.workers.scripts.content.get('shop-content', { account_id }).asResponse();
    expect(response.headers.get('cf-entrypoint')).toBe('index.js');
    const form = await response.formData();
    const module = form.get('index.js');
    expect(module instanceof File ? await module.text() : module).toContain('new Response("hi")');
    expect(await apiError(cf.workers.scripts.content.get('no-such-worker', { account_id }))).toMatchObject({
      status: 404,
      code: 10007,
    });
  });

  it('reads and patches script settings through a multipart settings part', async () => {
    const settings = await cf.workers.scripts.scriptAndVersionSettings.get('shop-preview-1', { account_id });
    expect(settings).toMatchObject({ bindings: [] });
    const form = new FormData();
    form.set(
      'settings',
      new Blob([JSON.stringify({ compatibility_flags: ['nodejs_compat'] })], { type: 'application/json' }),
    );
    await cf.patch(`/accounts/${account_id}/workers/scripts/shop-preview-1/settings`, { body: form });
    const after = await cf.workers.scripts.scriptAndVersionSettings.get('shop-preview-1', { account_id });
    expect(after.compatibility_flags).toEqual(['nodejs_compat']);
  });

  it("lists DO namespaces by page without totals, previews' namespaces under the parent with `preview`", async () => {
    twin.seed({
      workers: [
        {
          name: 'shop-previews',
          migrationTag: 'v1',
          classes: [{ name: 'Room' }],
          previews: [{ slug: 'pr-7', classes: [{ name: 'Room' }, { name: 'Draft' }] }],
        },
      ],
    });
    const body = (await cf.get(`/accounts/${account_id}/workers/durable_objects/namespaces`, {
      query: { per_page: 2 },
    })) as { result_info: Record<string, unknown> };
    expect(body.result_info).toEqual({ page: 1, per_page: 2, count: 2 });
    const rows = [];
    for await (const ns of cf.durableObjects.namespaces.list({ account_id, per_page: 2 })) rows.push(ns);
    const ofWorker = rows.filter((ns) => ns.script === 'shop-previews');
    const described = ofWorker.map((ns) => {
      const slug = (ns as { preview?: { slug: string } }).preview?.slug;
      return `${ns.class}${slug ? ` (preview ${slug})` : ''}`;
    });
    expect(described.sort()).toEqual(['Draft (preview pr-7)', 'Room', 'Room (preview pr-7)']);
  });

  it('lists DO-backed container applications by page token and deletes them', async () => {
    const apps = [];
    for await (const app of cf.containers.applications.list({ account_id, per_page: 1 })) apps.push(app);
    expect(apps).toHaveLength(1);
    const sandbox = twin.state().durableObjectNamespaces.find((ns) => ns.class === 'Sandbox');
    expect(apps[0]).toMatchObject({
      scheduling_policy: 'durable_object',
      durable_objects: { namespace_id: sandbox?.id },
    });
    await cf.containers.applications.delete(apps[0]?.id ?? '', { account_id });
    expect(twin.state().containers).toEqual([]);
    await cf.workers.scripts.delete('shop-consumer', { account_id, force: true });
    expect(await apiError(cf.workers.scripts.delete('shop-consumer', { account_id }))).toMatchObject({
      status: 404,
      code: 10007,
    });
  });
});

describe('tokens and the account', () => {
  const client = (apiToken: string) => new Cloudflare({ apiToken, baseURL: twin.baseUrl, maxRetries: 0 });

  it("verifies a user's token and an account's token on their own routes, and refuses others with 1000", async () => {
    twin.account.addToken('owned-by-the-account', { status: 'active', owner: 'account' });
    twin.account.addToken('expired-user-token', { status: 'expired', owner: 'user' });
    const user = await cf.user.tokens.verify();
    expect(user.status).toBe('active');
    expect(user.id).toMatch(/^[0-9a-f]{32}$/);
    expect((await client('expired-user-token').user.tokens.verify()).status).toBe('expired');
    const owned = client('owned-by-the-account');
    expect((await owned.accounts.tokens.verify({ account_id })).status).toBe('active');
    expect(await apiError(owned.user.tokens.verify())).toMatchObject({ status: 401, code: 1000 });
    expect(await apiError(cf.accounts.tokens.verify({ account_id }))).toMatchObject({
      status: 401,
      code: 1000,
    });
    expect(await apiError(client('never-issued').user.tokens.verify())).toMatchObject({
      status: 401,
      code: 1000,
    });
  });

  it('reads the account for a token with an accepted permission, and refuses a token without one', async () => {
    twin.account.addToken('d1-only', { status: 'active', owner: 'user', permissions: ['D1 Write'] });
    twin.account.addToken('kv-only', {
      status: 'active',
      owner: 'user',
      permissions: ['Workers KV Storage Read'],
    });
    expect((await cf.accounts.get({ account_id })).id).toBe(account_id);
    expect((await client('kv-only').accounts.get({ account_id })).id).toBe(account_id);
    expect(await apiError(client('d1-only').accounts.get({ account_id }))).toMatchObject({
      status: 403,
      code: 10000,
    });
    // Its one permission lets it list D1, and nothing else.
    expect((await client('d1-only').d1.database.list({ account_id })).result.length).toBeGreaterThan(0);
    expect(await apiError(client('d1-only').kv.namespaces.list({ account_id }))).toMatchObject({
      status: 403,
      code: 10000,
    });
    expect(
      await apiError(client('kv-only').kv.namespaces.bulkDelete('x', { account_id, body: ['a'] })),
    ).toMatchObject({
      status: 403,
      code: 10000,
    });
  });
});

// Keeps the twin honest with a client we did not write: the real wrangler CLI, pointed at the twin over
// loopback, creates and reads back D1, KV, R2, Queues and Vectorize resources, and deploys a Worker
// with a Durable Object across a park by preview-gc's erase. Commands run one after another (each
// costs a wrangler start of a few seconds), sharing one twin.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseInNewRun, slotResources } from '../cloudflare/support.ts';
import { startTwin, type Twin } from './twin.ts';
import { type Wrangler, wranglerFor } from './wrangler-cli.ts';

/** Each wrangler start takes seconds on a busy 2-core runner; a test runs up to four of them. */
const SLOW = 90_000;

let twin: Twin;
let dir: string;
let runWrangler: Wrangler;

/** Runs one wrangler command in the shared project directory, with a fresh request log; its stdout. */
async function wrangler(...args: string[]): Promise<string> {
  twin.resetRequests();
  return (await runWrangler(dir, ...args)).stdout;
}

function routesCalled(): string[] {
  return twin.requests().map((r) => `${r.route} -> ${r.status}`);
}

beforeAll(async () => {
  twin = await startTwin();
  dir = mkdtempSync(join(tmpdir(), 'twin-wrangler-'));
  mkdirSync(join(dir, 'home'));
  runWrangler = wranglerFor(twin, join(dir, 'home'));
  writeFileSync(
    join(dir, 'wrangler.json'),
    JSON.stringify({ name: 'twin-honesty', compatibility_date: '2026-01-01' }),
  );
});

afterAll(async () => {
  await twin?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('wrangler against the twin', () => {
  it('creates a D1 database and executes SQL on it remotely', { timeout: SLOW }, async () => {
    expect(await wrangler('d1', 'create', 'honesty-db')).toContain("Successfully created DB 'honesty-db'");
    expect(routesCalled()).toEqual(['POST /accounts/:account/d1/database -> 200']);

    const sql = [
      'CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL)',
      'CREATE TABLE posts (id INTEGER PRIMARY KEY, author INTEGER NOT NULL REFERENCES authors(id))',
      "INSERT INTO authors (name) VALUES ('ada'), ('grace')",
      'INSERT INTO posts (author) VALUES (1), (2), (2)',
      'SELECT a.name, count(*) AS posts FROM authors a JOIN posts p ON p.author = a.id GROUP BY a.name ORDER BY a.name',
    ].join('; ');
    const output = JSON.parse(
      await wrangler('d1', 'execute', 'honesty-db', '--remote', '--json', '--command', sql),
    );
    expect(output).toHaveLength(5);
    expect(output.map((r: { success: boolean }) => r.success)).toEqual([true, true, true, true, true]);
    expect(output[2].meta.changes).toBe(2);
    expect(output[4].results).toEqual([
      { name: 'ada', posts: 1 },
      { name: 'grace', posts: 2 },
    ]);
    // Current wrangler resolves the name with a lookup by name, then queries by uuid.
    expect(routesCalled()).toEqual([
      'GET /accounts/:account/d1/database/:id -> 200',
      'POST /accounts/:account/d1/database/:id/query -> 200',
    ]);
  });

  it('creates a KV namespace, puts, lists and bulk-deletes keys remotely', { timeout: SLOW }, async () => {
    const created = await wrangler('kv', 'namespace', 'create', 'honesty-cache');
    const namespace = twin.state().kv.find((ns) => ns.title === 'honesty-cache');
    expect(namespace).toBeDefined();
    const id = namespace?.id ?? '';
    expect(created).toContain(id);

    await wrangler(
      'kv',
      'key',
      'put',
      'user/1',
      'ada',
      '--namespace-id',
      id,
      '--remote',
      '--metadata',
      '{"v":1}',
    );
    expect(routesCalled()).toEqual(['PUT /accounts/:account/storage/kv/namespaces/:ns/values/:key -> 200']);
    twin.seed({ kv: [{ title: 'honesty-cache', keys: { greeting: 'hello' } }] });

    const listed = JSON.parse(await wrangler('kv', 'key', 'list', '--namespace-id', id, '--remote'));
    expect(listed).toEqual([{ name: 'greeting' }, { name: 'user/1', metadata: { v: 1 } }]);

    writeFileSync(join(dir, 'keys.json'), JSON.stringify(['greeting', 'user/1']));
    await wrangler(
      'kv',
      'bulk',
      'delete',
      join(dir, 'keys.json'),
      '--namespace-id',
      id,
      '--remote',
      '--force',
    );
    expect(routesCalled()).toEqual(['DELETE /accounts/:account/storage/kv/namespaces/:ns/bulk -> 200']);
    expect(twin.state().kv.find((ns) => ns.id === id)?.keyCount).toBe(0);
  });

  it('creates an R2 bucket in a jurisdiction and sets, adds and lists lifecycle rules', {
    timeout: SLOW,
  }, async () => {
    await wrangler('r2', 'bucket', 'create', 'honesty-files', '-J', 'eu');
    expect(twin.state().r2).toEqual([
      {
        name: 'honesty-files',
        jurisdiction: 'eu',
        rules: [expect.objectContaining({ id: 'Default Multipart Abort Rule' })],
        objectCount: 0,
      },
    ]);

    const rules = {
      rules: [
        {
          id: 'expire-everything',
          enabled: true,
          conditions: { prefix: '' },
          deleteObjectsTransition: { condition: { type: 'Age', maxAge: 86400 } },
        },
      ],
    };
    writeFileSync(join(dir, 'lifecycle.json'), JSON.stringify(rules));
    await wrangler(
      'r2',
      'bucket',
      'lifecycle',
      'set',
      'honesty-files',
      '--file',
      join(dir, 'lifecycle.json'),
      '-J',
      'eu',
      '--force',
    );
    // add reads the rules and PUTs the whole list back with the new rule appended.
    await wrangler(
      'r2',
      'bucket',
      'lifecycle',
      'add',
      'honesty-files',
      'expire-tmp',
      'tmp/',
      '--expire-days',
      '3',
      '-J',
      'eu',
      '--force',
    );
    expect(routesCalled()).toEqual([
      'GET /accounts/:account/r2/buckets/:bucket/lifecycle -> 200',
      'PUT /accounts/:account/r2/buckets/:bucket/lifecycle -> 200',
    ]);

    const listed = await wrangler('r2', 'bucket', 'lifecycle', 'list', 'honesty-files', '-J', 'eu');
    expect(listed).toMatch(/name:\s+expire-everything[\s\S]*Expire objects after 1 days/);
    expect(listed).toMatch(/name:\s+expire-tmp[\s\S]*prefix:\s+tmp\/[\s\S]*Expire objects after 3 days/);
    expect(listed).not.toContain('Default Multipart Abort Rule');
  });

  it('puts and deletes an R2 object, and the object listing preview-gc reads shows it in between', {
    timeout: SLOW,
  }, async () => {
    await wrangler('r2', 'bucket', 'create', 'honesty-objects');
    writeFileSync(join(dir, 'a.txt'), 'written by the last tenant');
    await wrangler(
      'r2',
      'object',
      'put',
      'honesty-objects/uploads/a.txt',
      '--file',
      join(dir, 'a.txt'),
      '--remote',
    );
    expect(routesCalled()).toContain('PUT /accounts/:account/r2/buckets/:bucket/objects/* -> 200');

    const sdk = new Cloudflare({ apiToken: twin.token, baseURL: twin.baseUrl, maxRetries: 0 });
    const listing = await sdk.r2.buckets.objects.list('honesty-objects', {
      account_id: twin.accountId,
      per_page: 1000,
    });
    expect(listing.result.map((object) => [object.key, object.size])).toEqual([['uploads/a.txt', 26]]);
    expect(Date.parse(listing.result[0]?.last_modified ?? '')).toBeGreaterThan(Date.now() - 60_000);

    await wrangler('r2', 'object', 'delete', 'honesty-objects/uploads/a.txt', '--remote');
    expect(twin.state().r2.find((bucket) => bucket.name === 'honesty-objects')?.objectCount).toBe(0);
  });

  it('creates, lists and purges a queue', { timeout: SLOW }, async () => {
    expect(await wrangler('queues', 'create', 'honesty-jobs')).toContain("Created queue 'honesty-jobs'");
    expect(routesCalled()).toEqual(['POST /accounts/:account/queues -> 200']);
    const queue = twin.account.queues.findByName('honesty-jobs');
    if (!queue) throw new Error('wrangler created no queue in the twin');
    twin.account.queues.send(queue, [
      { body: 'a', contentType: 'text' },
      { body: { b: 1 }, contentType: 'json' },
    ]);

    const listed = await wrangler('queues', 'list');
    expect(listed).toMatch(new RegExp(`${queue.id}\\s*│\\s*honesty-jobs`));
    expect(routesCalled()).toEqual(['GET /accounts/:account/queues -> 200']);

    // wrangler finds the queue with the name filter of the listing, then purges it by id.
    expect(await wrangler('queues', 'purge', 'honesty-jobs', '--force')).toContain(
      "Purged Queue 'honesty-jobs'",
    );
    expect(routesCalled()).toEqual([
      'GET /accounts/:account/queues -> 200',
      'POST /accounts/:account/queues/:queue/purge -> 200',
    ]);
    expect(twin.account.queues.findByName('honesty-jobs')?.messages).toEqual([]);
  });

  it('creates a Vectorize index, inserts, lists and deletes vectors', { timeout: SLOW }, async () => {
    await wrangler('vectorize', 'create', 'honesty-index', '--dimensions', '3', '--metric', 'cosine');
    expect(routesCalled()).toEqual(['POST /accounts/:account/vectorize/v2/indexes -> 200']);

    const vectors = ['a', 'b', 'c'].map((id, n) => JSON.stringify({ id, values: [n, 1, 0] }));
    writeFileSync(join(dir, 'vectors.ndjson'), vectors.join('\n'));
    expect(
      await wrangler('vectorize', 'insert', 'honesty-index', '--file', join(dir, 'vectors.ndjson')),
    ).toContain("Successfully enqueued 3 vectors into index 'honesty-index'");
    expect(routesCalled()).toEqual(['POST /accounts/:account/vectorize/v2/indexes/:index/insert -> 200']);

    const listed = JSON.parse(await wrangler('vectorize', 'list-vectors', 'honesty-index', '--json'));
    expect(listed).toMatchObject({ count: 3, totalCount: 3, isTruncated: false });
    expect(listed.vectors).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);

    await wrangler('vectorize', 'delete-vectors', 'honesty-index', '--ids', 'a', 'c');
    expect(routesCalled()).toEqual([
      'POST /accounts/:account/vectorize/v2/indexes/:index/delete_by_ids -> 200',
    ]);
    const info = JSON.parse(await wrangler('vectorize', 'info', 'honesty-index', '--json'));
    expect(info).toMatchObject({ dimensions: 3, vectorCount: 1 });
  });

  it('adds a lifecycle rule next to a foreign one, asking for the data catalog check', {
    timeout: SLOW,
  }, async () => {
    const foreign = {
      id: 'team-archive',
      enabled: true,
      conditions: { prefix: 'archive/' },
      storageClassTransitions: [
        { condition: { type: 'Age' as const, maxAge: 2_592_000 }, storageClass: 'InfrequentAccess' as const },
      ],
    };
    twin.seed({
      r2: [
        { bucket: 'honesty-team', rules: [foreign] },
        { bucket: 'honesty-catalog', rules: [foreign], dataCatalog: true },
      ],
    });
    // With a prefix and without --force: no prompt, and the PUT carries the catalog check.
    const add = (bucket: string) =>
      wrangler('r2', 'bucket', 'lifecycle', 'add', bucket, 'expire-tmp', 'tmp/', '--expire-days', '3');

    await add('honesty-team');
    expect(routesCalled()).toEqual([
      'GET /accounts/:account/r2/buckets/:bucket/lifecycle -> 200',
      'PUT /accounts/:account/r2/buckets/:bucket/lifecycle -> 200',
    ]);
    const rulesOf = (bucket: string) => twin.state().r2.find((b) => b.name === bucket)?.rules;
    expect(rulesOf('honesty-team')).toEqual([
      foreign,
      {
        id: 'expire-tmp',
        enabled: true,
        conditions: { prefix: 'tmp/' },
        deleteObjectsTransition: { condition: { type: 'Age', maxAge: 259_200 } },
      },
    ]);

    // On a catalog bucket the checked PUT is refused (409, code 10081); wrangler, not interactive,
    // takes the confirmation's fallback and sends it again without the check.
    await add('honesty-catalog');
    expect(routesCalled()).toEqual([
      'GET /accounts/:account/r2/buckets/:bucket/lifecycle -> 200',
      'PUT /accounts/:account/r2/buckets/:bucket/lifecycle -> 409',
      'PUT /accounts/:account/r2/buckets/:bucket/lifecycle -> 200',
    ]);
    expect(rulesOf('honesty-catalog')?.map((rule) => rule.id)).toEqual(['team-archive', 'expire-tmp']);
  });

  it('deploys a Worker with a Durable Object, and deploys it again after preview-gc parked it', {
    timeout: SLOW,
  }, async () => {
    const app = join(dir, 'rooms');
    mkdirSync(app);
    writeFileSync(
      join(app, 'index.js'),
      [
        "import { DurableObject } from 'cloudflare:workers';",
        'export class Room extends DurableObject {}',
        "export default { fetch() { return new Response('rooms'); } };",
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'wrangler.json'),
      JSON.stringify({
        name: 'rooms-preview-1',
        main: 'index.js',
        compatibility_date: '2026-01-01',
        durable_objects: { bindings: [{ name: 'ROOM', class_name: 'Room' }] },
        migrations: [{ tag: 'v1', new_sqlite_classes: ['Room'] }],
      }),
    );
    const deploy = () => {
      twin.resetRequests();
      return runWrangler(app, 'deploy', '--no-bundle');
    };
    const worker = () => twin.state().workers.find((w) => w.name === 'rooms-preview-1');

    await deploy();
    // A new Worker: every lookup answers 10007, then one upload with the whole migration.
    expect(routesCalled()).toEqual([
      'GET /accounts/:account/workers/services/:name -> 404',
      'GET /accounts/:account/workers/scripts/:name/secrets -> 404',
      'GET /accounts/:account/workers/subdomain -> 200',
      'GET /accounts/:account/workers/scripts/:name/deployments -> 404',
      'GET /accounts/:account/workers/services/:name -> 404',
      'GET /accounts/:account/workers/scripts/:name/settings -> 404',
      'PUT /accounts/:account/workers/scripts/:name -> 200',
      'GET /accounts/:account/workers/workers/:name -> 200',
      'POST /accounts/:account/workers/scripts/:name/subdomain -> 200',
    ]);
    expect(worker()).toMatchObject({ migrationTag: 'v1', liveClasses: ['Room'], mainModule: 'index.js' });

    const config = 'pool: p\nresources:\n  workers:\n    - name: rooms-{slot}\n';
    const parked = await eraseInNewRun(twin, slotResources('preview-1', config));
    expect(parked.result.status).toBe('complete');
    expect(worker()).toMatchObject({ migrationTag: 'preview-gc-1', tombstonedClasses: ['Room'] });

    const { stderr } = await deploy();
    // The parked tag is not in the config: wrangler sends every migration from preview-gc's tag,
    // which creates Room again. It warns first that an API client uploaded the Worker last.
    expect(stderr).toContain('last updated via the script API');
    expect(stderr).toMatch(
      /migration tag "preview-gc-1, which was not found in your wrangler\.json[\s\S]*Applying all available migrations/,
    );
    expect(routesCalled()).toContain('PUT /accounts/:account/workers/scripts/:name -> 200');
    expect(worker()).toMatchObject({
      migrationTag: 'v1',
      liveClasses: ['Room'],
      tombstonedClasses: [],
      mainModule: 'index.js',
    });
  });
});

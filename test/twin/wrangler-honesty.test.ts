// Keeps the twin honest with a client we did not write: the real wrangler CLI, pointed at the twin over
// loopback, creates and reads back D1, KV, R2, Queues and Vectorize resources. Commands run one after another (each costs
// a wrangler start of a few seconds), sharing one twin.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwin, type Twin } from './twin.ts';

const run = promisify(execFile);
/** Each wrangler start takes seconds on a busy 2-core runner; a test runs up to four of them. */
const SLOW = 90_000;
// The CLI bundle that wrangler's bin script spawns; running it directly saves a second Node start.
const WRANGLER = resolve(import.meta.dirname, '../../node_modules/wrangler/wrangler-dist/cli.js');

let twin: Twin;
let dir: string;
let env: NodeJS.ProcessEnv;

/** The environment wrangler sees: the twin's URL, token and account, no other CLOUDFLARE_* variable. */
function wranglerEnv(home: string): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(CLOUDFLARE_|CF_|WRANGLER_)/.test(name)),
  );
  return {
    ...base,
    CLOUDFLARE_API_BASE_URL: twin.baseUrl,
    CLOUDFLARE_API_TOKEN: twin.token,
    CLOUDFLARE_ACCOUNT_ID: twin.accountId,
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    WRANGLER_SEND_METRICS: 'false',
    CI: 'true',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    // Later starts reuse the compiled 15 MB bundle (about a fifth less CPU per command).
    NODE_COMPILE_CACHE: join(home, 'compile-cache'),
  };
}

/** Runs one wrangler command; a failure shows wrangler's own output and the requests it made. */
async function wrangler(...args: string[]): Promise<string> {
  twin.resetRequests();
  try {
    const { stdout } = await run(process.execPath, ['--no-warnings', WRANGLER, ...args], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    const requests = twin.requests().map((r) => `${r.status} ${r.route}`);
    throw new Error(
      `wrangler ${args.join(' ')} failed:\n${stdout}\n${stderr}\nrequests: ${requests.join(', ')}`,
    );
  }
}

function routesCalled(): string[] {
  return twin.requests().map((r) => `${r.route} -> ${r.status}`);
}

beforeAll(async () => {
  twin = await startTwin();
  dir = mkdtempSync(join(tmpdir(), 'twin-wrangler-'));
  mkdirSync(join(dir, 'home'));
  env = wranglerEnv(join(dir, 'home'));
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
});

// Erasing slots for real: the SDK over loopback against the Cloudflare API twin, on the data a
// tenant leaves behind (foreign-key chains, 25,000 KV keys, foreign lifecycle rules, a Worker with
// Durable Objects of which one is backed by a container application).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtectedResourceError } from '../../src/config/slot-config.ts';
import { eraseSlot } from '../../src/erase/erase-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import {
  DEFAULT_MULTIPART_RULE,
  DESIGN_CONFIG,
  eraseInNewRun,
  slotResources,
  slotSeed,
  startRun,
  TEAM_RULE,
  writesIn,
} from './support.ts';

const D1_QUERY = 'POST /accounts/:account/d1/database/:id/query';

let twin: Twin;
beforeAll(async () => {
  twin = await startTwin();
});
afterAll(async () => {
  await twin?.close();
});

function workerOf(name: string) {
  const worker = twin.state().workers.find((candidate) => candidate.name === name);
  if (!worker) throw new Error(`no worker ${name} in the twin`);
  return worker;
}

function tablesOf(name: string) {
  const database = twin.state().d1.find((candidate) => candidate.name === name);
  if (!database) throw new Error(`no database ${name} in the twin`);
  return Object.fromEntries(database.objects.map((object) => [object.name, object.rows ?? object.type]));
}

function rulesOf(bucket: string) {
  return twin.state().r2.find((candidate) => candidate.name === bucket)?.rules;
}

function keyCountOf(title: string) {
  return twin.state().kv.find((candidate) => candidate.title === title)?.keyCount;
}

describe('erasing the demo slot shape', () => {
  const slug = 'preview-1';
  const resources = slotResources(slug);

  it('parks compute, wipes rows in FK order, deletes 25,000 keys and sets the rules, keeping the rest', async () => {
    twin.seed(slotSeed(slug, { kvKeys: 25_000, orders: 40 }));
    twin.resetRequests();
    const { result, pacer } = await eraseInNewRun(twin, resources);

    expect(result.status).toBe('complete');
    expect(result.steps.map((step) => [step.kind, step.resource, step.status, step.summary])).toEqual([
      ['compute', 'app-preview-1', 'done', 'parked; tombstoned Agent, Room; kept Sandbox (container)'],
      [
        'd1',
        'app-preview-1-db',
        'done',
        "deleted 210 rows in 5 tables, emptied SQLite's sqlite_sequence; kept the schema (5 tables, 1 view) and d1_migrations",
      ],
      ['kv', 'app-preview-1-cache', 'done', 'deleted 25,000 keys'],
      [
        'r2',
        'app-preview-1-files',
        'done',
        'added rule expire-preview-files (objects expire after 3h); kept 1 other rule',
      ],
      [
        'r2',
        'app-preview-1-sandboxes',
        'done',
        "replaced rule expire-sandbox-backups (objects under 'backups/' expire after 3h); kept 2 other rules",
      ],
    ]);

    const worker = workerOf('app-preview-1');
    expect(worker.liveClasses).toEqual(['Sandbox']);
    expect(worker.tombstonedClasses.sort()).toEqual(['Agent', 'Room']);
    expect(worker.migrationTag).toBe('preview-gc-1');
    expect(worker.bindings).toEqual([]);
    expect(twin.state().containers.map((app) => app.name)).toContain('app-preview-1-sandbox');

    expect(tablesOf('app-preview-1-db')).toMatchObject({
      customers: 0,
      orders: 0,
      order_items: 0,
      payments: 0,
      refunds: 0,
      d1_migrations: 1,
      order_totals: 'view',
      orders_by_customer: 'index',
    });
    expect(result.steps[1]?.details).toEqual({
      mode: 'rows',
      rowsByTable: { refunds: 10, order_items: 80, payments: 40, orders: 40, customers: 40 },
      rowsLeft: {},
      indexesCleared: [],
      writeRequests: 1,
      dropped: [],
    });
    expect(keyCountOf('app-preview-1-cache')).toBe(0);
    expect(rulesOf('app-preview-1-files')).toEqual([
      DEFAULT_MULTIPART_RULE,
      {
        id: 'expire-preview-files',
        enabled: true,
        conditions: { prefix: '' },
        deleteObjectsTransition: { condition: { type: 'Age', maxAge: 10_800 } },
      },
    ]);
    expect(rulesOf('app-preview-1-sandboxes')).toEqual([
      TEAM_RULE,
      DEFAULT_MULTIPART_RULE,
      {
        id: 'expire-sandbox-backups',
        enabled: true,
        conditions: { prefix: 'backups/' },
        deleteObjectsTransition: { condition: { type: 'Age', maxAge: 10_800 } },
      },
    ]);

    // The request count of one erase of this shape, by kind (reported in the closing note).
    expect(pacer.usage().byKind).toEqual({
      'workers.list': 1,
      // The erase's listing, and the inventory's own after the park.
      'do.namespaces.list': 2,
      'containers.list': 1,
      'workers.upload': 1,
      // Preview URLs off, the deployment serving the Worker, its versions, its Worker Previews.
      'workers.previews.off': 1,
      'workers.schedules.get': 2,
      'workers.deployments.list': 1,
      'workers.versions.list': 1,
      'workers.previews.list': 1,
      'd1.list': 1,
      'd1.query': 3,
      'kv.namespaces.list': 1,
      // 25 pages to find and delete the keys, one that shows none left, and the inventory's listing.
      'kv.keys.list': 27,
      'kv.bulkDelete': 3,
      'r2.buckets.list': 1,
      // Each bucket's rules read by the erase; its inventory lists its objects (none here, so it
      // need not read the rules again).
      'r2.lifecycle.get': 2,
      'r2.lifecycle.put': 2,
      'r2.objects.list': 2,
    });
    expect(result.requests).toBe(53);
    expect(result.steps.map((step) => step.requests)).toEqual([11, 4, 31, 4, 3]);
    expect(twin.requests()).toHaveLength(53);
  });

  it('changes nothing and only reads when the slot is already clean', async () => {
    const before = twin.state();
    twin.resetRequests();
    const { result } = await eraseInNewRun(twin, resources);

    expect(result.status).toBe('complete');
    expect(result.steps.map((step) => [step.status, step.summary])).toEqual([
      ['unchanged', 'already parked; kept Sandbox (container)'],
      ['unchanged', 'no rows in 5 tables'],
      ['unchanged', 'no keys'],
      ['unchanged', 'rules unchanged'],
      ['unchanged', 'rules unchanged'],
    ]);
    // Two D1 queries are reads (the table list and the row counts); everything else is a GET.
    expect(writesIn(twin)).toEqual([D1_QUERY, D1_QUERY]);
    const { rateLimit: _before, ...stateBefore } = before;
    const { rateLimit: _after, ...stateAfter } = twin.state();
    expect(stateAfter).toEqual(stateBefore);
    // One of them reads the Worker's code back: only the code shows that it is still parked.
    expect(twin.requests().map((request) => request.route)).toContain(
      'GET /accounts/:account/workers/scripts/:name/content/v2',
    );
    // And the Worker's cron triggers, read by the erase and by the inventory.
    expect(result.requests).toBe(22);
  });
});

describe('dry run', () => {
  it('reads like a real erase and records what it would change, changing nothing', async () => {
    const slug = 'preview-2';
    twin.seed(slotSeed(slug, { kvKeys: 1_500 }));
    const before = twin.state();
    twin.resetRequests();
    const { result } = await eraseInNewRun(twin, slotResources(slug), { dryRun: true });

    expect(result.status).toBe('complete');
    expect(result.steps.map((step) => [step.status, step.summary])).toEqual([
      ['would-change', 'would park the Worker; tombstone Agent, Room; keep Sandbox (container)'],
      [
        'would-change',
        "would delete 210 rows in 5 tables and empty SQLite's sqlite_sequence; would keep the schema (5 tables, 1 view) and d1_migrations",
      ],
      ['would-change', 'would delete 1,500 keys'],
      ['would-change', 'would add rule expire-preview-files (objects expire after 3h); kept 1 other rule'],
      [
        'would-change',
        "would replace rule expire-sandbox-backups (objects under 'backups/' expire after 3h); kept 2 other rules",
      ],
    ]);
    expect(writesIn(twin)).toEqual([D1_QUERY, D1_QUERY]);
    const { rateLimit: _before, ...stateBefore } = before;
    const { rateLimit: _after, ...stateAfter } = twin.state();
    expect(stateAfter).toEqual(stateBefore);
  });
});

describe('drop mode', () => {
  it('drops tables, views, triggers and d1_migrations in one batch, children first', async () => {
    const slug = 'preview-3';
    twin.seed({
      d1: [
        {
          name: `app-${slug}-db`,
          sql: `${slotSeed(slug).d1?.[0]?.sql}
CREATE TABLE audit (id INTEGER PRIMARY KEY, note TEXT);
CREATE TRIGGER audit_refunds AFTER INSERT ON refunds BEGIN INSERT INTO audit (note) VALUES ('refund'); END;`,
        },
      ],
    });
    const config = `pool: p\nresources:\n  d1:\n    - name: app-{slot}-db\n      erase: drop\n`;
    const resources = slotResources(slug, config);
    const { result } = await eraseInNewRun(twin, resources);

    expect(result.status).toBe('complete');
    expect(result.steps[0]?.summary).toBe('dropped 7 tables, 1 view, 1 trigger');
    // Only Cloudflare's own table is left.
    expect(tablesOf(`app-${slug}-db`)).toEqual({ _cf_KV: 0 });

    twin.resetRequests();
    const again = await eraseInNewRun(twin, resources);
    expect(again.result.steps[0]).toMatchObject({
      status: 'unchanged',
      summary: 'no tables, views or triggers',
    });
    expect(twin.requests().map((request) => request.route)).toEqual([
      'GET /accounts/:account/d1/database',
      D1_QUERY,
    ]);
  });
});

describe('R2 jurisdictions', () => {
  const bucketConfig = (jurisdiction: string) => `pool: p
resources:
  r2:
    - bucket: eu-{slot}-files
      jurisdiction: ${jurisdiction}
      expire: { id: expire-all, after: 2d }
`;

  it('finds and updates an EU bucket with the jurisdiction header, and tells a missing one apart', async () => {
    const slug = 'preview-4';
    twin.seed({ r2: [{ bucket: `eu-${slug}-files`, jurisdiction: 'eu' }] });
    const { result } = await eraseInNewRun(twin, slotResources(slug, bucketConfig('eu')));
    expect(result.steps[0]).toMatchObject({ status: 'done', details: { jurisdiction: 'eu', rule: 'added' } });
    expect(twin.state().r2.find((bucket) => bucket.name === `eu-${slug}-files`)?.rules).toHaveLength(2);

    const missing = await eraseInNewRun(twin, slotResources(slug, bucketConfig('default')));
    expect(missing.result.status).toBe('failed');
    expect(missing.result.steps[0]?.failure).toEqual({
      reason: 'missing',
      message:
        "R2 bucket 'eu-preview-4-files' does not exist in the account (from 'eu-{slot}-files' at resources.r2[0].bucket); create it or fix the template",
    });
  });
});

describe('a slot with a missing resource', () => {
  it('fails that step, naming the resource and its template, and erases the others', async () => {
    const slug = 'preview-5';
    const seed = slotSeed(slug, { kvKeys: 20 });
    twin.seed({ ...seed, kv: [] });
    const { result } = await eraseInNewRun(twin, slotResources(slug));

    expect(result.status).toBe('failed');
    expect(result.steps.map((step) => step.status)).toEqual(['done', 'done', 'failed', 'done', 'done']);
    expect(result.steps[2]?.failure).toEqual({
      reason: 'missing',
      message:
        "KV namespace 'app-preview-5-cache' does not exist in the account (from 'app-{slot}-cache' at resources.kv[0].title); create it or fix the template",
    });
  });
});

describe('fencing', () => {
  it('stops before the first step whose fence answers false', async () => {
    const slug = 'preview-6';
    twin.seed(slotSeed(slug, { kvKeys: 20 }));
    let fences = 0;
    const { result } = await eraseInNewRun(twin, slotResources(slug), { fence: async () => ++fences < 2 });

    expect(result.status).toBe('fenced');
    expect(result.steps.map((step) => step.status)).toEqual([
      'done',
      'not-run',
      'not-run',
      'not-run',
      'not-run',
    ]);
    expect(result.steps[1]?.summary).toBe('not run: the lease was taken over');
    expect(tablesOf(`app-${slug}-db`).customers).toBe(40);
    expect(fences).toBe(2);
  });

  it('treats a fence that throws as a failure and destroys nothing', async () => {
    const slug = 'preview-7';
    twin.seed(slotSeed(slug, { kvKeys: 20 }));
    twin.resetRequests();
    const { result } = await eraseInNewRun(twin, slotResources(slug), {
      fence: async () => {
        throw new Error('semaphore unreachable');
      },
    });
    expect(result.status).toBe('failed');
    expect(result.steps[0]).toMatchObject({
      status: 'failed',
      failure: {
        reason: 'fence',
        message: 'could not renew the lease before this step: semaphore unreachable',
      },
    });
    expect(result.steps.slice(1).every((step) => step.status === 'not-run')).toBe(true);
    expect(twin.requests()).toEqual([]);
  });
});

describe('durable-objects: keep', () => {
  it('parks the code but keeps every class, with its objects, as a stub', async () => {
    const slug = 'preview-9';
    twin.seed(slotSeed(slug, { kvKeys: 20 }));
    const config = 'pool: p\nresources:\n  workers:\n    - name: app-{slot}\n      durable-objects: keep\n';
    const { result } = await eraseInNewRun(twin, slotResources(slug, config));

    expect(result.steps[0]).toMatchObject({
      status: 'done',
      summary:
        'parked; kept Agent (durable-objects: keep), Room (durable-objects: keep), Sandbox (container)',
      details: { mode: 'none', tombstoned: [] },
    });
    const worker = workerOf(`app-${slug}`);
    expect(worker.liveClasses.sort()).toEqual(['Agent', 'Room', 'Sandbox']);
    expect(worker.mainModule).toBe('parked.js');
    const namespaces = twin
      .state()
      .durableObjectNamespaces.filter((namespace) => namespace.script === `app-${slug}`);
    expect(namespaces.map((namespace) => namespace.objects)).toEqual([1, 1, 1]);

    // The code read back is the parked Worker: the next erase has nothing left to do.
    twin.resetRequests();
    const again = await eraseInNewRun(twin, slotResources(slug, config));
    expect(again.result.steps[0]).toMatchObject({ status: 'unchanged' });
    expect(twin.requests().filter((request) => request.method !== 'GET')).toEqual([]);
  });
});

describe('a Worker on declarative exports', () => {
  it('tombstones its classes with exports entries, keeps the container class, and parks only once', async () => {
    const slug = 'preview-10';
    const seed = slotSeed(slug, { kvKeys: 20 });
    const [worker] = seed.workers ?? [];
    twin.seed({
      ...seed,
      workers: worker ? [{ ...worker, migrationTag: undefined, exportsMode: true }] : [],
    });
    const config = 'pool: p\nresources:\n  workers:\n    - name: app-{slot}\n      durable-objects: park\n';

    const first = await eraseInNewRun(twin, slotResources(slug, config));
    expect(first.result.steps[0]).toMatchObject({ status: 'done', details: { mode: 'exports' } });
    expect(workerOf(`app-${slug}`)).toMatchObject({
      tombstonedClasses: ['Room', 'Agent'],
      liveClasses: ['Sandbox'],
    });

    twin.resetRequests();
    const second = await eraseInNewRun(twin, slotResources(slug, config));
    expect(second.result.steps[0]).toMatchObject({ status: 'unchanged' });
    expect(twin.requests().filter((request) => request.method !== 'GET')).toEqual([]);
  });
});

describe('only some steps', () => {
  it('parks compute alone and reports the rest as left for later', async () => {
    const slug = 'preview-8';
    twin.seed(slotSeed(slug, { kvKeys: 20 }));
    const run = startRun(twin);
    const result = await eraseSlot({
      api: run.api,
      resolver: run.resolver,
      resources: slotResources(slug),
      fence: async () => true,
      dryRun: false,
      only: ['compute'],
    });
    expect(result.status).toBe('deferred');
    expect(result.steps.map((step) => step.status)).toEqual([
      'done',
      'not-run',
      'not-run',
      'not-run',
      'not-run',
    ]);
    expect(workerOf(`app-${slug}`).liveClasses).toEqual(['Sandbox']);
  });
});

describe('the protect guard', () => {
  it('refuses a slot whose names match a protect pattern before any Cloudflare call', async () => {
    twin.resetRequests();
    startRun(twin);
    expect(() => slotResources('prod-1', DESIGN_CONFIG)).toThrow(ProtectedResourceError);
    expect(twin.requests()).toEqual([]);
  });
});

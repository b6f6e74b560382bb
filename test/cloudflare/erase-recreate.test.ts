// `erase: recreate` against the twin: a D1 database and a KV namespace are deleted and created again
// under the same name, empty whatever they held, in a few requests; the new store has a new id, which
// the step reports, the run's listing carries (so the inventory reads the new store, and acquire's
// resources name it), and the slot config refuses recreate without saying how the deploy binds it.
import { describe, expect, it } from 'vitest';
import { locateIn } from '../../src/commands/cloudflare-connection.ts';
import { ConfigError, parseSlotConfig } from '../../src/config/slot-config.ts';
import { eraseSlot } from '../../src/erase/erase-slot.ts';
import { everyKind } from '../support/every-kind.ts';
import { slotResources, startRun, twinForTheseTests } from './support.ts';

const twin = twinForTheseTests();

// The slot's Worker is parked first, dropping its bindings: Cloudflare refuses to delete a namespace
// a script binds (10052), and the config is refused without a Worker (test/cloudflare/kv-bound.test.ts).
const CONFIG = `pool: p
resources:
  workers:
    - name: big-{slot}
  d1:
    - name: big-{slot}-db
      erase: recreate
      bound-by: wrangler-config
  kv:
    - title: big-{slot}-cache
      erase: recreate
      bound-by: name
`;

describe('erase: recreate', () => {
  it('deletes and creates the database and the namespace again, empty, and the run hands on the new ids', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `(${i})`).join(', ');
    twin().seed({
      workers: [{ name: 'big-preview-1' }],
      d1: [
        {
          name: 'big-preview-1-db',
          sql: `CREATE TABLE events (n INTEGER); INSERT INTO events VALUES ${rows};`,
        },
      ],
      kv: [{ title: 'big-preview-1-cache', generate: { prefix: 'session:', count: 3000 } }],
    });
    const before = twin().state();
    const oldDb = before.d1.find((db) => db.name === 'big-preview-1-db')?.uuid;
    const oldKv = before.kv.find((ns) => ns.title === 'big-preview-1-cache')?.id;
    twin().resetRequests();

    const run = startRun(twin());
    const result = await eraseSlot({
      api: run.api,
      resolver: run.resolver,
      resources: slotResources('preview-1', CONFIG),
      fence: async () => true,
      dryRun: false,
    });
    expect(result.status).toBe('complete');
    const after = twin().state();
    const db = after.d1.filter((entry) => entry.name === 'big-preview-1-db');
    const kv = after.kv.filter((entry) => entry.title === 'big-preview-1-cache');
    expect(db).toHaveLength(1);
    expect(db[0]?.uuid).not.toBe(oldDb);
    // A new database: only D1's own _cf_KV table, no events.
    expect(db[0]?.objects.filter((object) => object.type === 'table').map((object) => object.name)).toEqual([
      '_cf_KV',
    ]);
    expect(kv).toHaveLength(1);
    expect(kv[0]?.id).not.toBe(oldKv);
    expect(kv[0]?.keyCount).toBe(0);
    const [, d1Step, kvStep] = result.steps;
    expect(d1Step?.summary).toBe(`deleted and created again, empty (new id ${db[0]?.uuid})`);
    expect(kvStep?.summary).toBe(`deleted and created again, empty (new id ${kv[0]?.id})`);
    // KV's inventory read the new namespace: the listing of the run knows its id.
    expect(kvStep?.inventory).toEqual({ state: 'empty', summary: '0 keys' });
    // Two listings, a delete and a create each, the database's settings read before its delete, and
    // the inventory's one key listing: whatever the size.
    const stores = twin()
      .requests()
      .filter((request) => /\/(d1|storage\/kv)\//.test(request.route));
    expect(stores.length).toBeLessThanOrEqual(9);

    // The same run's lookup (acquire's resources) names the new ids, listing nothing again.
    const lookups = twin().requests().length;
    const located = await locateIn(run, slotResources('preview-1', CONFIG));
    expect(located).toEqual({
      resources: everyKind({
        workers: [{ name: 'big-preview-1' }],
        d1: [{ name: 'big-preview-1-db', id: db[0]?.uuid }],
        kv: [{ name: 'big-preview-1-cache', id: kv[0]?.id }],
      }),
    });
    expect(twin().requests().length).toBe(lookups);
  });

  it('says what it would do in a dry run, and changes nothing', async () => {
    twin().seed({
      workers: [{ name: 'big-preview-2' }],
      kv: [{ title: 'big-preview-2-cache', keys: { a: '1' } }],
    });
    const id = twin()
      .state()
      .kv.find((ns) => ns.title === 'big-preview-2-cache')?.id;
    const run = startRun(twin());
    const result = await eraseSlot({
      api: run.api,
      resolver: run.resolver,
      resources: slotResources('preview-2', CONFIG.replace(/ {2}d1:\n(.*\n){3}/, '')),
      fence: async () => true,
      dryRun: true,
    });
    expect(result.steps.find((step) => step.kind === 'kv')?.summary).toBe(
      'would delete the KV namespace and create it again (its id changes)',
    );
    expect(
      twin()
        .state()
        .kv.find((ns) => ns.title === 'big-preview-2-cache')?.id,
    ).toBe(id);
  });

  it('is refused without bound-by, saying why and what to write', () => {
    let message = '';
    try {
      parseSlotConfig(CONFIG.replace('      bound-by: wrangler-config\n', ''), 'slots.yml');
    } catch (error) {
      if (error instanceof ConfigError) message = error.message;
    }
    expect(message).toContain(
      'slots.yml:7:14 resources.d1[0].erase: recreate gives the database a new id at every erase, so a deploy that kept the old id would bind nothing; say how the deploy binds it: bound-by: wrangler-config',
    );
  });
});

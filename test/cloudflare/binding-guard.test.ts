// The binding guard: a slot's template can reach a store production uses (`orders-{n}` → `orders-1`)
// whose name carries no protected word. A store that a Worker other than the slot's own binds is
// never erased: its step is refused naming the Worker and the binding, the slot is not clean, and the
// store keeps its rows. Through the SDK against the twin, the foreign Worker uploaded with the
// bindings a deploy sends.
import { describe, expect, it } from 'vitest';
import { createBindingGuard } from '../../src/erase/binding-guard.ts';
import { eraseSlot } from '../../src/erase/erase-slot.ts';
import { uploadWorker } from '../../src/kinds/workers/api.ts';
import { slotResources, slotSeed, startRun, twinForTheseTests } from './support.ts';

const twin = twinForTheseTests();
const MODULE = {
  name: 'index.js',
  content: 'export default { fetch() { return new Response("shop"); } };',
  type: 'application/javascript+module',
};

function uuidOf(name: string): string {
  const database = twin()
    .state()
    .d1.find((candidate) => candidate.name === name);
  if (!database) throw new Error(`no database ${name}`);
  return database.uuid;
}

function rowsOf(name: string): number {
  const database = twin()
    .state()
    .d1.find((candidate) => candidate.name === name);
  return (database?.objects ?? []).reduce((sum, object) => sum + (object.rows ?? 0), 0);
}

describe('the binding guard', () => {
  it("refuses to erase a store another Worker binds, naming it, and erases the slot's other stores", async () => {
    twin().seed(slotSeed('preview-1'));
    const run = startRun(twin());
    await uploadWorker(
      run.api,
      'shop-api',
      {
        main_module: 'index.js',
        compatibility_date: '2025-06-01',
        bindings: [{ type: 'd1', name: 'ORDERS', database_id: uuidOf('app-preview-1-db') }],
      },
      [MODULE],
    );
    const rowsBefore = rowsOf('app-preview-1-db');
    const guard = createBindingGuard(run.api, run.resolver);
    const result = await eraseSlot({
      api: run.api,
      resolver: run.resolver,
      resources: slotResources('preview-1'),
      fence: async () => true,
      dryRun: false,
      guard,
    });
    expect(result.status).toBe('failed');
    const d1 = result.steps.find((step) => step.kind === 'd1');
    expect(d1?.failure).toMatchObject({ reason: 'refused' });
    expect(d1?.failure?.message).toContain("the Worker 'shop-api', which is not this slot's, binds");
    expect(d1?.failure?.message).toContain('(binding ORDERS)');
    expect(rowsOf('app-preview-1-db')).toBe(rowsBefore);
    expect(result.steps.find((step) => step.kind === 'kv')?.status).toBe('done');
  });

  it("reads each other Worker's bindings once a run, whatever the number of slots it erases", async () => {
    twin().seed(slotSeed('preview-2'));
    twin().seed(slotSeed('preview-3'));
    const run = startRun(twin());
    const guard = createBindingGuard(run.api, run.resolver);
    const settingsPaths = () =>
      twin()
        .requests()
        .filter((request) => request.route === 'GET /accounts/:account/workers/scripts/:name/settings')
        .map((request) => request.path);
    const before = settingsPaths().length;
    for (const slug of ['preview-2', 'preview-3']) {
      const result = await eraseSlot({
        api: run.api,
        resolver: run.resolver,
        resources: slotResources(slug),
        fence: async () => true,
        dryRun: false,
        guard,
      });
      expect(result.steps.find((step) => step.kind === 'd1')?.status).not.toBe('failed');
    }
    const read = settingsPaths().slice(before);
    // The other Workers (shop-api, the other slots' Workers) are read for the first slot, none again.
    expect(read.length).toBeGreaterThan(0);
    expect(new Set(read).size).toBe(read.length);
  });
});

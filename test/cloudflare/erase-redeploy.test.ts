// A slot redeployed by the next pull request is parked again by the next erase, whatever its shape:
// the tenant's upload carries no `tags` (so preview-gc's tag stays on the script, as with wrangler)
// and, for a Worker without classes to tombstone, no migration either. Neither the tag nor the
// migration tag may stand for "already parked"; only the code read back may. Also: refusals the
// erase must explain (a class another Worker binds, a bucket with R2 Data Catalog), and a Worker's
// Worker Previews, whose classes are not its own but go with the previews.
import { describe, expect, it } from 'vitest';
import type { SlotResources } from '../../src/config/slot-config.ts';
import { PARKED_TAG } from '../../src/kinds/workers/parked-worker.ts';
import type { TwinSeed } from '../twin/twin.ts';
import { eraseInNewRun, slotResources, twinForTheseTests, workerIn, writesIn } from './support.ts';

const twin = twinForTheseTests();
const workerOf = (name: string) => workerIn(twin(), name);
const erase = (resources: SlotResources) => eraseInNewRun(twin(), resources);

/** A tenant's upload as wrangler builds it: no tags, its own code, its bindings and lifecycle. */
async function tenantUpload(name: string, metadata: Record<string, unknown>, classes: string[]) {
  const code = [
    ...classes.map((className) => `export class ${className} {}`),
    `export default { fetch() { return new Response('${name} of the next pull request'); } };`,
  ].join('\n');
  const form = new FormData();
  form.set(
    'metadata',
    new Blob([JSON.stringify({ main_module: 'index.js', compatibility_date: '2026-01-01', ...metadata })], {
      type: 'application/json',
    }),
  );
  form.set('index.js', new File([code], 'index.js', { type: 'application/javascript+module' }));
  const response = await fetch(`${twin().baseUrl}/accounts/${twin().accountId}/workers/scripts/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${twin().token}`, 'user-agent': 'wrangler/4' },
    body: form,
  });
  if (!response.ok) throw new Error(`the tenant's upload failed: ${await response.text()}`);
}

const doBindings = (classes: string[]) =>
  classes.map((className) => ({
    type: 'durable_object_namespace',
    name: className.toUpperCase(),
    class_name: className,
  }));

interface Shape {
  name: string;
  config: string;
  seed: NonNullable<TwinSeed['workers']>[number];
  /** The tenant's redeploy after a park. */
  redeploy: (worker: string) => Promise<void>;
  /** Live and tombstoned classes once parked, and those with their container still on. */
  parked: { live: string[]; tombstoned: string[]; containers?: string[] };
}

const park = (slug: string) => `pool: p\nresources:\n  workers:\n    - name: ${slug}-{slot}\n`;
const keep = (slug: string) => `${park(slug)}      durable-objects: keep\n`;

const SHAPES: Shape[] = [
  {
    name: 'a Worker without Durable Objects',
    config: park('plain'),
    seed: { name: 'plain-preview-1' },
    redeploy: (worker) => tenantUpload(worker, { bindings: [] }, []),
    parked: { live: [], tombstoned: [] },
  },
  {
    name: 'a Worker with Durable Objects (migrations)',
    config: park('rooms'),
    seed: { name: 'rooms-preview-1', migrationTag: 'v1', classes: [{ name: 'Room' }, { name: 'Agent' }] },
    // wrangler after a park: "migration tag not found in your config, applying all migrations".
    redeploy: (worker) =>
      tenantUpload(
        worker,
        {
          bindings: doBindings(['Room', 'Agent']),
          migrations: {
            old_tag: 'preview-gc-1',
            new_tag: 'v1',
            steps: [{ new_sqlite_classes: ['Room', 'Agent'] }],
          },
        },
        ['Room', 'Agent'],
      ),
    parked: { live: [], tombstoned: ['Room', 'Agent'] },
  },
  {
    name: 'a Worker whose classes are kept (durable-objects: keep)',
    config: keep('kept'),
    seed: { name: 'kept-preview-1', migrationTag: 'v1', classes: [{ name: 'Room' }] },
    // The migration tag is still the tenant's: wrangler sends no migration at all.
    redeploy: (worker) => tenantUpload(worker, { bindings: doBindings(['Room']) }, ['Room']),
    parked: { live: ['Room'], tombstoned: [] },
  },
  {
    name: 'a Worker whose only class is backed by a container',
    config: park('boxes'),
    seed: { name: 'boxes-preview-1', migrationTag: 'v1', classes: [{ name: 'Box', container: true }] },
    redeploy: (worker) =>
      tenantUpload(
        worker,
        { bindings: doBindings(['Box']), containers: [{ name: 'boxes-preview-1-box', class_name: 'Box' }] },
        ['Box'],
      ),
    parked: { live: ['Box'], tombstoned: [], containers: ['Box'] },
  },
  {
    name: 'a Worker on declarative exports',
    config: park('exported'),
    seed: { name: 'exported-preview-1', exportsMode: true, classes: [{ name: 'Room' }] },
    redeploy: (worker) =>
      tenantUpload(
        worker,
        { bindings: doBindings(['Room']), exports: { Room: { type: 'durable-object', storage: 'sqlite' } } },
        ['Room'],
      ),
    parked: { live: [], tombstoned: ['Room'] },
  },
];

describe('a slot redeployed after a park', () => {
  for (const shape of SHAPES) {
    it(`is parked again by the next erase: ${shape.name}`, async () => {
      twin().seed({ workers: [shape.seed] });
      const resources = slotResources('preview-1', shape.config);
      const worker = shape.seed.name;

      const first = await erase(resources);
      expect(first.result.status).toBe('complete');
      expect(workerOf(worker).mainModule).toBe('parked.js');

      await shape.redeploy(worker);
      // The trap: the tenant's code runs, yet the script still carries preview-gc's tag.
      expect(workerOf(worker)).toMatchObject({ mainModule: 'index.js', tags: [PARKED_TAG] });

      twin().resetRequests();
      const second = await erase(resources);
      expect(second.result.status).toBe('complete');
      expect(second.result.steps[0]).toMatchObject({ status: 'done' });
      const parked = workerOf(worker);
      expect(parked.mainModule).toBe('parked.js');
      expect(parked.liveClasses).toEqual(shape.parked.live);
      expect(parked.tombstonedClasses.sort()).toEqual([...shape.parked.tombstoned].sort());
      expect(parked.containerClasses).toEqual(shape.parked.containers ?? []);

      // Nobody touched it since: the next erase reads, compares and writes nothing.
      twin().resetRequests();
      const third = await erase(resources);
      expect(third.result.steps[0]).toMatchObject({ status: 'unchanged' });
      expect(writesIn(twin())).toEqual([]);
    });
  }
});

describe('a kept container class next to tombstoned ones, on legacy migrations', () => {
  // A known limit (docs/config.md): wrangler, not finding preview-gc's migration tag in its
  // config, sends every migration again, and creating the container class that is still live is
  // refused. Declarative exports match a live class instead, so they have no such limit.
  it("makes the next deploy's replay of every migration fail on the live class (10074)", async () => {
    twin().seed({
      workers: [
        {
          name: 'mixed-preview-1',
          migrationTag: 'v1',
          classes: [{ name: 'Room' }, { name: 'Box', container: true }],
        },
      ],
    });
    const { result } = await erase(slotResources('preview-1', park('mixed')));
    expect(result.status).toBe('complete');
    const replay = tenantUpload(
      'mixed-preview-1',
      {
        bindings: doBindings(['Room', 'Box']),
        containers: [{ name: 'mixed-preview-1-box', class_name: 'Box' }],
        migrations: {
          old_tag: 'preview-gc-1',
          new_tag: 'v1',
          steps: [{ new_sqlite_classes: ['Room', 'Box'] }],
        },
      },
      ['Room', 'Box'],
    );
    await expect(replay).rejects.toThrow(/"code":10074.*'Box'/);
  });
});

describe('a class another Worker binds', () => {
  it('is refused in exports mode, and the erase names the class, the binding and the Worker', async () => {
    twin().seed({
      workers: [
        { name: 'shared-preview-1', exportsMode: true, classes: [{ name: 'Room' }, { name: 'Agent' }] },
        {
          name: 'router',
          bindings: [{ name: 'ROOM_PROXY', class_name: 'Room', script_name: 'shared-preview-1' }],
        },
      ],
    });
    const { result } = await erase(slotResources('preview-1', park('shared')));

    expect(result.status).toBe('failed');
    expect(result.steps[0]).toMatchObject({ status: 'failed', failure: { reason: 'refused' } });
    const message = result.steps[0]?.failure?.message ?? '';
    expect(message).toContain("class Room is still bound by binding ROOM_PROXY of Worker 'router'");
    expect(message).toContain('Remove those bindings');
    expect(message).not.toContain('Agent');
    // Nothing was applied: the tenant's code and every class are still there.
    expect(workerOf('shared-preview-1')).toMatchObject({
      mainModule: 'index.js',
      liveClasses: ['Room', 'Agent'],
    });
  });

  it('is refused in migrations mode (code 10061), and the erase finds the binding itself', async () => {
    twin().seed({
      workers: [
        { name: 'legacy-preview-1', migrationTag: 'v3', classes: [{ name: 'Room' }] },
        {
          name: 'reporter',
          bindings: [{ name: 'ROOMS', class_name: 'Room', script_name: 'legacy-preview-1' }],
        },
      ],
    });
    const { result } = await erase(slotResources('preview-1', park('legacy')));

    expect(result.steps[0]?.failure?.message).toContain(
      "class Room is still bound by binding ROOMS of Worker 'reporter'",
    );
    expect(workerOf('legacy-preview-1')).toMatchObject({ migrationTag: 'v3', liveClasses: ['Room'] });
  });
});

describe('a Worker with Worker Previews', () => {
  it("tombstones the Worker's own classes, and deletes its previews with their namespaces", async () => {
    twin().seed({
      workers: [
        {
          name: 'previewed-preview-1',
          migrationTag: 'v1',
          classes: [{ name: 'Room' }],
          previews: [{ slug: 'pr-12', classes: [{ name: 'Room' }, { name: 'Draft' }] }],
        },
      ],
    });
    const { result } = await erase(slotResources('preview-1', park('previewed')));

    expect(result.status).toBe('complete');
    // Only the Worker's own Room is in the migration: a preview's class in `deleted_classes` would
    // fail the whole upload.
    expect(result.steps[0]).toMatchObject({
      summary: 'parked; tombstoned Room; deleted Worker Preview pr-12',
      details: { tombstoned: ['Room'] },
    });
    const namespaces = twin()
      .state()
      .durableObjectNamespaces.filter((namespace) => namespace.script === 'previewed-preview-1');
    expect(namespaces).toEqual([]);
    expect(workerOf('previewed-preview-1').previews).toEqual([]);
  });
});

describe('a bucket with R2 Data Catalog', () => {
  it('is refused, not forced: the step says why and what to do, and the rules stay', async () => {
    twin().seed({ r2: [{ bucket: 'catalog-preview-1-files', dataCatalog: true }] });
    const config =
      'pool: p\nresources:\n  r2:\n    - bucket: catalog-{slot}-files\n      expire: { id: expire-all, prefix: "", after: 3h }\n';
    const { result } = await erase(slotResources('preview-1', config));

    expect(result.steps[0]).toMatchObject({ status: 'failed', failure: { reason: 'refused' } });
    expect(result.steps[0]?.failure?.message).toContain(
      "R2 Data Catalog is enabled on R2 bucket 'catalog-preview-1-files'",
    );
    expect(
      twin()
        .state()
        .r2.find((bucket) => bucket.name === 'catalog-preview-1-files')?.rules,
    ).toEqual([expect.objectContaining({ id: 'Default Multipart Abort Rule' })]);
  });
});

// After the park, nothing may still run a tenant's code: its versions' preview URLs and aliases,
// older versions and Worker Previews (each with Durable Object storage of its own). The erase turns
// preview URLs off, deletes the old versions and the previews, and the Workers inventory reads back
// what is left, naming it when something is. Also: the requests this costs, and the containers of an
// incoming deploy (a container class the incoming branch no longer declares loses its application,
// then is tombstoned).
import { describe, expect, it } from 'vitest';
import { eraseSlot } from '../../src/erase/erase-slot.ts';
import { listWorkerScripts } from '../../src/kinds/workers/api.ts';
import { computeInventory } from '../../src/kinds/workers/inventory.ts';
import { eraseInNewRun, slotResources, startRun, twinForTheseTests, workerIn, writesIn } from './support.ts';

const twin = twinForTheseTests();
const workerOf = (name: string) => workerIn(twin(), name);
const park = (prefix: string) => `pool: p\nresources:\n  workers:\n    - name: ${prefix}-{slot}\n`;
const HOST = 'preview-gc-twin.workers.dev';

/** Requests of the compute step by kind, from a run's usage. */
function computeRequests(byKind: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(byKind).filter(([kind]) => /^(workers|do|containers)\./.test(kind)),
  );
}

describe('a Worker with preview URLs, aliases and a Worker Preview', () => {
  const worker = 'shop-preview-1';
  const resources = slotResources('preview-1', park('shop'));

  it('is parked with nothing else reachable: preview URLs off, old versions and the preview gone', async () => {
    twin().seed({
      workers: [
        {
          name: worker,
          workersDev: true,
          versions: [{ alias: 'pr-7', tag: 'review', message: 'first review' }, { alias: 'pr-8' }],
          previews: [{ slug: 'pr-9', classes: [{ name: 'Draft', objects: 4 }] }],
        },
      ],
    });
    const before = workerOf(worker);
    // The tenant's three versions answer on their own URLs, the aliases, and the preview.
    expect(before.reachable.map((entry) => entry.url)).toEqual(
      expect.arrayContaining([`https://pr-7-${worker}.${HOST}`, `https://pr-9-${worker}.${HOST}`]),
    );
    twin().resetRequests();
    const { result, pacer } = await eraseInNewRun(twin(), resources);

    expect(result.status).toBe('complete');
    expect(result.steps[0]).toMatchObject({
      status: 'done',
      summary: 'parked (no Durable Object classes); deleted 3 old versions, Worker Preview pr-9',
      inventory: {
        state: 'empty',
        summary: 'no other version reachable, 0 Worker Previews',
      },
    });
    const after = workerOf(worker);
    const [parked] = after.versions;
    expect(after.versions).toHaveLength(1);
    expect(after.deployed).toEqual([{ version_id: parked?.id, percentage: 100 }]);
    expect(after.deployments).toBe(1);
    // workers.dev stays as the team set it: only the parked Worker answers there.
    expect(after.subdomain).toEqual({ enabled: true, previews_enabled: false });
    expect(after.reachable).toEqual([{ url: `https://${worker}.${HOST}`, serves: `version ${parked?.id}` }]);
    expect(after.previews).toEqual([]);
    expect(
      twin()
        .state()
        .durableObjectNamespaces.filter((ns) => ns.script === worker),
    ).toEqual([]);

    expect(computeRequests(pacer.usage().byKind)).toEqual({
      'workers.list': 1,
      'workers.upload': 1,
      'workers.previews.off': 1,
      'workers.schedules.get': 2,
      'workers.deployments.list': 1,
      // The deployment of the first version goes first, so the version can.
      'workers.deployments.delete': 1,
      'workers.versions.delete': 3,
      'workers.previews.delete': 1,
      // The step's listings, and the inventory's own of what the step deleted some of (a Worker
      // without migrations or exports has no Durable Object class to look for).
      'workers.versions.list': 2,
      'workers.previews.list': 2,
    });
    // The run's script listing is made in this step too.
    expect(result.steps[0]?.requests).toBe(15);
  });

  it('only reads when the Worker is already clean', async () => {
    twin().resetRequests();
    const { result } = await eraseInNewRun(twin(), resources);
    expect(result.steps[0]).toMatchObject({
      status: 'unchanged',
      summary: 'already parked',
      inventory: { state: 'empty' },
    });
    expect(writesIn(twin())).toEqual([]);
  });
});

describe('a dry run', () => {
  it('reads the same and says what it would turn off and delete, changing nothing', async () => {
    twin().seed({
      workers: [
        {
          name: 'dry-preview-8',
          workersDev: true,
          versions: [{ alias: 'pr-2' }],
          previews: [{ slug: 'pr-3', classes: [] }],
        },
      ],
    });
    const before = workerOf('dry-preview-8');
    twin().resetRequests();
    const { result } = await eraseInNewRun(twin(), slotResources('preview-8', park('dry')), { dryRun: true });
    expect(result.steps[0]).toMatchObject({
      status: 'would-change',
      summary:
        'would park the Worker; would turn preview URLs off; would delete 2 old versions, Worker Preview pr-3',
    });
    expect(writesIn(twin())).toEqual([]);
    expect(workerOf('dry-preview-8')).toEqual(before);
  });
});

describe('the requests a park costs', () => {
  it('are 7 more than the park alone for a Worker with a Durable Object that never had previews', async () => {
    twin().seed({
      workers: [
        { name: 'rooms-preview-2', migrationTag: 'v1', classes: [{ name: 'Room' }], workersDev: true },
      ],
    });
    const { result, pacer } = await eraseInNewRun(twin(), slotResources('preview-2', park('rooms')));

    expect(result.steps[0]).toMatchObject({ status: 'done', summary: 'parked; tombstoned Room' });
    expect(result.steps[0]?.inventory?.state).toBe('empty');
    expect(computeRequests(pacer.usage().byKind)).toEqual({
      // The park as before: the listings it needs and the upload.
      'workers.list': 1,
      'do.namespaces.list': 2,
      'containers.list': 1,
      'workers.upload': 1,
      // What the old code and the inventory add: the switch (one request that also reads it back),
      // the deployments, the versions, the Worker Previews, and the inventory's own namespace listing
      // (the second do.namespaces.list above).
      'workers.previews.off': 1,
      'workers.deployments.list': 1,
      'workers.versions.list': 1,
      'workers.previews.list': 1,
      // Its cron triggers, read by the erase (none to remove) and read back by the inventory.
      'workers.schedules.get': 2,
    });
    // No version of a Worker with a Durable Object has a preview URL: none to delete.
    expect(workerOf('rooms-preview-2').versions).toHaveLength(2);
  });
});

describe('the inventory, on its own', () => {
  it('names what a tenant left, read without the erase', async () => {
    twin().seed({
      workers: [
        {
          name: 'left-preview-3',
          migrationTag: 'v1',
          classes: [{ name: 'Room' }],
          workersDev: true,
          previews: [
            { slug: 'pr-7', classes: [] },
            { slug: 'pr-9', classes: [] },
          ],
        },
        { name: 'plain-preview-3', workersDev: true, versions: [{ alias: 'pr-4' }] },
      ],
    });
    const run = startRun(twin());
    const scripts = await listWorkerScripts(run.api);
    const inventoryOf = async (prefix: string) => {
      const [resource] = slotResources('preview-3', park(prefix)).workers;
      const script = scripts.find((candidate) => candidate.name === resource?.name);
      if (!resource || !script) throw new Error('the seeded Worker is missing');
      return computeInventory({ api: run.api, resolver: run.resolver }, resource, script, undefined);
    };

    const rooms = await inventoryOf('left');
    expect(rooms.state).toBe('left');
    expect(rooms.items).toEqual([
      expect.stringMatching(/^the serving version [0-9a-f]{8}… does not run the parked Worker$/),
      'preview URLs are on',
      '2 Worker Previews: pr-7, pr-9',
      'Durable Object class Room is live (no container application backs it)',
    ]);

    const plain = await inventoryOf('plain');
    const [deployed, uploaded] = workerOf('plain-preview-3').versions;
    expect(plain.items).toEqual([
      `the serving version ${deployed?.id.replaceAll('-', '').slice(0, 8)}… does not run the parked Worker`,
      'preview URLs are on',
      `version ${uploaded?.id.replaceAll('-', '').slice(0, 8)}… still reachable by its preview URL`,
    ]);
  });
});

describe('a failure after the park', () => {
  it('says the Worker was parked, and leaves the slot dirty', async () => {
    twin().seed({ workers: [{ name: 'stuck-preview-4', previews: [{ slug: 'pr-5', classes: [] }] }] });
    twin().faults.add({
      route: 'DELETE /accounts/:account/workers/workers/:name/previews/:preview',
      status: 403,
      code: 10000,
    });
    try {
      const { result } = await eraseInNewRun(twin(), slotResources('preview-4', park('stuck')));
      expect(result.status).toBe('failed');
      expect(result.steps[0]).toMatchObject({
        status: 'failed',
        summary: 'parked the Worker, then failed: Cloudflare refused a call',
        failure: { reason: 'api' },
      });
      expect(workerOf('stuck-preview-4')).toMatchObject({ mainModule: 'parked.js', previews: ['pr-5'] });
    } finally {
      twin().faults.clear();
    }
  });
});

describe('containers, for an incoming deploy', () => {
  const seed = (name: string) => ({
    name,
    migrationTag: 'v1',
    classes: [{ name: 'Room' }, { name: 'Sandbox', container: true }, { name: 'Builder', container: true }],
  });
  const eraseFor = async (
    slug: string,
    config: string,
    incoming?: { containerClasses: string[] },
    dryRun = false,
  ) => {
    const run = startRun(twin());
    return eraseSlot({
      api: run.api,
      resolver: run.resolver,
      resources: slotResources(slug, config),
      fence: async () => true,
      dryRun,
      incoming,
    });
  };
  const applications = () =>
    twin()
      .state()
      .containers.map((app) => app.name);

  it('deletes the application of a class the branch no longer declares, then tombstones the class', async () => {
    twin().seed({ workers: [seed('boxes-preview-5')] });
    const config = park('boxes');

    const dry = await eraseFor('preview-5', config, { containerClasses: ['Sandbox'] }, true);
    expect(dry.steps[0]?.summary).toBe(
      'would park the Worker; would delete container application boxes-preview-5-builder (class Builder no longer declared); tombstone Builder, Room; keep Sandbox (container)',
    );
    expect(applications()).toContain('boxes-preview-5-builder');

    const result = await eraseFor('preview-5', config, { containerClasses: ['Sandbox'] });
    expect(result.status).toBe('complete');
    expect(result.steps[0]).toMatchObject({
      summary:
        'parked; deleted container application boxes-preview-5-builder (class Builder no longer declared); tombstoned Builder, Room; kept Sandbox (container)',
      details: { retired: [{ className: 'Builder', application: 'boxes-preview-5-builder' }] },
      inventory: { state: 'empty' },
    });
    expect(applications()).not.toContain('boxes-preview-5-builder');
    expect(applications()).toContain('boxes-preview-5-sandbox');
    expect(workerOf('boxes-preview-5')).toMatchObject({
      liveClasses: ['Sandbox'],
      tombstonedClasses: ['Room', 'Builder'],
      containerClasses: ['Sandbox'],
    });
  });

  it('keeps every container class for gc, which has no incoming deploy', async () => {
    twin().seed({ workers: [seed('boxes-preview-6')] });
    const result = await eraseFor('preview-6', park('boxes'));
    expect(result.steps[0]?.summary).toBe(
      'parked; tombstoned Room; kept Builder (container), Sandbox (container)',
    );
    expect(applications()).toEqual(
      expect.arrayContaining(['boxes-preview-6-builder', 'boxes-preview-6-sandbox']),
    );
  });

  it('uploads nothing when the application cannot be deleted: the class stays until it can', async () => {
    twin().seed({ workers: [seed('boxes-preview-7')] });
    twin().faults.add({
      route: 'DELETE /accounts/:account/containers/applications/:id',
      status: 403,
      code: 10000,
    });
    try {
      const result = await eraseFor('preview-7', park('boxes'), { containerClasses: [] });
      expect(result.steps[0]).toMatchObject({ status: 'failed', failure: { reason: 'api' } });
      // Nothing was uploaded: the classes and their applications are as they were.
      expect(workerOf('boxes-preview-7').liveClasses.sort()).toEqual(['Builder', 'Room', 'Sandbox']);
      expect(applications()).toEqual(
        expect.arrayContaining(['boxes-preview-7-builder', 'boxes-preview-7-sandbox']),
      );
    } finally {
      twin().faults.clear();
    }
  });
});

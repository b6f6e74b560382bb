// `slots provision` only creates: a script upload is an upsert, so a Worker the account's listing
// missed would be overwritten by the shell; and an existing bucket's own lifecycle rules must stay.
// Through the real SDK against the twin, calling each kind's create as provision does.
import { describe, expect, it } from 'vitest';
import { operationsOf } from '../../src/kinds/operations.ts';
import { KIND_LIST } from '../../src/kinds/registry.ts';
import type { EraseContext } from '../../src/kinds/step.ts';
import { startRun, twinForTheseTests, workerIn } from '../cloudflare/support.ts';

const twin = twinForTheseTests();
const workers = KIND_LIST.find((kind) => kind.key === 'workers');

/** Provision's create of a Worker, in a run of its own. */
function createWorker(name: string): Promise<void> {
  if (workers === undefined) throw new Error('no workers kind');
  const run = startRun(twin());
  const context: EraseContext = { api: run.api, resolver: run.resolver, dryRun: false };
  const worker = { name, template: 'made-{slot}', path: 'resources.workers[0].name' };
  return operationsOf(workers).create(context, worker);
}

describe('provision creates, and never changes what exists', () => {
  it('refuses to upload over a Worker that exists, naming it, and leaves its code as it was', async () => {
    twin().seed({ workers: [{ name: 'made-preview-1', migrationTag: 'v1', classes: [{ name: 'Room' }] }] });
    const before = JSON.stringify(workerIn(twin(), 'made-preview-1'));
    await expect(createWorker('made-preview-1')).rejects.toThrow(
      "the Worker 'made-preview-1' exists already",
    );
    expect(JSON.stringify(workerIn(twin(), 'made-preview-1'))).toBe(before);
    expect(
      twin()
        .requests()
        .filter((request) => request.method === 'PUT'),
    ).toEqual([]);
  });

  it('creates a Worker that does not exist', async () => {
    await createWorker('made-preview-2');
    expect(workerIn(twin(), 'made-preview-2').name).toBe('made-preview-2');
  });
});

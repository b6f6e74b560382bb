// The Vectorize step against the twin's indexes in-process (the real SDK; no server): every vector of
// the slot's index goes and no other index is touched, a dry run writes nothing, deletes Vectorize has
// not applied within the wait are reported as still running, a missing index is named, the budget
// stops a big index part-way (the next run finishes it), and 429s go through the pacer.
import { toFile } from 'cloudflare';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseSlotConfig, resourcesForSlot } from '../../src/config/slot-config.ts';
import { eraseInNewRun, type InProcessTwin, inProcessTwin, routesServed } from './in-process-twin.ts';

const CONFIG = parseSlotConfig(
  'pool: preview-slot\nresources:\n  vectorize:\n    - name: app-{slot}-embeddings\n',
  'preview-slots.yml',
);
const INDEXES = 'GET /accounts/:account/vectorize/v2/indexes';
const LIST = 'GET /accounts/:account/vectorize/v2/indexes/:index/list';
const DELETE = 'POST /accounts/:account/vectorize/v2/indexes/:index/delete_by_ids';
const INFO = 'GET /accounts/:account/vectorize/v2/indexes/:index/info';

let env: InProcessTwin;
beforeEach(() => {
  env = inProcessTwin();
});

/** An index of 3 dimensions holding `count` vectors, put there through the API as ndjson. */
async function indexWith(name: string, count: number): Promise<void> {
  const account_id = env.twin.accountId;
  await env.sdk.vectorize.indexes.create({ account_id, name, config: { dimensions: 3, metric: 'cosine' } });
  const lines = Array.from({ length: count }, (_, n) =>
    JSON.stringify({ id: `doc-${String(n).padStart(5, '0')}`, values: [n, 1, 0], metadata: { n } }),
  );
  for (let from = 0; from < lines.length; from += 5_000) {
    const body = await toFile(Buffer.from(lines.slice(from, from + 5_000).join('\n')), 'vectors.ndjson');
    await env.sdk.vectorize.indexes.insert(name, { account_id, body });
  }
}

async function vectorCountOf(name: string): Promise<number | undefined> {
  const info = await env.sdk.vectorize.indexes.info(name, { account_id: env.twin.accountId });
  return info?.vectorCount;
}

const eraseVectorsOf = (slug: string, options: Parameters<typeof eraseInNewRun>[2] = {}) =>
  eraseInNewRun(env, resourcesForSlot(CONFIG, slug), options);

describe('erasing a slot with a Vectorize index', () => {
  it("deletes every vector of the slot's index, page by page, and no other index's", async () => {
    await indexWith('app-preview-1-embeddings', 2_500);
    await indexWith('app-preview-2-embeddings', 10);

    const { result } = await eraseVectorsOf('preview-1');

    expect(result.status).toBe('complete');
    expect(result.steps).toEqual([
      {
        kind: 'vectorize',
        resource: 'app-preview-1-embeddings',
        status: 'done',
        summary: 'deleted 2,500 vectors',
        details: { vectorsDeleted: 2_500, listings: 3 },
        requests: 8,
        // Read back by the index's inventory: the count, once Vectorize has applied the deletes.
        inventory: { state: 'empty', summary: '0 vectors' },
      },
    ]);
    expect(routesServed(env)).toEqual([
      `${INDEXES} -> 200`,
      `${LIST} -> 200`,
      `${DELETE} -> 200`,
      `${LIST} -> 200`,
      `${DELETE} -> 200`,
      `${LIST} -> 200`,
      `${DELETE} -> 200`,
      `${INFO} -> 200`,
    ]);
    expect(await vectorCountOf('app-preview-1-embeddings')).toBe(0);
    expect(await vectorCountOf('app-preview-2-embeddings')).toBe(10);
    // The index itself stays for the next deploy.
    expect(env.twin.vectorize.get('app-preview-1-embeddings')?.dimensions).toBe(3);
  });

  it('says how many vectors a dry run would delete, and writes nothing', async () => {
    await indexWith('app-preview-1-embeddings', 1_200);

    const { result } = await eraseVectorsOf('preview-1', { dryRun: true });

    expect(result.steps[0]).toMatchObject({ status: 'would-change', summary: 'would delete 1,200 vectors' });
    expect(env.twin.requests().every((request) => request.method === 'GET')).toBe(true);
    expect(await vectorCountOf('app-preview-1-embeddings')).toBe(1_200);
  });

  it('changes nothing in an empty index, with one listing', async () => {
    await indexWith('app-preview-1-embeddings', 0);
    const { result } = await eraseVectorsOf('preview-1');
    expect(result.status).toBe('complete');
    // The listing of indexes, one of vector ids, and the inventory's read of the count.
    expect(result.steps[0]).toMatchObject({ status: 'unchanged', summary: 'no vectors', requests: 3 });
  });

  it('reports deletes Vectorize has not applied within the wait, and the next run finishes', async () => {
    await indexWith('app-preview-1-embeddings', 30);
    env.twin.vectorize.mutationDelayMs = 120_000;

    const first = await eraseVectorsOf('preview-1');

    expect(first.result.status).toBe('deferred');
    expect(first.result.steps[0]).toMatchObject({
      status: 'failed',
      summary: 'deleted 30 vectors, then still running at Cloudflare; the next run checks again',
      details: { vectorsDeleted: 30, listings: 1 },
      inventory: { state: 'settling' },
      failure: {
        reason: 'pending',
        message:
          'the index still counted 30 vectors after 31 s (Vectorize applies deletes later); the next run erases and reads it again',
      },
    });

    env.clock.time += 120_000;
    const next = await eraseVectorsOf('preview-1');
    expect(next.result.status).toBe('complete');
    expect(next.result.steps[0]?.summary).toBe('no vectors');
  });

  it('waits for deletes that Vectorize applies within the wait', async () => {
    await indexWith('app-preview-1-embeddings', 30);
    env.twin.vectorize.mutationDelayMs = 5_000;

    const { result } = await eraseVectorsOf('preview-1');

    expect(result.status).toBe('complete');
    // Read at once, after 1 s, 2 s and 4 s: the count is 0 at the fourth read (7 s).
    expect(env.twin.requests().filter((request) => request.route === INFO)).toHaveLength(4);
  });

  it('names an index that does not exist, like every other kind', async () => {
    const { result } = await eraseVectorsOf('preview-9');
    expect(result.status).toBe('failed');
    expect(result.steps[0]?.failure).toEqual({
      reason: 'missing',
      message:
        "Vectorize index 'app-preview-9-embeddings' does not exist in the account (from 'app-{slot}-embeddings' at resources.vectorize[0].name); create it or fix the template",
    });
  });
});

describe('the request budget and 429', () => {
  it('stops a big index part-way at the budget, keeps what was deleted, and the next run goes on', async () => {
    await indexWith('app-preview-1-embeddings', 3_000);

    const first = await eraseVectorsOf('preview-1', { pacer: { budget: 4 } });

    expect(first.result.status).toBe('deferred');
    expect(first.result.steps[0]).toMatchObject({
      status: 'failed',
      summary: "deleted 1,000 vectors, then stopped: the run's request budget is used up",
      details: { vectorsDeleted: 1_000, listings: 2 },
    });
    expect(await vectorCountOf('app-preview-1-embeddings')).toBe(2_000);

    const next = await eraseVectorsOf('preview-1');
    expect(next.result.status).toBe('complete');
    expect(next.result.steps[0]?.summary).toBe('deleted 2,000 vectors');
  });

  it('waits out a short Retry-After on a delete through the pacer', async () => {
    await indexWith('app-preview-1-embeddings', 20);
    env.twin.faults.add({ route: DELETE, status: 429, retryAfter: 3, times: 1 });

    const { result, pacer } = await eraseVectorsOf('preview-1');

    expect(result.status).toBe('complete');
    expect(pacer.usage()).toMatchObject({ rateLimited: 1, retries: 1 });
    expect(pacer.usage().waitedMs).toBeGreaterThanOrEqual(3_000);
    expect(await vectorCountOf('app-preview-1-embeddings')).toBe(0);
  });
});

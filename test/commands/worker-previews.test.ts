// The sweep's calls against the twin (src/commands/worker-previews.ts), where Cloudflare misbehaves:
// a delete that keeps failing is reported, not counted; a delete answered "not found" counts only if
// the listing after it no longer shows the preview (it is observed, not assumed); a run out of budget
// judges no preview it could not read.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandContext, WorkerPreviewsAccess } from '../../src/commands/context.ts';
import { sweepWorkerPreviews } from '../../src/commands/worker-previews.ts';
import type { GitHubPullRequests } from '../../src/github/pull-requests.ts';
import { startRun } from '../cloudflare/support.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const DELETE = 'DELETE /accounts/:account/workers/workers/:name/previews/:preview';
let twin: Twin;

beforeEach(async () => {
  twin = await startTwin({
    seed: {
      workers: [{ name: 'shop', previews: ['pr-1', 'pr-2', 'pr-3'].map((slug) => ({ slug, classes: [] })) }],
    },
  });
});

afterEach(async () => {
  await twin.close();
});

/** Every pull request closed, as one page of the listing says. */
const github = {
  list: async () =>
    [1, 2, 3].map((number) => ({ number, title: 't', state: 'closed' as const, headRef: `b${number}` })),
} as unknown as GitHubPullRequests;

function sweep(budget?: number) {
  const { api } = startRun(twin, budget === undefined ? {} : { budget });
  const access: WorkerPreviewsAccess = {
    entries: [{ worker: 'shop', ttlSeconds: 86_400, keep: [], max: undefined }],
    protection: () => undefined,
    api: async () => api,
    deadlineAt: Number.POSITIVE_INFINITY,
  };
  const ctx = { github, now: Date.now, signal: new AbortController().signal } as unknown as CommandContext;
  const warnings: string[] = [];
  return sweepWorkerPreviews(ctx, access, false, warnings);
}

const previewsLeft = () =>
  (twin.account.workers.scripts.get('shop')?.previews ?? []).map((preview) => preview.name).sort();

describe('sweepWorkerPreviews against a misbehaving API', () => {
  it('reports a delete that keeps failing, and counts a "not found" only once the listing shows it gone', async () => {
    // pr-1's delete fails on every attempt; pr-2's is answered 404 10025 although it is still there.
    twin.faults.add({ route: DELETE, pathPattern: '/previews/[^/]+$', status: 500, times: 4 });
    const firstId = twin.account.workers.scripts.get('shop')?.previews[1]?.id ?? '';
    twin.faults.add({
      route: DELETE,
      pathPattern: `/previews/${firstId}$`,
      status: 404,
      code: 10025,
      times: 1,
    });
    const [result] = await sweep();
    expect(result?.previews.map((row) => [row.name, row.action])).toEqual([
      ['pr-1', 'delete-failed'],
      ['pr-2', 'delete-failed'],
      ['pr-3', 'deleted'],
    ]);
    expect(result?.previews[0]?.why).toMatch(/^pull request #1 is closed; the delete failed: /);
    expect(result?.previews[1]?.why).toBe('still listed after the delete; the next sweep tries again');
    expect(previewsLeft()).toEqual(['pr-1', 'pr-2']);
  });

  it('out of budget, judges only the previews it read, and deletes none it did not', async () => {
    // The listing (1) and two deployment reads; the third read is over the budget.
    const [result] = await sweep(3);
    expect(result?.previews.map((row) => [row.name, row.action])).toEqual([
      ['pr-1', 'deferred'],
      ['pr-2', 'deferred'],
      ['pr-3', 'deferred'],
    ]);
    expect(result?.problem).toMatch(/reading the previews' deployments stopped/);
    expect(previewsLeft()).toEqual(['pr-1', 'pr-2', 'pr-3']);
  });
});

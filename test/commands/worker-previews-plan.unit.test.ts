// What gc plans for a Worker's previews: tied to pull requests by name (`pr-<n>` or the head branch as
// is, never its slug), deleted when their pull request closed, when idle past ttl, or the oldest beyond
// max; never one keep names or one of a protected Worker. And what a preview shares with production.
import { describe, expect, it } from 'vitest';
import {
  planWorkerPreviews,
  type ReadPreview,
  sharedWithProduction,
} from '../../src/commands/worker-previews-plan.ts';
import type { ListedPullRequest } from '../../src/github/pull-requests.ts';

const NOW = Date.parse('2026-12-05T12:00:00Z');
const HOUR = 3_600_000;
const ENTRY = { worker: 'shop', ttlSeconds: 3 * 86_400, keep: ['staging', 'release-*'], max: undefined };

const preview = (name: string, hoursAgo: number): ReadPreview => ({
  name,
  lastActiveAt: NOW - hoursAgo * HOUR,
  lastDeployment: new Date(NOW - hoursAgo * HOUR).toISOString(),
});
const pull = (number: number, state: ListedPullRequest['state'], headRef: string): ListedPullRequest => ({
  number,
  title: `Change ${number}`,
  state,
  headRef,
});
const decisions = (rows: { name: string; decision: string }[]) =>
  Object.fromEntries(rows.map((row) => [row.name, row.decision]));

describe('planWorkerPreviews', () => {
  const pulls = [pull(7, 'open', 'feature/a'), pull(8, 'merged', 'fix/b'), pull(9, 'closed', 'Fix-C')];

  it('ties previews by pr-<n> or by the branch name as is, and deletes those of closed or merged ones', () => {
    const rows = planWorkerPreviews(
      ENTRY,
      [preview('feature/a', 1), preview('fix/b', 1), preview('pr-9', 1), preview('fix-c', 1)],
      pulls,
      NOW,
      undefined,
    );
    expect(rows.map((row) => [row.name, row.pullRequest, row.decision, row.why])).toEqual([
      ['feature/a', { number: 7, state: 'open' }, 'keep', 'pull request #7 is open'],
      ['fix/b', { number: 8, state: 'merged' }, 'delete', 'pull request #8 is merged'],
      ['pr-9', { number: 9, state: 'closed' }, 'delete', 'pull request #9 is closed'],
      // The slug of branch `Fix-C` is `fix-c`, but a preview named `fix-c` is another branch's.
      ['fix-c', null, 'keep', 'tied to no pull request; deleted once idle past the ttl of 3d'],
    ]);
  });

  it('deletes a preview idle past ttl whatever its pull request, and keeps what keep names', () => {
    const rows = planWorkerPreviews(
      ENTRY,
      [preview('feature/a', 80), preview('spike', 73), preview('staging', 900), preview('release-2', 900)],
      pulls,
      NOW,
      undefined,
    );
    expect(decisions(rows)).toEqual({
      'feature/a': 'delete',
      spike: 'delete',
      staging: 'keep',
      'release-2': 'keep',
    });
    expect(rows[1]?.why).toBe('no deployment for 3d, past the ttl of 3d');
    expect(rows[3]?.why).toBe("`keep` names it ('release-*')");
  });

  it('deletes the oldest idle ones beyond max, never one keep names', () => {
    const rows = planWorkerPreviews(
      { ...ENTRY, max: 2 },
      [preview('staging', 60), preview('a', 50), preview('b', 10), preview('c', 20)],
      null,
      NOW,
      undefined,
    );
    expect(decisions(rows)).toEqual({ staging: 'keep', a: 'delete', b: 'keep', c: 'delete' });
    expect(rows[1]?.why).toBe('beyond `max` 2: one of the 2 idle the longest (2d)');
  });

  it('deletes nothing of a Worker the production guard protects, and says why', () => {
    const rows = planWorkerPreviews(
      ENTRY,
      [preview('pr-9', 900)],
      pulls,
      NOW,
      "contains the protected word 'prod' (protect-words)",
    );
    expect(rows).toEqual([
      expect.objectContaining({
        decision: 'keep',
        why: "the Worker is protected: its name contains the protected word 'prod' (protect-words)",
      }),
    ]);
  });

  it('without GitHub, a pr-<n> preview is tied to an unknown state and judged by ttl alone', () => {
    const rows = planWorkerPreviews(ENTRY, [preview('pr-9', 1), preview('pr-10', 100)], null, NOW, undefined);
    expect(rows.map((row) => [row.pullRequest, row.decision])).toEqual([
      [{ number: 9, state: 'unknown' }, 'keep'],
      [{ number: 10, state: 'unknown' }, 'delete'],
    ]);
  });
});

describe('sharedWithProduction', () => {
  it('names every store the preview binds that production binds too, by id or name', () => {
    const shared = sharedWithProduction(
      {
        DB: { type: 'd1', database_id: 'db-1', database_name: 'shop' },
        CACHE: { type: 'kv_namespace', namespace_id: 'kv-own' },
        FILES: { type: 'r2_bucket', bucket_name: 'shop-files' },
        EU: { type: 'r2_bucket', bucket_name: 'shop-files', jurisdiction: 'eu' },
        JOBS: { type: 'queue', queue_name: 'shop-jobs' },
        INDEX: { type: 'vectorize', index_name: 'shop-index' },
        SQL: { type: 'hyperdrive', id: 'hd-1' },
        NOTE: { type: 'plain_text', text: 'db-1' },
      },
      [
        { type: 'd1', name: 'DB', id: 'db-1' },
        { type: 'kv_namespace', name: 'CACHE', namespace_id: 'kv-prod' },
        { type: 'r2_bucket', name: 'FILES', bucket_name: 'shop-files' },
        { type: 'queue', name: 'QUEUE', queue_name: 'shop-jobs' },
        { type: 'vectorize', name: 'INDEX', index_name: 'shop-index' },
        { type: 'hyperdrive', name: 'SQL', id: 'hd-1' },
      ],
    );
    expect(shared).toEqual([
      "D1 database 'db-1' (bound as DB; production binds it as DB)",
      "R2 bucket 'shop-files' (bound as FILES; production binds it as FILES)",
      "queue 'shop-jobs' (bound as JOBS; production binds it as QUEUE)",
      "Vectorize index 'shop-index' (bound as INDEX; production binds it as INDEX)",
      "Hyperdrive config 'hd-1' (bound as SQL; production binds it as SQL)",
    ]);
  });
});

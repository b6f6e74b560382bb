// gc's say before the end (src/commands/lease-ends.ts) where the semaphore or GitHub misbehave: a keep
// the semaphore fails or refuses leaves the slot as it is that run and fails nothing; the lookups stay
// within the run's bound, and a pull request not looked up is neither kept nor warned, its expired
// lease reclaimed as always.
import { describe, expect, it } from 'vitest';
import { type GcOptions, runGc } from '../../src/commands/sweep.ts';
import { GitHubError } from '../../src/github/github-error.ts';
import type { GitHubPullRequests, PullRequestInfo } from '../../src/github/pull-requests.ts';
import { SemaphoreError } from '../../src/semaphore/client.ts';
import {
  commandContext,
  HOUR,
  MINUTE,
  NOW,
  ScriptedSemaphore,
  scriptedEraser,
  slotRecord,
} from './scripted-clients.ts';

const OPTIONS: GcOptions = {
  dryRun: false,
  reclaimDirty: true,
  maxSlots: 50,
  leaseMs: 30 * MINUTE,
  deadlineAt: NOW + HOUR,
  leaseEnds: { warnMs: HOUR, keepLabel: 'preview-keep', keepMaxMs: 72 * HOUR },
};

/** Open pull requests with the keep label; every lookup is remembered, as the real reader does. */
function labelledPullRequests(): GitHubPullRequests & { comments: number[] } {
  const known = new Map<number, PullRequestInfo>();
  const comments: number[] = [];
  return {
    comments,
    get: async (number) => {
      const info: PullRequestInfo = { number, title: `#${number}`, state: 'open', labels: ['preview-keep'] };
      known.set(number, info);
      return info;
    },
    list: async () => [],
    known: () => known,
    asked: () => [...known.keys()],
    upsertComment: async () => 'created',
    commentOnce: async (number) => {
      comments.push(number);
      return 'created';
    },
  };
}

const expiredOf = (slug: string, holder: string) =>
  slotRecord(slug, {
    leaseState: 'leased',
    holder,
    leasedUntil: NOW - HOUR,
    expired: true,
    dirty: true,
    leaseVersion: 1,
    lastAcquiredAt: NOW - 4 * HOUR,
  });

describe('the keep label where the semaphore fails', () => {
  it.each([
    [
      'fails the extend (500)',
      async () => {
        throw new SemaphoreError({
          status: 500,
          code: 'internal',
          message: 'the semaphore failed',
          operation: 'POST /api/resources/extend',
        });
      },
      /^the semaphore refused the keep \(.*the semaphore failed.*\); left as it is this run, the next run tries again$/,
    ],
    [
      'finds the lease changed since the read',
      async () => ({
        extended: false,
        holder: 'pr-8',
        generation: 4,
        leaseVersion: 1,
        leasedUntil: NOW + HOUR,
        conditionFailed: true,
        queue: { length: 0, oldestWaitMs: 0 },
      }),
      /^the lease changed since gc read it \(now pr-8, generation 4\); left as it is$/,
    ],
    [
      'finds the same lease renewed since the read',
      async () => ({
        extended: false,
        holder: 'pr-7',
        generation: 3,
        leaseVersion: 2,
        leasedUntil: NOW + 2 * HOUR,
        conditionFailed: true,
        queue: { length: 0, oldestWaitMs: 0 },
      }),
      /^the lease was renewed since gc read it \(a push, or this keep sent again after its answer was lost\); left as it is$/,
    ],
  ] as const)(
    'leaves the slot alone when the semaphore %s, and the run does not fail',
    async (_, answer, problem) => {
      const semaphore = new ScriptedSemaphore();
      semaphore.listing = { now: NOW, resources: [expiredOf('preview-1', 'pr-7')] };
      semaphore.answerExtend = answer;
      const eraser = scriptedEraser();
      const report = await runGc(
        commandContext(semaphore, eraser, { github: labelledPullRequests() }),
        OPTIONS,
      );

      expect(semaphore.trace()).toEqual(['list', 'extend preview-1']);
      expect(eraser.requests).toEqual([]);
      expect(report.slots).toEqual([]);
      expect(report.problems).toEqual([]);
      expect(report.leaseEnds).toEqual([
        expect.objectContaining({
          slug: 'preview-1',
          action: 'keep-failed',
          problem: expect.stringMatching(problem),
        }),
      ]);
    },
  );

  it('asks the semaphore to extend by two warning windows, capped at keep-max-hours after the lease began, on the full condition', async () => {
    const semaphore = new ScriptedSemaphore();
    semaphore.listing = { now: NOW, resources: [expiredOf('preview-1', 'pr-7')] };
    await runGc(commandContext(semaphore, scriptedEraser(), { github: labelledPullRequests() }), OPTIONS);
    expect(semaphore.calls[1]).toEqual({
      op: 'extend',
      request: {
        type: 'preview-slot',
        slug: 'preview-1',
        ifHolder: 'pr-7',
        ifGeneration: 3,
        ifLeaseVersion: 1,
        leaseMs: 2 * HOUR,
        maxHeldMs: 72 * HOUR,
        note: 'gc: pull request #7 has the label preview-keep',
      },
    });
  });
});

describe('the lookups of a run', () => {
  it('ask about at most 20 pull requests; the others are neither kept nor warned, and their expired leases are reclaimed', async () => {
    const semaphore = new ScriptedSemaphore();
    const slots = Array.from({ length: 25 }, (_, index) =>
      expiredOf(`preview-${index + 1}`, `pr-${index + 1}`),
    );
    semaphore.listing = { now: NOW, resources: slots };
    const github = labelledPullRequests();
    const report = await runGc(commandContext(semaphore, scriptedEraser(), { github }), OPTIONS);

    expect(github.asked()).toHaveLength(20);
    const actions = report.leaseEnds?.map((end) => end.action) ?? [];
    expect(actions.filter((action) => action === 'kept')).toHaveLength(20);
    expect(report.leaseEnds?.filter((end) => end.action === 'unchecked')).toEqual(
      Array.from({ length: 5 }, (_, index) =>
        expect.objectContaining({
          slug: `preview-${index + 21}`,
          problem: 'not looked up: at most 20 pull requests a run, the next run goes on',
        }),
      ),
    );
    expect(report.slots.map((slot) => slot.slug).sort()).toEqual(
      ['preview-21', 'preview-22', 'preview-23', 'preview-24', 'preview-25'].sort(),
    );
    expect(report.warnings).toContain(
      '5 more pull requests near their lease end were not looked up (at most 20 a run), so they were neither kept nor warned; the next run goes on.',
    );
  });
});

describe('a github-token that may not read pull requests', () => {
  it('is said once: reconcile found it, so no pull request near its end is asked, none is kept or warned, and the expired lease is reclaimed', async () => {
    const semaphore = new ScriptedSemaphore();
    const ending = slotRecord('preview-2', {
      leaseState: 'leased',
      holder: 'pr-8',
      leasedUntil: NOW + 30 * MINUTE,
      dirty: true,
      leaseVersion: 1,
    });
    semaphore.listing = { now: NOW, resources: [expiredOf('preview-1', 'pr-7'), ending] };
    // Each pull request asked once, as the real reader remembers its answers.
    const lookups = new Map<number, Promise<PullRequestInfo>>();
    const refusing: GitHubPullRequests = {
      get: (number) => {
        const refused = Promise.reject(
          new GitHubError('looking up pull request: GitHub answered HTTP 403', 403, 'refused'),
        );
        refused.catch(() => {});
        if (!lookups.has(number)) lookups.set(number, refused);
        return lookups.get(number) ?? refused;
      },
      list: async () => [],
      known: () => new Map(),
      asked: () => [...lookups.keys()],
      upsertComment: async () => 'created',
      commentOnce: async () => 'created',
    };
    const report = await runGc(commandContext(semaphore, scriptedEraser(), { github: refusing }), OPTIONS);

    // Reconcile asked about the live lease's pull request; nothing else went to GitHub.
    expect(refusing.asked()).toEqual([8]);
    expect(report.warnings?.filter((warning) => warning.includes('Fix: give'))).toHaveLength(1);
    expect(report.leaseEnds).toEqual([
      expect.objectContaining({ slug: 'preview-1', action: 'unchecked' }),
      expect.objectContaining({ slug: 'preview-2', action: 'unchecked' }),
    ]);
    expect(report.slots).toMatchObject([{ slug: 'preview-1', outcome: 'reclaimed' }]);
  });
});

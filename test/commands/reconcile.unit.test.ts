// gc's closed-pull-request reconcile (src/commands/reconcile.ts): which live leases a GitHub answer may
// end. Only a holder spelt the way acquire spells it is a pull request's; a look-alike is left alone.
import { describe, expect, it } from 'vitest';
import { findClosedPullRequestSlots } from '../../src/commands/reconcile.ts';
import type { GitHubPullRequests } from '../../src/github/pull-requests.ts';
import {
  commandContext,
  HOUR,
  NOW,
  ScriptedSemaphore,
  scriptedEraser,
  slotRecord,
} from './scripted-clients.ts';

function closedPullRequests(...closed: number[]): GitHubPullRequests {
  return {
    get: async (number) => ({
      number,
      title: `#${number}`,
      state: closed.includes(number) ? 'closed' : 'open',
    }),
    list: async () => [],
    known: () => new Map(),
    asked: () => [],
    upsertComment: async () => 'created',
    commentOnce: async () => 'created',
  };
}

const heldBy = (slug: string, holder: string) =>
  slotRecord(slug, { leaseState: 'leased', holder, leasedUntil: NOW + HOUR });

describe('findClosedPullRequestSlots', () => {
  it('ends the lease of pr-7 when #7 closed, never that of a look-alike holder (pr-07, pr-0)', async () => {
    const listing = {
      now: NOW,
      resources: [heldBy('preview-1', 'pr-07'), heldBy('preview-2', 'pr-7'), heldBy('preview-3', 'pr-0')],
    };
    const ctx = commandContext(new ScriptedSemaphore(), scriptedEraser(), {
      github: closedPullRequests(0, 7),
    });
    const found = await findClosedPullRequestSlots(ctx, listing, []);
    expect(found.map((closed) => [closed.slot.slug, closed.holder, closed.pullRequest])).toEqual([
      ['preview-2', 'pr-7', 7],
    ]);
  });
});

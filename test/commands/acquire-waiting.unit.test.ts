// What a waiting pull request is told (issue 31): the sticky comment names its place in line, follows
// the line as it moves, is edited at most once a minute by the run's clock (injected: no sleeps), and a
// comment GitHub refuses is one warning, never a failed wait. The summary says where the wait ended.
import { describe, expect, it } from 'vitest';
import { commentMarker } from '../../src/commands/acquire-comment.ts';
import {
  postLeftLineComment,
  WAITING_COMMENT_EVERY_MS,
  waitingCommenter,
} from '../../src/commands/acquire-waiting.ts';
import type { GitHubPullRequests } from '../../src/github/pull-requests.ts';
import type { QueuePlaceReport } from '../../src/report/model.ts';
import { renderSummary } from '../../src/report/summary.ts';
import { ordinal } from '../../src/text/words.ts';
import { runReport } from '../support/report-fixtures.ts';

const POOL = 'preview-slot';
const T0 = 1_784_000_000_000;

function github(fail?: Error) {
  const edits: { number: number; marker: string; body: string }[] = [];
  const double = {
    upsertComment: async (number: number, marker: string, body: string) => {
      if (fail !== undefined) throw fail;
      edits.push({ number, marker, body });
      return edits.length === 1 ? 'created' : 'updated';
    },
  } as unknown as GitHubPullRequests;
  return { edits, double };
}

const place = (position: number, length = 3): QueuePlaceReport => ({ position, length, slots: 9, leased: 9 });

describe('the waiting comment', () => {
  it('names the place in line, and follows it as the line moves, at most one edit a minute', async () => {
    const { edits, double } = github();
    let now = T0;
    const warnings: string[] = [];
    const tell = waitingCommenter({ github: double, now: () => now, pool: POOL }, 42, warnings);
    await tell(place(2));
    expect(edits).toHaveLength(1);
    expect(edits[0]).toMatchObject({ number: 42, marker: commentMarker(POOL) });
    expect(edits[0]?.body).toContain(
      '**Waiting for a preview slot**: this pull request is 2nd in line for `preview-slot`, 9 slots, all leased.',
    );
    // The same place again: nothing to change.
    now += WAITING_COMMENT_EVERY_MS;
    await tell(place(2));
    expect(edits).toHaveLength(1);
    // Moved up, a minute after the last edit: told.
    now += 1_000;
    await tell(place(1));
    expect(edits).toHaveLength(2);
    expect(edits[1]?.body).toContain('1st in line for `preview-slot`, 9 slots, all leased.');
    // A slot freed (it goes to this pull request next): told once the minute is up.
    const freed = { ...place(1), leased: 8 };
    now += 20_000;
    await tell(freed);
    expect(edits).toHaveLength(2);
    now += WAITING_COMMENT_EVERY_MS - 20_000;
    await tell(freed);
    expect(edits).toHaveLength(3);
    expect(edits[2]?.body).toContain('1st in line for `preview-slot`, 9 slots, 8 leased.');
    expect(warnings).toEqual([]);
  });

  it('says "7 leased" when not every slot is leased (the free ones go to those ahead)', async () => {
    const { edits, double } = github();
    const tell = waitingCommenter({ github: double, now: () => T0, pool: POOL }, 42, []);
    await tell({ position: 3, length: 3, slots: 9, leased: 7 });
    expect(edits[0]?.body).toContain('3rd in line for `preview-slot`, 9 slots, 7 leased.');
  });

  it('warns once when GitHub refuses the comment, and the wait goes on', async () => {
    const { double } = github(new Error('HTTP 403: Resource not accessible by integration'));
    let now = T0;
    const warnings: string[] = [];
    const tell = waitingCommenter({ github: double, now: () => now, pool: POOL }, 42, warnings);
    await tell(place(2));
    now += 2 * WAITING_COMMENT_EVERY_MS;
    await tell(place(1));
    expect(warnings).toEqual([
      'The comment on pull request #42 saying its place in line was not written (HTTP 403: Resource not accessible by integration); the wait goes on. It needs pull-requests: write.',
    ]);
  });

  it('stops naming a place once the wait ended without a slot, whatever the minute', async () => {
    const { edits, double } = github();
    const warnings: string[] = [];
    await waitingCommenter({ github: double, now: () => T0, pool: POOL }, 42, warnings)(place(2));
    await postLeftLineComment({ github: double, pool: POOL }, 42, place(2), warnings);
    expect(edits.map((edit) => edit.marker)).toEqual([commentMarker(POOL), commentMarker(POOL)]);
    expect(edits[1]?.body).toContain(
      'It was 2nd in line for `preview-slot`, 9 slots, all leased, when the wait ended; it has left the line.',
    );
    expect(warnings).toEqual([]);
  });

  it('is not written without a github-token', async () => {
    const warnings: string[] = [];
    const tell = waitingCommenter({ github: null, now: () => T0, pool: POOL }, 42, warnings);
    await expect(tell(place(1))).resolves.toBeUndefined();
    expect(warnings).toEqual([]);
  });
});

describe('a place in words', () => {
  it('says 1st, 2nd, 3rd, 4th, 11th-13th, 21st, 102nd and 1,001st as English does', () => {
    const places = [1, 2, 3, 4, 11, 12, 13, 21, 102, 111, 1001].map((n) => ordinal(n));
    expect(places).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '102nd',
      '111th',
      '1,001st',
    ]);
  });
});

describe('the summary of a wait that got no slot', () => {
  it('says where in line the pull request was when the wait ended, and that it left', () => {
    const markdown = renderSummary(
      runReport({ command: 'acquire', pullRequest: 42, slots: [], expired: 0, inLine: place(2) }),
    );
    expect(markdown).toContain(
      '### In line\n\nIt was 2nd in line for `preview-slot`, 9 slots, all leased, when the wait ended; it has left the line.',
    );
  });

  it("shows the pool's queue in status: place, holder and since when", () => {
    const at = T0 + 15 * 60_000;
    const markdown = renderSummary(
      runReport({
        command: 'status',
        slots: [],
        expired: 0,
        queue: {
          at,
          length: 2,
          waiters: [
            { position: 1, holder: 'pr-7', waitingSince: T0 },
            { position: 2, holder: 'pr-*8*', waitingSince: T0 + 5 * 60_000 },
          ],
        },
      }),
    );
    expect(markdown).toContain('### 2 waiting for a slot, the first for 15 min');
    expect(markdown).toContain('| Place | Holder | Waiting since |');
    expect(markdown).toMatch(
      /\| 1 \| \[pr-7\]\(https:\/\/github.com\/acme\/shop\/pull\/7\) \| 2026-\d\d-\d\d \d\d:\d\d UTC \(15 min\) \|/,
    );
    // A holder is data: escaped, never markup.
    expect(markdown).toContain('| 2 | pr-\\*8\\* |');
  });
});

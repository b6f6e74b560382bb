// What a waiting pull request is told of its place in the pool's queue (issue 31): the sticky comment
// (`comment: true`) follows the line as it moves, edited at most once a minute however often the
// acquire asks, since every edit notifies nobody but still costs a GitHub request of the run's budget.
// A comment is a courtesy: one that cannot be written is one warning, and the wait goes on.
import type { QueuePlaceReport } from '../report/model.ts';
import { commentMarker, leftLineComment, waitingComment } from './acquire-comment.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';

/** The least time between two edits of the waiting comment. */
export const WAITING_COMMENT_EVERY_MS = 60_000;

/**
 * A function to call with each place the wait learns: it edits the comment when the place changed and
 * the last edit is a minute old (by `ctx.now`), and keeps quiet otherwise.
 */
export function waitingCommenter(
  ctx: Pick<CommandContext, 'github' | 'now' | 'pool'>,
  pullRequest: number,
  warnings: string[],
): (place: QueuePlaceReport) => Promise<void> {
  let lastEditAt: number | undefined;
  let lastBody: string | undefined;
  let gaveUp = false;
  return async (place) => {
    // No github-token: the acquire's own comment says once that it needs one.
    if (gaveUp || !ctx.github) return;
    const body = waitingComment(ctx.pool, place);
    const now = ctx.now();
    if (body === lastBody || (lastEditAt !== undefined && now - lastEditAt < WAITING_COMMENT_EVERY_MS))
      return;
    try {
      await ctx.github.upsertComment(pullRequest, commentMarker(ctx.pool), body);
      lastEditAt = now;
      lastBody = body;
    } catch (error) {
      gaveUp = true;
      warnings.push(
        `The comment on pull request #${pullRequest} saying its place in line was not written (${oneLineError(error)}); the wait goes on. It needs pull-requests: write.`,
      );
    }
  };
}

/**
 * The wait ended without a slot: the comment stops saying "2nd in line", whatever the minute, so the
 * pull request never shows a place it no longer has.
 */
export async function postLeftLineComment(
  ctx: Pick<CommandContext, 'github' | 'pool'>,
  pullRequest: number,
  place: QueuePlaceReport,
  warnings: string[],
): Promise<void> {
  if (!ctx.github) return;
  try {
    await ctx.github.upsertComment(pullRequest, commentMarker(ctx.pool), leftLineComment(ctx.pool, place));
  } catch (error) {
    warnings.push(
      `The comment on pull request #${pullRequest} still names its place in line; it could not be changed (${oneLineError(error)}).`,
    );
  }
}

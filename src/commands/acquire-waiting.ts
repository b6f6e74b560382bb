// What a waiting pull request is told of its place in the pool's queue (issue 31): the sticky comment
// (`comment: true`) follows the line as it moves, edited at most once a minute however often the
// acquire asks, since every edit notifies nobody but still costs a GitHub request of the run's budget.
// A comment is a courtesy: one that cannot be written is one warning, and the wait goes on.
import { inlineCode } from '../report/escape.ts';
import type { QueuePlaceReport } from '../report/model.ts';
import { leftLineText, placeInLine } from '../report/queue-text.ts';
import { commentMarker } from './acquire-comment.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';

/** While the pull request waits: its place, in the same comment the slot's news will replace. */
export function waitingComment(pool: string, place: QueuePlaceReport): string {
  return [
    commentMarker(pool),
    `**Waiting for a preview slot**: this pull request is ${placeInLine(place, pool, inlineCode)}. This comment follows the line as it moves; when a slot is this pull request's, the deploy goes on and this comment says which.`,
  ].join('\n');
}

/** The wait ended without a slot: where the pull request was, and that it no longer waits. */
export function leftLineComment(pool: string, place: QueuePlaceReport): string {
  return [
    commentMarker(pool),
    `**No preview slot yet**: this pull request waited in line for ${inlineCode(pool)} until its job's wait ended. ${leftLineText(place, pool, inlineCode)}`,
  ].join('\n');
}

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

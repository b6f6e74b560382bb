// The sticky comment (`comment: true`): one comment per pull request and pool, found again by a
// hidden marker and updated in place, saying which slot the pull request has and until when. A comment
// is a courtesy: whatever goes wrong becomes a warning, never a failed step.

import { escapeMarkdown, inlineCode } from '../report/escape.ts';
import { readableUtc } from '../report/format.ts';
import type { AcquiredSlot } from '../report/model.ts';
import { previousDataText } from '../report/view.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';

export function commentMarker(pool: string): string {
  return `<!-- preview-gc:slot:${pool} -->`;
}

export function slotComment(pool: string, slot: AcquiredSlot, previousHolder: string | null): string {
  const lines = [
    commentMarker(pool),
    `**Preview slot** ${inlineCode(slot.slug)} (pool ${inlineCode(pool)}) is this pull request's until **${readableUtc(slot.leaseExpiresAt)}**. Every push extends it; when the pull request closes, the slot goes back to the pool.`,
  ];
  if (slot.wasDirty) {
    lines.push('', `It held ${previousDataText(previousHolder, escapeMarkdown)}, erased before this deploy.`);
  }
  return lines.join('\n');
}

export async function postSlotComment(
  ctx: CommandContext,
  pullRequest: number,
  slot: AcquiredSlot,
  previousHolder: string | null,
  warnings: string[],
): Promise<void> {
  const github = ctx.github;
  if (!github) {
    warnings.push('comment: true needs a github-token with pull-requests: write; no comment was written.');
    return;
  }
  try {
    await github.upsertComment(
      pullRequest,
      commentMarker(ctx.pool),
      slotComment(ctx.pool, slot, previousHolder),
    );
  } catch (error) {
    warnings.push(
      `The comment on pull request #${pullRequest} was not written (${oneLineError(error)}); the deploy goes on. It needs pull-requests: write.`,
    );
  }
}

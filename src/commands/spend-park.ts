// gc parks a runaway: a live lease the semaphore marked parked for spend (two reads in a row above
// `spend-park-usd-per-hour`, spend-records.ts) has its Workers' compute stopped, their data kept
// (src/kinds/workers/spend-park.ts, each read back), and its pull request's comment says why, what it
// cost and that the next deploy brings it back. The lease stays with its pull request. Nothing here
// fails the run: a park that does not hold is reported, and the next read counts again.

import { inlineCode } from '../report/escape.ts';
import { pullRequestOf } from '../report/format.ts';
import type { SpendPark } from '../report/model.ts';
import type { ListAnswer } from '../semaphore/protocol.ts';
import { commentMarker } from './acquire-comment.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';
import type { PoolSpend } from './spend.ts';

/** "$12.34": dollars an hour as the comment says them. */
const dollars = (usd: number) => `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;

/** The sticky comment (acquire-comment.ts's marker, so it replaces the slot's comment) of a park. */
export function parkedComment(pool: string, park: Omit<SpendPark, 'comment'>, parkAbove: number): string {
  const state = park.stopped
    ? 'Its Worker now answers every request with 503 and its Durable Objects run no alarms; their data is kept.'
    : 'Stopping it did not hold for every Worker (see the gc run): it may still be running.';
  return [
    commentMarker(pool),
    `**Preview slot** ${inlineCode(park.slug)} (pool ${inlineCode(pool)}) was **parked for spend**: its compute cost about **${dollars(park.usdPerHour)} an hour**, above the pool's limit of ${dollars(parkAbove)} an hour, in two hourly reads in a row.`,
    '',
    `${state} The slot stays this pull request's; **the next deploy brings it back**.`,
  ].join('\n');
}

async function commentOn(
  ctx: Pick<CommandContext, 'github' | 'pool' | 'repository'>,
  park: Omit<SpendPark, 'comment'>,
  parkAbove: number,
): Promise<SpendPark['comment']> {
  const number = pullRequestOf(park.holder, ctx.repository);
  if (number === null) return 'no-pull-request';
  if (!ctx.github) return { problem: 'no github-token with pull-requests: write' };
  try {
    await ctx.github.upsertComment(number, commentMarker(ctx.pool), parkedComment(ctx.pool, park, parkAbove));
    return 'written';
  } catch (error) {
    return { problem: oneLineError(error) };
  }
}

/** Parks each lease the semaphore named, reads it back, and tells its pull request. */
export async function parkRunaways(
  ctx: Pick<CommandContext, 'eraser' | 'github' | 'pool' | 'spend'>,
  listing: ListAnswer,
  slugs: readonly string[],
  spend: PoolSpend,
  warnings: string[],
): Promise<SpendPark[]> {
  const parkAbove = ctx.spend?.parkUsdPerHour ?? null;
  const parkForSpend = ctx.eraser.parkForSpend?.bind(ctx.eraser);
  if (parkAbove === null || slugs.length === 0) return [];
  if (parkForSpend === undefined) {
    warnings.push(`${slugs.join(', ')} should be parked for spend, but this run cannot park Workers.`);
    return [];
  }
  const parks: SpendPark[] = [];
  for (const slug of slugs) {
    const slot = listing.resources.find((candidate) => candidate.slug === slug);
    if (slot?.holder === null || slot?.holder === undefined) continue;
    const workers = await parkForSpend(slug);
    const stopped = workers.every((worker) => worker.state === 'parked' || worker.state === 'missing');
    const park = {
      slug,
      holder: slot.holder,
      usdPerHour: spend.bySlug.get(slug)?.usdPerHour ?? 0,
      workers,
      stopped,
    };
    parks.push({ ...park, comment: await commentOn(ctx, park, parkAbove) });
    if (!stopped)
      warnings.push(
        `${slug} was marked parked for spend, but its compute was not stopped: ${workers
          .filter((worker) => worker.state !== 'parked' && worker.state !== 'missing')
          .map((worker) => `${worker.worker}: ${worker.summary}`)
          .join('; ')}. The next run reads it again.`,
      );
  }
  return parks;
}

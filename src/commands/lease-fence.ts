// The proof that a run still holds the lease it erases under. Destroying data is only allowed while
// that proof is fresh: before every erase step (the acquire proves the first one), and inside a long
// step before each of the slot's own Cloudflare requests once a third of the lease has passed since
// the last proof, so a step of many slow calls (a KV namespace of 100,000 keys under 429s) never
// outlives the lease. The name listings the slots share only read, and ask no fence.
import type { Lease } from '../semaphore/protocol.ts';
import type { CommandContext } from './context.ts';
import { oneLineError } from './error-line.ts';

/**
 * Inside a step the lease is renewed once this share of it has passed since the last proof. A
 * request then ends at most a third of the lease plus one attempt (30 s) after a proof, far inside a
 * lease of ten minutes or more.
 */
const RENEW_WITHIN_STEP_AFTER = 1 / 3;

export class LeaseFence {
  readonly #ctx: Pick<CommandContext, 'pool' | 'semaphore' | 'now'>;
  readonly #lease: Lease;
  readonly #leaseMs: number;
  #provenAt: number;
  /** The acquire that handed over the lease proved it a moment ago, with a full lease ahead. */
  #justAcquired = true;
  #lost = false;
  #problem: string | undefined;

  constructor(ctx: Pick<CommandContext, 'pool' | 'semaphore' | 'now'>, lease: Lease, leaseMs: number) {
    this.#ctx = ctx;
    this.#lease = lease;
    this.#leaseMs = leaseMs;
    this.#provenAt = ctx.now();
  }

  /** Someone else holds the slot now (a renew answered that the lease is gone). */
  get lost(): boolean {
    return this.#lost;
  }

  /** Why the lease could not be proven, when a renew failed (rather than answered "gone"). */
  get problem(): string | undefined {
    return this.#problem;
  }

  /** Before each erase step: renews, except for the first step right after the acquire. */
  beforeStep = async (): Promise<boolean> => {
    if (this.#justAcquired) {
      this.#justAcquired = false;
      return true;
    }
    return this.#renew('before the next step');
  };

  /** Before each of the slot's own Cloudflare requests inside a step: renews only when it is due. */
  withinStep = async (): Promise<boolean> => {
    if (this.#lost || this.#problem !== undefined) return false;
    const due = this.#ctx.now() - this.#provenAt >= this.#leaseMs * RENEW_WITHIN_STEP_AFTER;
    return due ? this.#renew('inside a long step') : true;
  };

  async #renew(where: string): Promise<boolean> {
    try {
      const renewed = await this.#ctx.semaphore.renew({
        type: this.#ctx.pool,
        slug: this.#lease.slug,
        leaseId: this.#lease.leaseId,
        leaseMs: this.#leaseMs,
      });
      if (renewed === null) {
        this.#lost = true;
        return false;
      }
      this.#provenAt = this.#ctx.now();
      return true;
    } catch (error) {
      this.#problem = `could not renew the lease ${where}, so the erase stopped: ${oneLineError(error)}`;
      return false;
    }
  }
}

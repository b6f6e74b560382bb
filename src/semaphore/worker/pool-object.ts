// One Durable Object per pool `type`. Its single RPC method runs a whole command synchronously inside
// one SQLite transaction: there is no await in between, so no other request can interleave, and a
// command that throws leaves nothing half-written.
import { DurableObject } from 'cloudflare:workers';
import { type PoolCommand, type PoolOutcome, runCommand } from './pool.ts';
import { migrate } from './schema.ts';
import { PoolStore } from './store.ts';
import { type PoolClock, poolClock } from './test-clock.ts';

export class PoolObject extends DurableObject {
  readonly #store: PoolStore;
  readonly #clock: PoolClock;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    // An old store upgrades in place before the first command; a failed upgrade rolls back whole.
    ctx.storage.transactionSync(() => migrate(ctx.storage.sql));
    this.#store = new PoolStore(ctx.storage.sql);
    this.#clock = poolClock(ctx.storage.sql, env);
  }

  run(command: PoolCommand): PoolOutcome {
    return this.ctx.storage.transactionSync(() => runCommand(this.#store, command, this.#clock.now()));
  }

  /** Tests only: refused unless the test clock is enabled (see test-clock.ts). */
  advanceClock(ms: number): { now: number } {
    return this.#clock.advance(ms);
  }
}

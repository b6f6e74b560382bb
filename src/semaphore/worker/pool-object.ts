// One Durable Object per pool `type`. Its RPC method runs a whole command synchronously inside one
// SQLite transaction, the serialising of its answer included: there is no await in between, so no
// other request can interleave, and a command that throws at any point writes nothing. After the
// transaction it tells the pool registry about a changed slot count (registry-outbox.ts).
import { DurableObject } from 'cloudflare:workers';
import { applyPoolCommand, type PoolCommand, type PoolReply, poolTypeOf, toReply } from './pool.ts';
import { type PoolRegistry, REGISTRY_NAME } from './registry.ts';
import { markReported, pendingRegistryReport, stageRegistryReport } from './registry-outbox.ts';
import { migrate, POOL_MIGRATIONS } from './schema.ts';
import { PoolStore } from './store.ts';
import { type PoolClock, poolClock, testClockEnabled } from './test-clock.ts';
import { TestFault } from './test-fault.ts';

interface PoolEnv {
  REGISTRY: DurableObjectNamespace<PoolRegistry>;
}

/** How long after a failed report the alarm tries again (the runtime retries a failing alarm too). */
const REPORT_RETRY_MS = 10_000;

export class PoolObject extends DurableObject<PoolEnv> {
  readonly #store: PoolStore;
  readonly #clock: PoolClock;
  readonly #fault = new TestFault();

  constructor(ctx: DurableObjectState, env: PoolEnv) {
    super(ctx, env);
    // An old store upgrades in place before the first command; a failed upgrade rolls back whole.
    ctx.storage.transactionSync(() => migrate(ctx.storage.sql, POOL_MIGRATIONS));
    this.#store = new PoolStore(ctx.storage.sql);
    this.#clock = poolClock(ctx.storage.sql, env);
  }

  async run(command: PoolCommand): Promise<PoolReply> {
    const reply = this.ctx.storage.transactionSync(() => {
      const result = toReply(applyPoolCommand(this.#store, command, this.#clock.now()));
      stageRegistryReport(this.ctx.storage.sql, poolTypeOf(command), this.#store.count());
      this.#fault.throwIfArmed();
      return result;
    });
    try {
      await this.#report();
    } catch (error) {
      // The command itself succeeded; only the registry is behind, and the alarm catches it up.
      console.error('semaphore: reporting to the pool registry failed', String(error));
      await this.ctx.storage.setAlarm(Date.now() + REPORT_RETRY_MS);
    }
    return reply;
  }

  /** Retries a report that failed; throwing makes the runtime retry the alarm. */
  async alarm(): Promise<void> {
    await this.#report();
  }

  /** Tests only: refused unless the test clock is enabled (see test-clock.ts). */
  advanceClock(ms: number): { now: number } {
    return this.#clock.advance(ms);
  }

  /** Tests only: the next command fails after it wrote (see test-fault.ts). */
  armFault(): { armed: true } {
    if (!testClockEnabled(this.env)) throw new Error('test faults are not enabled on this semaphore');
    return this.#fault.arm();
  }

  async #report(): Promise<void> {
    const report = pendingRegistryReport(this.ctx.storage.sql);
    if (report === undefined) return;
    await this.env.REGISTRY.getByName(REGISTRY_NAME).record(report);
    markReported(this.ctx.storage.sql, report.seq);
  }
}

// An opt-in fault for tests: the next command one pool runs throws after it wrote, inside its
// transaction, so a test can show that a failed command writes nothing. It sits behind the same switch
// as the test clock (test-clock.ts): the binding PREVIEW_GC_TEST_CLOCK set to 'enabled', which only
// `startLocalSemaphore({ testClock: true })` sets, and a loopback host. A deployed Worker has neither,
// so the route answers 404 there like any unknown route.
import * as z from 'zod';
import { poolTypeSchema } from '../protocol.ts';

export const TEST_FAULT_ROUTE = '/api/test-fault/arm';

/** What the injected failure says: the test output knows it by this (test/support/console-logs.ts). */
export const TEST_FAULT_MESSAGE = 'test fault: the command failed after it wrote';

export const armFaultRequestSchema = z.strictObject({ type: poolTypeSchema });

export class TestFault {
  // In memory, not in storage: disarming must survive the rollback the fault causes.
  #armed = false;

  arm(): { armed: true } {
    this.#armed = true;
    return { armed: true };
  }

  /** Throws once after `arm`. */
  throwIfArmed(): void {
    if (!this.#armed) return;
    this.#armed = false;
    throw new Error(TEST_FAULT_MESSAGE);
  }
}

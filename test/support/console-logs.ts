// What the test run prints of a test's console output. The semaphore Worker logs every unexpected
// error with its stack, as it should in production; the failures tests inject on purpose
// (test-fault.ts, to show a failed command writes nothing) are expected, so their stack traces are
// left out of `npm test`'s output. Every other line, any other error included, is printed.
import { TEST_FAULT_MESSAGE } from '../../src/semaphore/worker/test-fault.ts';

/** vitest's onConsoleLog: false drops the line. */
export function consoleLogFilter(log: string): false | undefined {
  return log.includes(TEST_FAULT_MESSAGE) ? false : undefined;
}

// `npm test` prints no stack trace of a failure a test injects on purpose, and every other line: the
// filter vitest.config.ts gives vitest drops the one and keeps the rest, real errors first of all.
import { describe, expect, it } from 'vitest';
import config from '../vitest.config.ts';

const onConsoleLog = config.test?.onConsoleLog;

describe("the test run's console output", () => {
  it('leaves out the semaphore stack trace of a failure a test injected (test-fault.ts)', () => {
    const injected =
      '\u001b[31m✘ \u001b[41;31m[\u001b[41;97mERROR\u001b[41;31m]\u001b[0m \u001b[1msemaphore: unexpected error Error: test fault: the command failed after it wrote\u001b[0m\n\n      at async runInPool (file:///src/semaphore/worker/router.ts:61:28)\n';
    expect(onConsoleLog?.(injected, 'stderr', undefined)).toBe(false);
  });

  it.each([
    '✘ [ERROR] semaphore: unexpected error TypeError: Cannot read properties of undefined (reading "lease")',
    'semaphore ready at http://127.0.0.1:8787',
    'a test fault of another kind',
  ])('keeps %j', (line) => {
    expect(onConsoleLog?.(line, 'stderr', undefined)).not.toBe(false);
  });
});

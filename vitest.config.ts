import { defineConfig } from 'vitest/config';
import { consoleLogFilter } from './test/support/console-logs.ts';

// Two lanes. `unit` (`*.unit.test.ts`, `npm run test:unit`) is the edit loop: no workerd, no twin server
// over HTTP, no child process, so it runs in seconds. `integration` is everything else: the real
// semaphore Worker, the Cloudflare twin, the bundled action and the CLI as processes. `npm test` runs both.
const UNIT = 'test/**/*.unit.test.ts';

export default defineConfig({
  test: {
    watch: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    onConsoleLog: consoleLogFilter,
    projects: [
      { extends: true, test: { name: 'unit', include: [UNIT] } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [UNIT] } },
    ],
  },
});

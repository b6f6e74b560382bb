// The unit lane (`*.unit.test.ts`, `npm run test:unit`) stays fast because nothing in it starts the
// semaphore in workerd, a twin server or a child process. A file that needs one belongs in the
// integration lane: name it `*.test.ts`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TEST_DIR = fileURLToPath(new URL('.', import.meta.url));

/** Calls that start something heavy, checked in the unit test files themselves. */
const STARTS = /\b(startTwin|startLocalSemaphore|unstable_startWorker|startWorker|runAction|runCli)\(/g;
/** Imports that bring a process or workerd in, checked in every test module a unit test imports. */
const HEAVY_IMPORT = /^import\s+(?!type\b)[^;]*from\s+'(node:child_process|wrangler)'/gm;
const LOCAL_IMPORT = /^import\s+(?!type\b)[^;]*from\s+'(\.{1,2}\/[^']+)'/gm;

/** The test modules a file imports (not types), followed through test/ only. */
function testModulesOf(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const [, specifier = ''] of readFileSync(file, 'utf8').matchAll(LOCAL_IMPORT)) {
    const target = resolve(dirname(file), specifier);
    if (target.startsWith(TEST_DIR)) testModulesOf(target, seen);
  }
  return seen;
}

function problemsOf(unitTest: string): string[] {
  const name = (file: string) => relative(TEST_DIR, file).split(sep).join('/');
  const starts = [...readFileSync(unitTest, 'utf8').matchAll(STARTS)].map(
    (match) => `${name(unitTest)} calls ${match[1]}()`,
  );
  const imports = [...testModulesOf(unitTest)].flatMap((module) =>
    [...readFileSync(module, 'utf8').matchAll(HEAVY_IMPORT)].map(
      (match) => `${name(module)} (imported by ${name(unitTest)}) imports ${match[1]}`,
    ),
  );
  return [...starts, ...imports];
}

describe('the unit lane', () => {
  it('starts no workerd, no twin server and no child process', () => {
    const unitTests = readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.unit.test.ts'))
      .map((path) => join(TEST_DIR, path));
    expect(unitTests.length).toBeGreaterThan(10);
    expect(unitTests.flatMap(problemsOf)).toEqual([]);
  });

  it('would refuse the integration tests that start the CLI, the twin or the semaphore', () => {
    const integration = ['cli/usage.test.ts', 'cloudflare/erase.test.ts', 'semaphore/leases.test.ts'];
    expect(integration.map((path) => problemsOf(join(TEST_DIR, path)).length > 0)).toEqual([
      true,
      true,
      true,
    ]);
  });
});

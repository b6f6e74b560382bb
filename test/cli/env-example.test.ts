// .env.example, as a user runs the action with it through @github/local-action: every input the
// action needs, and a job summary file, so the run ends with the summary written and no warning. The
// inputs the file leaves out get action.yml's defaults as written, as local-action gives them.
// The action's entry point runs as a process with the file's variables (its URLs pointed at this
// test's semaphore and twin, as `npm run stack` would serve them on its default ports).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEMO_POOL, demoPlan, demoSlugs, demoTwinSeed, seedDemoPool } from '../../demo/fixture.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import { startNode } from './run-cli.ts';

let semaphore: LocalSemaphore;
let twin: Twin;
let dir: string;
let text: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'preview-gc-env-'));
  text = await readFile('.env.example', 'utf8');
  [semaphore, twin] = await Promise.all([
    startLocalSemaphore({ port: 0, token: 'dev-token' }),
    startTwin({ seed: demoTwinSeed(demoSlugs(9), { orders: 2, kvKeys: 10 }) }),
  ]);
  await seedDemoPool(new SemaphoreClient({ baseUrl: semaphore.url, token: semaphore.token }), demoPlan());
}, 60_000);

afterAll(async () => {
  await twin?.close();
  await semaphore?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** NAME=value lines, as a .env file has them. */
function variables(env: string): Record<string, string> {
  const lines = env.split('\n').filter((line) => /^[A-Z_][A-Z0-9_-]*=/.test(line));
  return Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** INPUT_<NAME> for every input of action.yml that has a default, the default as written there. */
function actionDefaults(actionYml: string): Record<string, string> {
  const inputs = (parse(actionYml) as { inputs: Record<string, { default?: unknown }> }).inputs;
  return Object.fromEntries(
    Object.entries(inputs)
      .filter(([, input]) => input.default !== undefined)
      .map(([name, input]) => [`INPUT_${name.toUpperCase()}`, String(input.default)]),
  );
}

describe('.env.example', () => {
  it('names a job summary file and says to create it', () => {
    const summary = variables(text).GITHUB_STEP_SUMMARY;
    expect(summary).toBe('preview-gc-summary.md');
    expect(text).toContain(`touch ${summary}`);
  });

  it('runs the action to the end: the summary is written, with no warning but the expected one', async () => {
    // @github/local-action gives an input the file leaves out its default from action.yml, as written:
    // github-token's is the literal ${{ github.token }}, which only a runner evaluates.
    const env = { ...actionDefaults(await readFile('action.yml', 'utf8')), ...variables(text) };
    const summaryPath = join(dir, env.GITHUB_STEP_SUMMARY ?? '');
    await writeFile(summaryPath, '');
    const run = await startNode('src/index.ts', [], {
      ...env,
      'INPUT_SEMAPHORE-URL': semaphore.url,
      'INPUT_CLOUDFLARE-API-BASE-URL': twin.baseUrl,
      GITHUB_STEP_SUMMARY: summaryPath,
    }).result;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // Locally there is no GitHub to ask whether the demo's pull requests closed: that one warning is
    // expected (and said in .env.example); any other, such as a missing summary file, is not.
    const warnings = run.stdout.split('\n').filter((line) => line.startsWith('::warning'));
    expect(warnings, warnings.join('\n')).toHaveLength(1);
    expect(warnings[0]).toContain('without a github-token (pull-requests: read) gc cannot tell');
    const summary = await readFile(summaryPath, 'utf8');
    expect(summary.split('\n')[0]).toBe(`## ✅ preview-gc gc on pool \`${DEMO_POOL}\`: 5 would be reclaimed`);
  }, 60_000);
});

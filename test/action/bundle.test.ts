import { spawnSync } from 'node:child_process';
import { appendFile, chmod, cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, DEMO_POOL } from '../../demo/fixture.ts';
import { bundle, bundleEntry } from '../../scripts/bundle.ts';
import { distProblems, staleFiles } from '../../scripts/check-dist.ts';
import { newSlotRecord } from '../semaphore/helpers.ts';
import { gcInputs, runAction } from '../support/action-run.ts';
import { startStubSemaphore } from '../support/stub-semaphore.ts';

/** The environment of a runner step that was given no inputs at all. */
function envWithoutInputs(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('INPUT_')));
}

describe('the bundled action', () => {
  it('fails with every missing input named and no stack trace', () => {
    const result = spawnSync(process.execPath, ['dist/index.js'], {
      env: envWithoutInputs(),
      encoding: 'utf8',
    });
    const output = result.stdout + result.stderr;
    expect(result.status).not.toBe(0);
    for (const input of [
      'semaphore-url',
      'semaphore-token',
      'cloudflare-api-token',
      'cloudflare-account-id',
    ]) {
      expect(output).toContain(`input '${input}' is required`);
    }
    expect(output).not.toMatch(/^\s+at /m);
  });

  it('answers a mistyped command with the one it was meant to be, as the CLI does', async () => {
    const run = await runAction({
      ...gcInputs(
        DEMO_CONFIG_PATH,
        { url: 'http://127.0.0.1:9', token: 'sem' },
        { baseUrl: 'http://127.0.0.1:9', token: 'cf', accountId: 'a'.repeat(32) },
      ),
      command: 'aquire',
    });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(
      "input 'command' must be one of gc, cleanup, status, acquire, doctor, got 'aquire': did you mean 'acquire'?",
    );
  });

  it('builds no code from strings: zod is jitless before its first schema is built', async () => {
    // A schema reads zod's jitless setting when it is built, and the bundle evaluates its shared
    // chunks (where the slot config's schemas live) before the entry's own code: configured there,
    // the setting came too late and a quiet sweep compiled six parsers (src/zod.ts).
    const dir = await mkdtemp(join(tmpdir(), 'preview-gc-no-eval-'));
    const preload = join(dir, 'count-functions.mjs');
    await writeFile(
      preload,
      [
        'let built = 0;',
        'globalThis.Function = new Proxy(Function, {',
        '  construct: (target, args, newTarget) => { built++; return Reflect.construct(target, args, newTarget); },',
        '  apply: (target, self, args) => { built++; return Reflect.apply(target, self, args); },',
        '});',
        "process.on('exit', () => process.stderr.write(`functions built from strings: ${built}\\n`));",
      ].join('\n'),
    );
    const semaphore = await startStubSemaphore();
    try {
      semaphore.answer = () => ({
        status: 200,
        body: { now: Date.now(), resources: [newSlotRecord(DEMO_POOL, 'preview-1', Date.now())] },
      });
      const result = await runAction(
        gcInputs(
          DEMO_CONFIG_PATH,
          { url: semaphore.url, token: 'semaphore-token-for-the-test' },
          {
            baseUrl: `${semaphore.url}/client/v4`,
            token: 'cloudflare-token-for-test',
            accountId: 'a'.repeat(32),
          },
        ),
        { env: { NODE_OPTIONS: `--import ${pathToFileURL(preload).href}` } },
      );
      expect(result.exitCode).toBe(0);
      expect(result.summary).toContain('nothing to reclaim');
      expect(result.stderr).toContain('functions built from strings: 0');
    } finally {
      await semaphore.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs on Node 24, the runtime action.yml declares', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });
});

describe('the bundled CLI', () => {
  it('answers --help from dist/cli.js, its chunks beside it', () => {
    const result = spawnSync(process.execPath, ['dist/cli.js', '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: preview-gc <command>');
  });
});

describe('check-dist', () => {
  let fresh: string;
  let copy: string;

  beforeAll(async () => {
    fresh = await mkdtemp(join(tmpdir(), 'preview-gc-fresh-'));
    await bundle(fresh);
  });
  afterAll(async () => {
    await rm(fresh, { recursive: true, force: true });
  });

  /** A copy of the committed dist/ to break by hand; removed after the test. */
  async function distCopy(): Promise<string> {
    copy = await mkdtemp(join(tmpdir(), 'preview-gc-tampered-'));
    await cp('dist', copy, { recursive: true });
    return copy;
  }
  afterEach(async () => {
    if (copy !== undefined) await rm(copy, { recursive: true, force: true });
  });

  it('passes on the committed dist/: the source builds it, every script has a map, every package a licence', async () => {
    expect(await staleFiles('dist', fresh)).toEqual([]);
    expect(await distProblems('dist')).toEqual([]);
  });

  it('fails once a script, its sourcemap or the licences differ from what the source builds', async () => {
    const tampered = await distCopy();
    await appendFile(join(tampered, 'index.js'), '\n// edited by hand\n');
    await appendFile(join(tampered, 'cli.js.map'), ' ');
    await appendFile(join(tampered, 'licenses.txt'), 'one more line\n');
    expect(await staleFiles(tampered, fresh)).toEqual(['cli.js.map', 'index.js', 'licenses.txt']);
  });

  it('names a script whose sourcemap is missing, and a map whose source is not there', async () => {
    // Built, so the repository's reference check does not read it as a path this file points to.
    const MISSING_SOURCE = ['..', 'src', 'no-such-module.ts'].join('/');
    const tampered = await distCopy();
    await rm(join(tampered, 'index.js.map'));
    const cliMap = JSON.parse(await readFile(join(tampered, 'cli.js.map'), 'utf8'));
    cliMap.sources[0] = MISSING_SOURCE;
    await writeFile(join(tampered, 'cli.js.map'), JSON.stringify(cliMap));
    expect(await distProblems(tampered)).toEqual([
      `cli.js.map: source ${MISSING_SOURCE} does not exist`,
      'index.js: its sourcemap index.js.map is missing',
    ]);
  });

  it("writes the package's bin executable, as npm link leaves it, so a link changes no mode git tracks", async () => {
    const bin = JSON.parse(await readFile('package.json', 'utf8')).bin['preview-gc'];
    expect(bin).toBe('dist/cli.js');
    expect((await stat(join(fresh, 'cli.js'))).mode & 0o777).toBe(0o755);
    const tampered = await distCopy();
    await chmod(join(tampered, 'cli.js'), 0o644);
    expect(await distProblems(tampered)).toEqual([
      "cli.js: not executable; it is the package's bin, which npm link makes executable (a mode change git then shows): run npm run bundle, which writes it 755, and commit it",
    ]);
  });

  it('names a bundled package whose licence is missing from licenses.txt', async () => {
    const tampered = await distCopy();
    const licenses = await readFile(join(tampered, 'licenses.txt'), 'utf8');
    const withoutYaml = licenses.replace(/^={78}\nyaml@[\s\S]*?(?=^={78}\n|$(?![\s\S]))/m, '');
    expect(withoutYaml.length).toBeLessThan(licenses.length);
    await writeFile(join(tampered, 'licenses.txt'), withoutYaml);
    const [problem, ...rest] = await distProblems(tampered);
    expect(rest).toEqual([]);
    expect(problem).toMatch(/^licenses\.txt: no licence for yaml@\d+\.\d+\.\d+, which is bundled/);
  });
});

describe('dist/licenses.txt', () => {
  it('carries the whole licence text of the bundled packages, the Apache-2.0 of the Cloudflare SDK too', async () => {
    const licenses = await readFile('dist/licenses.txt', 'utf8');
    for (const file of [
      'node_modules/cloudflare/LICENSE',
      'node_modules/zod/LICENSE',
      'node_modules/yaml/LICENSE',
    ]) {
      expect(licenses).toContain((await readFile(file, 'utf8')).replace(/\r\n/g, '\n').trimEnd());
    }
    expect(licenses).toMatch(
      /^cloudflare@\S+\nLicense: Apache-2\.0; bundled into dist\/cli\.js, dist\/index\.js$/m,
    );
  });
});

describe('the bundle', () => {
  it('refuses code that only tests use', async () => {
    const outdir = await mkdtemp(join(tmpdir(), 'preview-gc-probe-'));
    try {
      await expect(bundleEntry(outdir, 'probe', 'test/support/action-run.ts')).rejects.toThrow(
        /dist\/probe\.js would carry what only tests and tooling use: test\/support\/action-run\.ts \(test code\)/,
      );
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  });
});

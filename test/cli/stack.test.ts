// `npm run stack` as a user meets it: --help answers, and with --seed <slot config> it runs the stack
// with the user's own slots; what it prints is shell, so pasting it sets the variables the CLI reads,
// and the README's first adoption steps then work against it.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { appSlotConfig } from '../support/app-slot-config.ts';
import { type CliResult, runCli, startNode } from './run-cli.ts';

const CONFIG = appSlotConfig('shop-preview', 'shop');
const NAMES = [
  'SEMAPHORE_URL',
  'SEMAPHORE_TOKEN',
  'CLOUDFLARE_API_BASE_URL',
  'CLOUDFLARE_API_TOKEN',
  'CLOUDFLARE_ACCOUNT_ID',
];

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'preview-gc-stack-'));
  dirs.push(dir);
  return dir;
}

function show(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

describe('npm run stack', () => {
  it('--help prints the usage and exits 0', async () => {
    const result = await startNode('scripts/stack.ts', ['--help']).result;
    expect(result.code, show(result)).toBe(0);
    expect(result.stdout).toContain('usage: npm run stack -- [options]');
    expect(result.stdout).toContain('--seed <file>');
  });

  it('refuses a slot config with a mistake, naming the file and the place', async () => {
    const path = join(await tempDir(), 'slots.yml');
    await writeFile(path, CONFIG.replace('title:', 'tittle:'));
    const result = await startNode('scripts/stack.ts', ['--seed', path]).result;
    expect(result.code, show(result)).toBe(1);
    expect(result.stderr).toContain(`${path}:8:7 resources.kv[0].tittle: unknown key 'tittle'`);
  });

  it('starts nothing when a migration of the app fails, naming the file and what SQLite said', async () => {
    const dir = await tempDir();
    const path = join(dir, 'slots.yml');
    await writeFile(path, CONFIG);
    await mkdir(join(dir, 'migrations'));
    await writeFile(
      join(dir, 'migrations', '0001_init.sql'),
      'CREATE TABLE orders (id INTEGER PRIMARY KEY);',
    );
    await writeFile(
      join(dir, 'migrations', '0002_items.sql'),
      'CREATE TABLE items (order_id INTEGER REFERENCES orders(id), ;',
    );
    const result = await startNode('scripts/stack.ts', [
      '--seed',
      path,
      '--migrations',
      join(dir, 'migrations'),
      '--semaphore-port',
      '0',
      '--twin-port',
      '0',
    ]).result;
    expect(result.code, show(result)).toBe(1);
    expect(result.stderr).toMatch(
      /^stack: nothing was started: migration 0002_items\.sql failed: near ";": syntax error/,
    );
    expect(result.stdout).toBe('');
  });

  it('runs your own slots: the printed lines set the environment in a shell, and the adoption steps work', async () => {
    const path = join(await tempDir(), 'slots.yml');
    await writeFile(path, CONFIG);
    const stack = startNode('scripts/stack.ts', [
      '--seed',
      path,
      '--count',
      '2',
      '--semaphore-port',
      '0',
      '--twin-port',
      '0',
    ]);
    let printed = '';
    stack.child.stdout?.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
    });
    try {
      await new Promise<void>((resolve, reject) => {
        stack.child.stdout?.on('data', () => {
          if (printed.includes('# stack ready')) resolve();
        });
        stack.child.on('exit', (code) => reject(new Error(`the stack exited ${code} before it was ready`)));
      });
      expect(printed).toMatch(/^export SEMAPHORE_URL='http:\/\/127\.0\.0\.1:\d+'$/m);
      expect(printed).toContain(
        `# stack ready: the twin holds the resources of 2 slots of ${path} (preview-1 … preview-2), with data in them; the semaphore has no pool yet`,
      );
      // Pasted into a shell as it is (comments included), it sets what the CLI reads.
      const shell = await promisify(execFile)('/bin/sh', [
        '-c',
        `${printed}\nprintf '%s\\n' ${NAMES.map((name) => `"$${name}"`).join(' ')}`,
      ]);
      const env = Object.fromEntries(NAMES.map((name, i) => [name, shell.stdout.split('\n')[i] ?? '']));
      expect(env.SEMAPHORE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const added = await runCli(['slots', 'sync', '--count', '2', '--dirty', '--config', path], env);
      expect(added.code, show(added)).toBe(0);
      expect(added.stderr).toContain('every resource of the 2 slot(s) to add exists');
      const swept = await runCli(['gc', '--config', path, '--requests-per-second', '50'], env);
      expect(swept.code, show(swept)).toBe(0);
      expect(swept.stdout.split('\n')[0]).toBe('✔ preview-gc gc on pool shop-preview: 2 of 2 reclaimed');
      // A config without erase: drop, the default, and the summary says what that means.
      expect(swept.stdout).toContain(
        'shop-preview-1-db: dropped 2 tables, d1_migrations among them (erase: drop is the default',
      );
      // Each role has its own token; the read role's only looks.
      expect(printed).toContain(
        "# other roles: SEMAPHORE_TOKEN='dev-gc-token' signs in as gc, SEMAPHORE_TOKEN='dev-read-token' as read",
      );
      const viewer = { ...env, SEMAPHORE_TOKEN: 'dev-read-token' };
      const looked = await runCli(['status', '--config', path], viewer);
      expect(looked.stdout.trim().split('\n').at(-1)).toMatch(/^Signed in to the semaphore as read: /);
      const refused = await runCli(['slots', 'mark-dirty', 'preview-1', '--config', path], viewer);
      expect(refused.stdout).toContain('the read role may not change anything');
    } finally {
      stack.child.kill('SIGINT');
    }
    // Ctrl-C stops both servers.
    await stack.result;
    const urls = [...printed.matchAll(/'(http:\/\/127\.0\.0\.1:\d+)/g)].map((match) => match[1] ?? '');
    expect(urls).toHaveLength(2);
    for (const url of urls) await expect(fetch(url)).rejects.toThrow();
  }, 120_000);
});

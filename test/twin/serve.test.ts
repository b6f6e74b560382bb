// `npm run twin`: one ready line, serves the seed with the given token, exits 0 on SIGTERM, and refuses
// bad arguments (exit 2) and bad seed files (exit 1, naming the file and the field).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SERVE = resolve(import.meta.dirname, 'serve.ts');
const run = promisify(execFile);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'twin-serve-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function firstLine(child: ChildProcess): Promise<string> {
  if (!child.stdout) throw new Error('no stdout');
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  return line;
}

async function failingRun(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [SERVE, ...args], { encoding: 'utf8' });
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, stderr };
  }
  throw new Error('expected the twin to refuse');
}

describe('npm run twin', () => {
  it('prints one ready line, serves the seed with the given token, and exits 0 on SIGTERM', async () => {
    const seedFile = join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify({ kv: [{ title: 'served-cache', keys: { k: 'v' } }] }));
    const child = spawn(
      process.execPath,
      [SERVE, '--port', '0', '--seed', seedFile, '--token', 'served-token'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = once(child, 'exit');
    const line = await firstLine(child);
    expect(line).toMatch(/^twin ready at http:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
    const baseUrl = line.slice('twin ready at '.length);

    const state = (await (await fetch(baseUrl.replace('/client/v4', '/__twin/state'))).json()) as {
      accountId: string;
      kv: { title: string }[];
    };
    expect(state.kv.map((ns) => ns.title)).toEqual(['served-cache']);
    const listed = await fetch(`${baseUrl}/accounts/${state.accountId}/storage/kv/namespaces`, {
      headers: { Authorization: 'Bearer served-token' },
    });
    expect(listed.status).toBe(200);

    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it('exits 2 with the usage when --port is missing or unknown options are given', async () => {
    const missing = await failingRun([]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--port is required');
    expect(missing.stderr).toContain('usage: npm run twin -- --port <port>');
    expect((await failingRun(['--port', '1', '--colour', 'blue'])).code).toBe(2);
  });

  it('exits 1 naming the seed file and the bad field', async () => {
    const seedFile = join(dir, 'bad-seed.json');
    writeFileSync(seedFile, JSON.stringify({ workers: [{ name: 'w', classes: [{ name: 'not a class' }] }] }));
    const bad = await failingRun(['--port', '0', '--seed', seedFile]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${seedFile}: workers.0.classes.0.name: a JavaScript class name`);
  });
});

// `npm run semaphore` as a user runs it: a child process that prints one ready line, serves the protocol,
// keeps its state with --persist across a restart, and leaves no workerd behind on SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { pollUntil } from './helpers.ts';

const SERVE = 'src/semaphore/serve.ts';
const READY = /^semaphore ready at (http:\/\/127\.0\.0\.1:\d+)$/;

interface Served {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
}

const running = new Set<ChildProcess>();

async function serve(args: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  const child = spawn(process.execPath, [SERVE, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await pollUntil(
    'the ready line',
    async () => {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}: ${stderr}`);
      return READY.exec(stdout.split('\n')[0] ?? '')?.[1];
    },
    20_000,
  );
  return { child, url, stdout: () => stdout, stderr: () => stderr };
}

async function stop(served: Served): Promise<number | null> {
  const exited = once(served.child, 'exit');
  served.child.kill('SIGTERM');
  const [code] = await exited;
  running.delete(served.child);
  return code as number | null;
}

/** Every live process below `pid` (children, grandchildren, …), read from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name is in parentheses and may contain spaces: the fields after it are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== undefined && fields[0] !== 'Z') parents.set(Number(entry), Number(fields[1]));
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

let persistDir: string;

beforeAll(async () => {
  persistDir = await mkdtemp(join(tmpdir(), 'semaphore-persist-'));
});

afterAll(async () => {
  // Only if a test failed half-way: do not leave a server running.
  for (const child of running) child.kill('SIGKILL');
  await rm(persistDir, { recursive: true, force: true });
});

const envWith = (token: string | undefined): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.SEMAPHORE_TOKEN;
  return token === undefined ? env : { ...env, SEMAPHORE_TOKEN: token };
};

describe('npm run semaphore', () => {
  it('refuses bad usage with one line and the usage, exit code 2', async () => {
    const cases = [[], ['--port', 'abc'], ['--port', '70000'], ['--bogus']];
    const results = await Promise.all(
      cases.map(async (args) => {
        const child = spawn(process.execPath, [SERVE, ...args], { env: envWith(undefined) });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += `stdout: ${chunk}`;
        });
        child.stderr.on('data', (chunk: Buffer) => {
          output += chunk;
        });
        const [status] = await once(child, 'exit');
        return { args, status, output };
      }),
    );
    for (const result of results) {
      expect(result).toEqual({
        args: result.args,
        status: 2,
        output: expect.stringMatching(/^semaphore: .+\nusage: npm run semaphore -- --port <port>.*\n$/),
      });
    }
  });

  it('serves until SIGTERM, exits 0 with no workerd left, and keeps state across a restart with --persist', async () => {
    const first = await serve(['--port', '0', '--persist', persistDir], envWith('persist-token'));
    expect(first.stderr()).not.toContain('dev-token');
    const health = await fetch(`${first.url}/api/health`);
    expect(await health.json()).toEqual({ ok: true, version: '0.1.0' });
    const client = new SemaphoreClient({ baseUrl: first.url, token: 'persist-token' });
    await client.add({ type: 'persisted', slug: 'preview-1', data: { n: 1 } });
    const lease = await client.acquireSpecific({
      type: 'persisted',
      slug: 'preview-1',
      holder: 'pr-5',
      leaseMs: 3_600_000,
    });

    const pid = first.child.pid ?? 0;
    const children = await descendants(pid);
    expect(children.length).toBeGreaterThan(0);
    expect(await stop(first)).toBe(0);
    expect(first.stdout()).toBe(`semaphore ready at ${first.url}\n`);
    await pollUntil('every child of the server to be gone', async () => {
      const remaining = (await Promise.all(children.map(alive))).some(Boolean);
      return remaining ? undefined : true;
    });

    // The roles' tokens come from the Worker's own names, as npm run stack takes them.
    const roles = { SEMAPHORE_GC_TOKEN: 'serve-gc-token', SEMAPHORE_READ_TOKEN: 'serve-read-token' };
    const second = await serve(['--port', '0', '--persist', persistDir], { ...envWith(undefined), ...roles });
    for (const [token, role] of [
      ['serve-gc-token', 'gc'],
      ['serve-read-token', 'read'],
      ['dev-token', 'admin'],
    ] as const) {
      expect(await new SemaphoreClient({ baseUrl: second.url, token }).whoami()).toMatchObject({ role });
    }
    expect(second.stderr().match(/dev-token/g)).toHaveLength(1);
    const again = new SemaphoreClient({ baseUrl: second.url, token: 'dev-token' });
    expect(await again.find('persisted', 'preview-1')).toMatchObject({
      leaseState: 'leased',
      holder: 'pr-5',
      leasedUntil: lease?.expiresAt,
      generation: 1,
      data: { n: 1 },
    });
    expect(await stop(second)).toBe(0);
  }, 120_000); // two starts of wrangler and workerd: room for a busy machine
});

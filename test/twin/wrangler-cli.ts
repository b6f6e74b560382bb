// The real wrangler CLI pointed at a twin over loopback, for the tests that keep the twin honest.
// wrangler runs as a child process (never spawnSync: the twin answers from this process's event
// loop) with an environment that leaves it nothing to call but the twin: the twin's URL, token and
// account; no metrics, error reports or banner (the banner asks npm for wrangler's latest version);
// and a fresh update-check cache in its own TMPDIR, so the update check wrangler makes after some
// config warnings is answered from the cache.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Twin } from './twin.ts';

const run = promisify(execFile);
// The CLI bundle that wrangler's bin script spawns; running it directly saves a second Node start.
const WRANGLER = resolve(import.meta.dirname, '../../node_modules/wrangler/wrangler-dist/cli.js');
const WRANGLER_VERSION = (
  JSON.parse(
    readFileSync(resolve(import.meta.dirname, '../../node_modules/wrangler/package.json'), 'utf8'),
  ) as {
    version: string;
  }
).version;

/** Runs one command in `cwd`; a failure shows wrangler's output and the twin requests it made. */
export type Wrangler = (cwd: string, ...args: string[]) => Promise<{ stdout: string; stderr: string }>;

/**
 * A twin as wrangler reaches it: its address and credentials, and its request log when this process
 * has it (a twin that `npm run stack` started in another process has none here).
 */
export type TwinEndpoint = Pick<Twin, 'baseUrl' | 'token' | 'accountId'> & Partial<Pick<Twin, 'requests'>>;

/** The environment wrangler sees: the twin and nothing else (no other CLOUDFLARE_*, CF_* or WRANGLER_*). */
function wranglerEnv(twin: TwinEndpoint, home: string): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(CLOUDFLARE_|CF_|WRANGLER_)/.test(name)),
  );
  const tmp = join(home, 'tmp');
  mkdirSync(join(tmp, 'update-check'), { recursive: true });
  writeFileSync(
    join(tmp, 'update-check', 'wrangler-latest.json'),
    JSON.stringify({ latest: WRANGLER_VERSION, lastUpdate: Date.now() }),
  );
  return {
    ...base,
    CLOUDFLARE_API_BASE_URL: twin.baseUrl,
    CLOUDFLARE_API_TOKEN: twin.token,
    CLOUDFLARE_ACCOUNT_ID: twin.accountId,
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    CI: 'true',
    HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    // Later starts reuse the compiled 15 MB bundle (about a fifth less CPU per command).
    NODE_COMPILE_CACHE: join(home, 'compile-cache'),
  };
}

/**
 * A wrangler bound to `twin`, with its home (config, logs, caches) under `home`; `env` adds variables
 * a test sets on purpose (the branch `wrangler preview` names a preview after).
 */
export function wranglerFor(twin: TwinEndpoint, home: string, extra: Record<string, string> = {}): Wrangler {
  const env = { ...wranglerEnv(twin, home), ...extra };
  return async (cwd, ...args) => {
    const since = twin.requests?.().length ?? 0;
    try {
      return await run(process.execPath, ['--no-warnings', WRANGLER, ...args], {
        cwd,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      const requests = (twin.requests?.() ?? []).slice(since).map((r) => `${r.status} ${r.route}`);
      throw new Error(
        `wrangler ${args.join(' ')} failed:\n${stdout}\n${stderr}\nrequests: ${requests.join(', ')}`,
      );
    }
  };
}

// Measurement 6: the same nine-slot erase done today's way, by bench/today.sh (wrangler CLI commands
// in a shell script), against a twin seeded and slowed down exactly like the one of measurement 3.
// Also checks that both ways leave the same data behind, so the comparison is like for like (apart
// from compute, which the script cannot touch).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { demoSlugs, demoTwinSeed } from '../demo/fixture.ts';
import { startTwin } from '../test/twin/twin.ts';
import { CLOUDFLARE_LATENCY_MS, LATENCY_SLOTS } from './measure-latency.ts';
import { dataLeft, liveClassesLeft } from './shape.ts';
import { CLOUDFLARE_TOKEN, expiredPlan } from './stack.ts';

const SCRIPT = new URL('./today.sh', import.meta.url).pathname;
const WRANGLER = new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url).pathname;
/** 46 wrangler starts of a few seconds each; past this the script is stopped and the bench fails. */
const TIMEOUT_MS = 600_000;

export interface TodayResult {
  slots: number;
  wallMs: number;
  cloudflareRequests: number;
  wranglerCommands: number;
  /** Requests by route template, as the twin logged them. */
  byRoute: Record<string, number>;
  /** Durable Object classes still live after the script: it has no way to park compute. */
  liveClassesLeft: number;
  /** D1 rows, KV keys and R2 rules after the script are the same as after preview-gc's sweep. */
  sameDataLeft: boolean;
  /** Only when they differ: both, and the end of the script's output. */
  dataLeft?: string;
  previewDataLeft?: string;
  output?: string;
}

/** The environment wrangler sees: the twin's URL, token and account, no other Cloudflare variable. */
function wranglerEnvironment(
  baseUrl: string,
  token: string,
  accountId: string,
  home: string,
): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(CLOUDFLARE_|CF_|WRANGLER_|INPUT_)/.test(name)),
  );
  return {
    ...inherited,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    CLOUDFLARE_API_BASE_URL: baseUrl,
    CLOUDFLARE_API_TOKEN: token,
    CLOUDFLARE_ACCOUNT_ID: accountId,
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER: `${process.execPath} ${WRANGLER}`,
    CI: 'true',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
  };
}

/** Runs the script in its own process group, so a timeout stops every wrangler it started too. */
function runScript(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ wallMs: number; output: string }> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn('bash', [SCRIPT, ...args], {
      env,
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - startedAt;
      if (code === 0) resolve({ wallMs, output });
      else
        reject(new Error(`bench: today.sh ended with ${signal ?? `exit ${code}`}:\n${output.slice(-4000)}`));
    });
  });
}

/** `previewDataLeft`: what preview-gc's sweep of the same slots left behind (measurement 3). */
export async function measureToday(previewDataLeft: string): Promise<TodayResult> {
  const slugs = demoSlugs(LATENCY_SLOTS);
  const twin = await startTwin({
    token: CLOUDFLARE_TOKEN,
    latencyMs: CLOUDFLARE_LATENCY_MS,
    seed: demoTwinSeed(slugs),
  });
  const home = await mkdtemp(join(tmpdir(), 'preview-gc-bench-wrangler-'));
  try {
    const env = wranglerEnvironment(twin.baseUrl, twin.token, twin.accountId, home);
    const { wallMs, output } = await runScript(
      expiredPlan(LATENCY_SLOTS).map((slot) => slot.slug),
      env,
      home,
    );
    const state = twin.state();
    const left = dataLeft(state);
    const requests = twin.requests();
    const byRoute: Record<string, number> = {};
    for (const request of requests) byRoute[request.route] = (byRoute[request.route] ?? 0) + 1;
    return {
      slots: LATENCY_SLOTS,
      wallMs,
      sameDataLeft: left === previewDataLeft,
      ...(left === previewDataLeft ? {} : { dataLeft: left, previewDataLeft, output: output.slice(-4000) }),
      cloudflareRequests: requests.length,
      wranglerCommands: 1 + 5 * LATENCY_SLOTS,
      byRoute,
      liveClassesLeft: liveClassesLeft(state),
    };
  } finally {
    await twin.close();
    await rm(home, { recursive: true, force: true });
  }
}

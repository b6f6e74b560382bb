// The semaphore Worker in a local workerd, through wrangler's programmatic API: for tests, the
// benchmark and `npm run semaphore`. Listens on 127.0.0.1 only and never reaches the network.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export interface LocalSemaphoreOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default: a random token. */
  token?: string;
  /** A directory that keeps the state across restarts; default: in memory only. */
  persistDir?: string;
}

export interface LocalSemaphore {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  token: string;
  stop(): Promise<void>;
}

const WORKER_CONFIG = fileURLToPath(new URL('./worker/wrangler.jsonc', import.meta.url));

export async function startLocalSemaphore(options: LocalSemaphoreOptions = {}): Promise<LocalSemaphore> {
  // workerd would otherwise download the `request.cf` data from the internet on start.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
  process.env.WRANGLER_SEND_METRICS = 'false';
  const token = options.token ?? randomBytes(24).toString('base64url');
  // Imported here so that loading this module (e.g. for its types) does not load all of wrangler.
  const { unstable_startWorker } = await import('wrangler');
  const worker = await unstable_startWorker({
    config: WORKER_CONFIG,
    bindings: { SEMAPHORE_TOKEN: { type: 'secret_text', value: token } },
    dev: {
      server: { hostname: '127.0.0.1', port: options.port ?? 0 },
      inspector: false,
      persist: options.persistDir ?? false,
      watch: false,
      logLevel: 'warn',
    },
  });
  try {
    const url = (await worker.url).origin;
    // `worker.url` resolves when wrangler's proxy listens, while the Worker behind it may still be
    // starting (the proxy holds requests meanwhile). Ready means it answers.
    const health = await fetch(`${url}/api/health`);
    await health.body?.cancel();
    if (!health.ok)
      throw new Error(`the local semaphore answered GET /api/health with HTTP ${health.status}`);
    return { url, token, stop: () => worker.dispose() };
  } catch (error) {
    await worker.dispose();
    throw error;
  }
}

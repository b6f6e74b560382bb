// DEV ONLY, never bundled (test/scripts/bundle-contents.unit.test.ts checks dist/).
// `npm run semaphore -- --port <p> [--persist <dir>]`: the semaphore Worker on 127.0.0.1 until
// SIGINT or SIGTERM. Prints exactly one line on stdout when it is ready; everything else goes to stderr.
import { parseArgs } from 'node:util';
import { roleOptionsFromEnv, startLocalSemaphore } from './local.ts';

const USAGE =
  'usage: npm run semaphore -- --port <port> [--persist <dir>]   (tokens: env SEMAPHORE_TOKEN, SEMAPHORE_GC_TOKEN, SEMAPHORE_READ_TOKEN; OIDC: SEMAPHORE_OIDC_REPOSITORIES, _ISSUER, _AUDIENCE)';
const DEV_TOKEN = 'dev-token';

function usageError(problem: string): never {
  process.stderr.write(`semaphore: ${problem}\n${USAGE}\n`);
  process.exit(2);
}

function parseCommandLine(): { port: number; persistDir: string | undefined } {
  let values: { port?: string; persist?: string };
  try {
    ({ values } = parseArgs({
      options: { port: { type: 'string' }, persist: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    usageError(error instanceof Error ? error.message : String(error));
  }
  if (values.port === undefined) usageError('--port is required (0 picks a free port)');
  const port = Number(values.port);
  if (!/^[0-9]+$/.test(values.port) || port > 65_535)
    usageError(`--port must be 0-65535, not '${values.port}'`);
  if (values.persist === '') usageError('--persist needs a directory');
  return { port, persistDir: values.persist };
}

const { port, persistDir } = parseCommandLine();
const envToken = process.env.SEMAPHORE_TOKEN;
const token = envToken === undefined || envToken === '' ? DEV_TOKEN : envToken;
if (token === DEV_TOKEN && envToken !== DEV_TOKEN) {
  process.stderr.write(`semaphore: SEMAPHORE_TOKEN is not set; using the token '${DEV_TOKEN}'\n`);
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const listenersBefore = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
const starting = startLocalSemaphore({
  port,
  token,
  ...roleOptionsFromEnv(process.env),
  ...(persistDir === undefined ? {} : { persistDir }),
});

let stopping = false;
async function stop(): Promise<void> {
  // A second signal while workerd shuts down must not exit early and orphan it.
  if (stopping) return;
  stopping = true;
  // A signal during start-up waits for the start, so workerd is never left behind.
  await (await starting.catch(() => undefined))?.stop();
  process.exit(0);
}
for (const signal of SIGNALS) process.on(signal, stop);

try {
  const semaphore = await starting;
  // Miniflare's own handlers kill workerd and exit at once with 130/143. This process disposes the
  // Worker itself (workerd included) and exits 0, so their handlers are removed.
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (listener !== stop && !listenersBefore.get(signal)?.has(listener))
        process.removeListener(signal, listener);
    }
  }
  if (!stopping) process.stdout.write(`semaphore ready at ${semaphore.url}\n`);
} catch (error) {
  process.stderr.write(
    `semaphore: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}

// `npm run stack`: the local semaphore and the Cloudflare API twin, seeded with the demo pool, running
// until SIGINT/SIGTERM. For running the action itself against them: the CI self-test job (`uses: ./`)
// and `npx @github/local-action . src/main.ts .env` (see .env.example). Loopback only.
import { appendFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { demoPlan, demoSlugs, demoTwinSeed, seedDemoPool } from '../demo/fixture.ts';
import { SemaphoreClient } from '../src/semaphore/client.ts';
import { startLocalSemaphore } from '../src/semaphore/local.ts';
import { startTwin } from '../test/twin/twin.ts';

const USAGE = 'usage: npm run stack -- [--semaphore-port 8787] [--twin-port 8788] [--env-file <path>]';

function portOf(value: string, flag: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    process.stderr.write(`stack: ${flag} must be a port number (0-65535), not '${value}'\n${USAGE}\n`);
    process.exit(2);
  }
  return port;
}

let values: { 'semaphore-port': string; 'twin-port': string; 'env-file'?: string };
try {
  ({ values } = parseArgs({
    options: {
      'semaphore-port': { type: 'string', default: '8787' },
      'twin-port': { type: 'string', default: '8788' },
      'env-file': { type: 'string' },
    },
    strict: true,
  }));
} catch (error) {
  process.stderr.write(`stack: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
  process.exit(2);
}

// Local, published-in-the-docs credentials: this stack guards nothing.
const SEMAPHORE_TOKEN = 'dev-token';
const [semaphore, twin] = await Promise.all([
  startLocalSemaphore({ port: portOf(values['semaphore-port'], '--semaphore-port'), token: SEMAPHORE_TOKEN }),
  startTwin({ port: portOf(values['twin-port'], '--twin-port'), seed: demoTwinSeed(demoSlugs(9)) }),
]);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.all([semaphore.stop(), twin.close()]);
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

await seedDemoPool(new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN }), demoPlan());
const environment = [
  `SEMAPHORE_URL=${semaphore.url}`,
  `SEMAPHORE_TOKEN=${SEMAPHORE_TOKEN}`,
  `CLOUDFLARE_API_BASE_URL=${twin.baseUrl}`,
  `CLOUDFLARE_API_TOKEN=${twin.token}`,
  `CLOUDFLARE_ACCOUNT_ID=${twin.accountId}`,
].join('\n');
if (values['env-file'] !== undefined) await appendFile(values['env-file'], `${environment}\n`);
process.stdout.write(
  `${environment}\nstack ready: the demo pool 'preview-slot' has 9 slots; Ctrl-C stops it\n` +
    `web console: ${semaphore.url}/  (sign in with the token ${SEMAPHORE_TOKEN})\n`,
);

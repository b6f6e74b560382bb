// `npm run stack`: the local semaphore and the Cloudflare API twin, running until SIGINT/SIGTERM. By
// default seeded with the demo pool; with `--seed <your slot config>` the twin holds your own app's
// slots (with data in them) and the semaphore has no pool yet, so the README's adoption steps can be
// tried against it. It prints the environment as `export` lines a shell takes as they are. For running
// the action itself against it: the CI self-test job (`uses: ./`, with --env-file "$GITHUB_ENV") and
// `npx @github/local-action . src/main.ts .env` (see .env.example). Loopback only.
import { appendFile, readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { seedFromConfig } from '../demo/config-seed.ts';
import {
  DEMO_CONFIG_PATH,
  DEMO_POOL,
  demoPlan,
  demoSlugs,
  demoTwinSeed,
  seedDemoPool,
} from '../demo/fixture.ts';
import { ConfigError, parseSlotConfig } from '../src/config/slot-config.ts';
import { SemaphoreClient } from '../src/semaphore/client.ts';
import { roleOptionsFromEnv, startLocalSemaphore } from '../src/semaphore/local.ts';
import { describeIssues, type TwinSeed, twinSeedSchema } from '../test/twin/schema.ts';
import { startTwin } from '../test/twin/twin.ts';

const USAGE = `usage: npm run stack -- [options]

Starts the semaphore (the real Worker, in workerd) and a twin of the Cloudflare API on loopback, and
prints their settings as export lines to paste into the shell where you run preview-gc. Runs until
Ctrl-C.

Options:
  --seed <file>           Your own app's slots instead of the demo pool: a slot config (YAML; its
                          resources, for --count slots, each with some data in it) or a twin seed
                          (a .json file, docs/twin.md). The semaphore then starts with no pool.
  --count <n>             With a slot config: how many slots (3), named by --pattern.
  --pattern <p>           With a slot config: the slot name, {n} for the number (preview-{n}).
  --semaphore-port <p>    Port of the semaphore (8787; 0 picks a free one).
  --twin-port <p>         Port of the twin (8788; 0 picks a free one).
  --env-file <path>       Also append the settings to this file as NAME=value lines
                          (for $GITHUB_ENV, or a .env file).
  -h, --help              Show this help.

Examples:
  npm run stack
  npm run stack -- --seed .github/preview-slots.yml --count 3`;

function fail(message: string, code: 1 | 2): never {
  process.stderr.write(`stack: ${message}\n${code === 2 ? `\n${USAGE}\n` : ''}`);
  process.exit(code);
}

function portOf(value: string, flag: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535)
    fail(`${flag} must be a port number (0-65535), not '${value}'`, 2);
  return port;
}

function parseCli() {
  try {
    return parseArgs({
      options: {
        'semaphore-port': { type: 'string', default: '8787' },
        'twin-port': { type: 'string', default: '8788' },
        'env-file': { type: 'string' },
        seed: { type: 'string' },
        count: { type: 'string' },
        pattern: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error), 2);
  }
}

/** A value in single quotes, as a POSIX shell reads it back unchanged. */
function shellQuoted(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

interface StackSeed {
  twin: TwinSeed;
  /** The line that says what the stack holds and what to do next. */
  ready: string;
}

/** The slots named by --count and --pattern, as slots sync names them. */
function slotNames(count: string | undefined, pattern: string | undefined): string[] {
  const n = Number(count ?? '3');
  if (!/^\d{1,3}$/.test(count ?? '3') || n < 1)
    fail(`--count must be a whole number from 1 to 999, not '${count}'`, 2);
  const template = pattern ?? 'preview-{n}';
  if (!template.includes('{n}')) fail(`--pattern must contain {n}, e.g. preview-{n}`, 2);
  return Array.from({ length: n }, (_, i) => template.replaceAll('{n}', String(i + 1)));
}

async function seedFromFile(
  file: string,
  count: string | undefined,
  pattern: string | undefined,
): Promise<StackSeed> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return fail(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
  const noPool = 'the semaphore has no pool yet';
  if (file.endsWith('.json')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return fail(`${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`, 1);
    }
    const parsed = twinSeedSchema.safeParse(json);
    if (!parsed.success)
      fail(`${describeIssues(parsed.error, file)}\nSee docs/twin.md for the seed format.`, 1);
    return { twin: parsed.data, ready: `the twin holds the resources of ${file}; ${noPool}` };
  }
  try {
    const config = parseSlotConfig(text, file);
    const slugs = slotNames(count, pattern);
    return {
      twin: seedFromConfig(config, slugs),
      ready: `the twin holds the resources of ${slugs.length} slots of ${file} (${slugs[0]} … ${slugs.at(-1)}), with data in them; ${noPool}: add them with preview-gc slots sync (README, "Use it in your repository")`,
    };
  } catch (error) {
    return fail(error instanceof ConfigError ? error.message : String(error), 1);
  }
}

const values = parseCli();
if (values.help === true) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (values.seed === undefined && (values.count !== undefined || values.pattern !== undefined))
  fail('--count and --pattern go with --seed <slot config>', 2);
const semaphorePort = portOf(values['semaphore-port'], '--semaphore-port');
const twinPort = portOf(values['twin-port'], '--twin-port');
const seed: StackSeed =
  values.seed === undefined
    ? {
        twin: demoTwinSeed(demoSlugs(9)),
        ready: `the demo pool '${DEMO_POOL}' has 9 slots (config ${DEMO_CONFIG_PATH})`,
      }
    : await seedFromFile(values.seed, values.count, values.pattern);

// Local, published-in-the-docs credentials: this stack guards nothing. The same variables as the
// Worker's secrets (and `npm run semaphore`'s) set them otherwise; each role has its own token.
const fromEnv = (name: string, fallback: string) => {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
};
const SEMAPHORE_TOKEN = fromEnv('SEMAPHORE_TOKEN', 'dev-token');
const roles = {
  ...roleOptionsFromEnv(process.env),
  gcToken: fromEnv('SEMAPHORE_GC_TOKEN', 'dev-gc-token'),
  readToken: fromEnv('SEMAPHORE_READ_TOKEN', 'dev-read-token'),
};
const [semaphore, twin] = await Promise.all([
  startLocalSemaphore({ port: semaphorePort, token: SEMAPHORE_TOKEN, ...roles }),
  startTwin({ port: twinPort, seed: seed.twin }),
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

if (values.seed === undefined)
  await seedDemoPool(new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN }), demoPlan());
const environment: [string, string][] = [
  ['SEMAPHORE_URL', semaphore.url],
  ['SEMAPHORE_TOKEN', SEMAPHORE_TOKEN],
  ['CLOUDFLARE_API_BASE_URL', twin.baseUrl],
  ['CLOUDFLARE_API_TOKEN', twin.token],
  ['CLOUDFLARE_ACCOUNT_ID', twin.accountId],
];
if (values['env-file'] !== undefined)
  await appendFile(values['env-file'], environment.map(([name, value]) => `${name}=${value}\n`).join(''));
const exports = environment.map(([name, value]) => `export ${name}=${shellQuoted(value)}`).join('\n');
// The CLI sends SEMAPHORE_TOKEN, whatever its role: the other roles' tokens are for trying them.
const otherRoles = `# other roles: SEMAPHORE_TOKEN=${shellQuoted(roles.gcToken)} signs in as gc, SEMAPHORE_TOKEN=${shellQuoted(roles.readToken)} as read\n`;
process.stdout.write(
  `${exports}\n# stack ready: ${seed.ready}; Ctrl-C stops it\n` +
    `# web console: ${semaphore.url}/  (sign in with the token ${SEMAPHORE_TOKEN}, admin; ${roles.readToken} to look only)\n` +
    otherRoles,
);

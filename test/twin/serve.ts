// `npm run twin -- --port <p> [--seed <file>] [--token <t>] [--account <id>]`: the twin as a process.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { TwinSeed } from './schema.ts';

const USAGE = 'usage: npm run twin -- --port <port> [--seed <file.json>] [--token <token>] [--account <id>]';

function usageError(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function parseCli() {
  try {
    return parseArgs({
      options: {
        port: { type: 'string' },
        seed: { type: 'string' },
        token: { type: 'string' },
        account: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
}

async function readSeed(file: string): Promise<TwinSeed> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    process.stderr.write(`${file}: cannot read the seed as JSON: ${(error as Error).message}\n`);
    process.exit(1);
  }
  // Loaded only here: the schema is built from the kinds, which load msw and SQLite.
  const { describeIssues, twinSeedSchema } = await import('./schema.ts');
  const parsed = twinSeedSchema.safeParse(json);
  if (!parsed.success) {
    process.stderr.write(`${describeIssues(parsed.error, file)}\nSee docs/twin.md for the seed format.\n`);
    process.exit(1);
  }
  return parsed.data;
}

const args = parseCli();
if (args.port === undefined) usageError('--port is required');
const port = Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  usageError(`--port must be 0-65535, got "${args.port}"`);
const seed = args.seed === undefined ? undefined : await readSeed(args.seed);

// Loaded after the arguments are checked, so a usage error answers without loading msw and SQLite.
const { startTwin } = await import('./twin.ts');
const twin = await startTwin({
  port,
  ...(seed ? { seed } : {}),
  ...(args.token ? { token: args.token } : {}),
  ...(args.account ? { accountId: args.account } : {}),
});
process.stdout.write(`twin ready at ${twin.baseUrl}\n`);

const stop = () => {
  twin.close().then(
    () => process.exit(0),
    () => process.exit(0),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

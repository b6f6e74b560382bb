// What the bundled action runs against in the end-to-end tests of the lease lifecycle: the real
// semaphore (workerd), the Cloudflare twin and a GitHub double, each on a loopback port, and the inputs
// that point the action at them.
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { loadSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { startTwin, type Twin } from '../twin/twin.ts';
import type { ActionRunResult } from './action-run.ts';
import { type GitHubDouble, startGitHubDouble } from './github-double.ts';
import { secretLeaks, summaryEscapeProblems } from './run-checks.ts';

/** One resource of every kind per slot (rel-{slot}, rel-{slot}-db, …). */
export const SLOTS_CONFIG_PATH = fileURLToPath(new URL('../reliability/fixtures/slots.yml', import.meta.url));

export interface StackTokens {
  semaphore: string;
  cloudflare: string;
  github: string;
}

export interface ActionStack {
  semaphore: LocalSemaphore;
  twin: Twin;
  github: GitHubDouble;
  client: SemaphoreClient;
  config: SlotConfig;
  tokens: StackTokens;
  close(): Promise<void>;
}

export async function startActionStack(
  tokens: StackTokens,
  options: { testClock?: boolean } = {},
): Promise<ActionStack> {
  const [config, semaphore, twin, github] = await Promise.all([
    loadSlotConfig(SLOTS_CONFIG_PATH),
    startLocalSemaphore({ token: tokens.semaphore, testClock: options.testClock ?? false }),
    startTwin({ token: tokens.cloudflare }),
    startGitHubDouble(tokens.github),
  ]);
  return {
    semaphore,
    twin,
    github,
    config,
    tokens,
    client: new SemaphoreClient({ baseUrl: semaphore.url, token: tokens.semaphore }),
    close: async () => {
      await github.close();
      await Promise.all([semaphore.stop(), twin.close()]);
    },
  };
}

/** The action's inputs for one pool of the stack: semaphore, twin and a fast request rate. */
export function actionInputs(
  stack: { semaphore: Pick<LocalSemaphore, 'url' | 'token'>; twin: Twin },
  pool: string,
  extra: Record<string, string> = {},
  configPath = SLOTS_CONFIG_PATH,
): Record<string, string> {
  return {
    config: configPath,
    pool,
    'semaphore-url': stack.semaphore.url,
    'semaphore-token': stack.semaphore.token,
    'cloudflare-api-token': stack.twin.token,
    'cloudflare-account-id': stack.twin.accountId,
    'cloudflare-api-base-url': stack.twin.baseUrl,
    'requests-per-second': '50',
    ...extra,
  };
}

/** What a person sees of a run shows no token, and its summary nothing unescaped. */
export function expectNoLeaks(result: ActionRunResult, secrets: readonly string[]): void {
  const seen = {
    log: result.stdout,
    summary: result.summary,
    outputs: result.outputs,
    other: [result.stderr],
  };
  expect(secretLeaks(seen, secrets)).toEqual([]);
  expect(summaryEscapeProblems(result.summary)).toEqual([]);
}

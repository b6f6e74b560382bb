import { describe, expect, it } from 'vitest';
import type { RawInputs } from '../../src/config/settings.ts';
import { type ActionDependencies, run } from '../../src/main.ts';
import type { RunReport } from '../../src/report/model.ts';
import { runReport, slotReport } from '../support/report-fixtures.ts';

const INPUTS: RawInputs = {
  'semaphore-url': 'http://127.0.0.1:9',
  'semaphore-token': 'sem-token-123',
  'cloudflare-api-token': 'cf-token-456',
  'cloudflare-account-id': '0123456789abcdef0123456789abcdef',
};

interface Recorded {
  secrets: string[];
  failed: string[];
  warnings: string[];
  outputs: Record<string, string | number>;
  summaries: string[];
}

function dependencies(
  inputs: RawInputs,
  execute: ActionDependencies['execute'],
  overrides: Partial<ActionDependencies> = {},
): { deps: ActionDependencies; recorded: Recorded } {
  const recorded: Recorded = { secrets: [], failed: [], warnings: [], outputs: {}, summaries: [] };
  const deps: ActionDependencies = {
    readInputs: () => inputs,
    setSecret: (secret) => recorded.secrets.push(secret),
    info: () => {},
    setFailed: (message) => recorded.failed.push(message),
    setOutput: (name, value) => {
      recorded.outputs[name] = value;
    },
    error: () => {},
    warning: (message) => recorded.warnings.push(message),
    notice: () => {},
    writeSummary: async (markdown) => {
      recorded.summaries.push(markdown);
    },
    repository: () => undefined,
    gitHub: () => null,
    labelPullRequests: async (report) => report,
    execute,
    ...overrides,
  };
  return { deps, recorded };
}

describe('run', () => {
  it('refuses bad inputs before running anything', async () => {
    let executed = false;
    const { deps, recorded } = dependencies({}, async () => {
      executed = true;
      return runReport({ slots: [] });
    });
    await run(deps);
    expect(executed).toBe(false);
    expect(recorded.failed[0]).toMatch(/input 'semaphore-url' is required/);
  });

  it('masks every token and the Authorization header derived from it', async () => {
    const { deps, recorded } = dependencies(INPUTS, async () => runReport({ slots: [] }));
    await run(deps);
    expect(recorded.secrets).toEqual(
      expect.arrayContaining([
        'sem-token-123',
        'Bearer sem-token-123',
        'cf-token-456',
        'Bearer cf-token-456',
      ]),
    );
    expect(recorded.failed).toEqual([]);
  });

  it('publishes the report and fails the step when a slot failed', async () => {
    const failed = runReport({ slots: [slotReport({ slug: 'preview-3', outcome: 'release-failed' })] });
    const { deps, recorded } = dependencies(INPUTS, async () => failed);
    await run(deps);
    expect(recorded.outputs.failed).toBe(1);
    expect(recorded.summaries).toHaveLength(1);
    expect(recorded.failed[0]).toContain('preview-3 release-failed');
  });

  it('only warns when the summary cannot be written', async () => {
    const { deps, recorded } = dependencies(INPUTS, async () => runReport({ slots: [] }), {
      writeSummary: async () => {
        throw new Error('Unable to find environment variable for $GITHUB_STEP_SUMMARY');
      },
    });
    await run(deps);
    expect(recorded.warnings[0]).toMatch(/job summary was not written: .*GITHUB_STEP_SUMMARY/);
    expect(recorded.failed).toEqual([]);
    expect(recorded.outputs.reclaimed).toBe(0);
  });

  it('turns SIGTERM into an abort of the running command and a failed, reported run', async () => {
    const listenersBefore = process.listenerCount('SIGTERM');
    const { deps, recorded } = dependencies(INPUTS, (_settings, { signal }) => {
      const aborted = new Promise<RunReport>((resolve) =>
        signal.addEventListener('abort', () =>
          resolve(runReport({ slots: [], interruptedBy: String(signal.reason) })),
        ),
      );
      process.emit('SIGTERM', 'SIGTERM');
      return aborted;
    });
    await run(deps);
    expect(recorded.summaries[0]).toContain('Stopped by SIGTERM');
    expect(recorded.failed[0]).toBe('preview-gc was stopped by SIGTERM.');
    expect(process.listenerCount('SIGTERM')).toBe(listenersBefore);
  });
});

import { describe, expect, it } from 'vitest';
import type { RawInputs } from '../../src/config/settings.ts';
import type { GitHubPullRequests } from '../../src/github/pull-requests.ts';
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
  /** Every log line and annotation (message and title), as written. */
  lines: string[];
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
  const recorded: Recorded = { lines: [], secrets: [], failed: [], warnings: [], outputs: {}, summaries: [] };
  const annotate = (message: string, properties?: { title?: string }) =>
    recorded.lines.push(message, properties?.title ?? '');
  const deps: ActionDependencies = {
    readInputs: () => inputs,
    setSecret: (secret) => recorded.secrets.push(secret),
    info: (message) => recorded.lines.push(message),
    setFailed: (message) => recorded.failed.push(message),
    setOutput: (name, value) => {
      recorded.outputs[name] = value;
    },
    error: annotate,
    warning: (message, properties) => {
      recorded.warnings.push(message);
      annotate(message, properties);
    },
    notice: annotate,
    writeSummary: async (markdown) => {
      recorded.summaries.push(markdown);
    },
    repository: () => undefined,
    gitHub: () => null,
    labelPullRequests: async (report) => report,
    getIDToken: async () => {
      throw new Error('this test gives the job no OIDC token');
    },
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

describe('run: every exit behind one net', () => {
  const TOKEN = 'sem-token-123';
  const CF = 'cf-token-456';
  const forms = (secret: string) => [
    secret,
    encodeURIComponent(`${secret}/`),
    Buffer.from(`Bearer ${secret}`).toString('base64'),
  ];
  const hostileSlug = 'preview-1\n::warning title=X::fake\n::add-mask::preview';

  async function hostileRun() {
    const echo = (secret: string) =>
      `Authentication error (${forms(secret).join(', ')}) ##[warning]legacy\n::error::injected`;
    const report = runReport({
      problems: [`the semaphore said: ${echo(TOKEN)}`],
      slots: [
        slotReport({
          slug: hostileSlug,
          outcome: 'erase-failed',
          problem: `d1 'db': ${echo(CF)}`,
          nextStep: `preview-gc release --slot x --lease-id ${TOKEN}`,
        }),
      ],
    });
    const { deps, recorded } = dependencies(INPUTS, async (_settings, { progress }) => {
      progress({ kind: 'slot-started', slug: hostileSlug, index: 0, total: 1 });
      progress({
        kind: 'slot-finished',
        slug: hostileSlug,
        index: 0,
        total: 1,
        outcome: '::stop-commands::x',
        durationMs: 5,
      });
      return report;
    });
    await run(deps);
    return recorded;
  }

  it('shows no token in any form in log lines, annotations, outputs, the report or the summary', async () => {
    const recorded = await hostileRun();
    const everything = [
      ...recorded.lines,
      ...recorded.failed,
      ...recorded.summaries,
      ...Object.values(recorded.outputs).map(String),
    ].join('\n');
    for (const secret of [TOKEN, CF]) {
      for (const form of forms(secret)) expect(everything).not.toContain(form.slice(4, -4));
    }
    expect(everything).toContain('***');
    expect(JSON.parse(String(recorded.outputs.report)).problems[0]).toContain('***');
  });

  it('writes no log line that starts a workflow command', async () => {
    const recorded = await hostileRun();
    const lines = [...recorded.lines, ...recorded.failed].flatMap((text) => text.split(/\r\n|\r|\n/));
    expect(lines.filter((line) => line.trimStart().startsWith('::') || line.includes('##['))).toEqual([]);
    expect(recorded.lines).toContain('[1/1] preview-1\\n::warning title=X::fake\\n::add-mask::preview…');
  });

  it('redacts the pull request comment: a secret echoed by a server is not posted in public', async () => {
    const posted: string[] = [];
    const github: GitHubPullRequests = {
      get: async (number) => ({ number, title: 'x', state: 'open' }),
      list: async () => [],
      known: () => new Map(),
      asked: () => [],
      upsertComment: async (_number, _marker, body) => {
        posted.push(body);
        return 'created';
      },
      commentOnce: async (_number, _marker, body) => {
        posted.push(body);
        return 'created';
      },
    };
    const { deps } = dependencies(
      INPUTS,
      async (_settings, options) => {
        await options.github?.upsertComment(7, '<!-- m -->', `It held data of holder ${TOKEN}.`);
        return runReport({ slots: [] });
      },
      { gitHub: () => github },
    );
    await run(deps);
    expect(posted).toEqual(['It held data of holder ***.']);
  });

  it('masks every form of every secret with the runner, a refused input included', async () => {
    const { deps, recorded } = dependencies(
      { ...INPUTS, 'max-slots': 'many', 'github-token': 'gh-x1' },
      async () => runReport({ slots: [] }),
    );
    await run(deps);
    expect(recorded.failed[0]).toMatch(/input 'max-slots'/);
    expect(recorded.secrets).toEqual(
      expect.arrayContaining([
        TOKEN,
        encodeURIComponent(TOKEN),
        'Bearer gh-x1',
        Buffer.from(CF).toString('base64'),
      ]),
    );
  });
});

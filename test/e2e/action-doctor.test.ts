// `command: doctor` through the bundled action (dist/index.js as the runner starts it), against the
// real semaphore, the Cloudflare twin and a GitHub double the real Octokit talks to: a holder whose
// pull request closed is a problem (with the command that ends its lease), the step fails with one
// annotation per slot that has a problem, the summary has the table, and nothing changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/report/model.ts';
import { runAction } from '../support/action-run.ts';
import { type ActionStack, actionInputs, expectNoLeaks, startActionStack } from '../support/action-stack.ts';
import { expectedExitCode } from '../support/exit-policy.ts';
import { slotSeed } from '../support/twin-slot.ts';

const TOKENS = {
  semaphore: 'sem-doctor-5b2e9c1d7a',
  cloudflare: 'cf-doctor-8d3a6f0e21',
  github: 'ghs-doctor-c47e1a9b30',
};
const HOUR = 3_600_000;

let stack: ActionStack;

beforeAll(async () => {
  stack = await startActionStack(TOKENS);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

describe('command: doctor', () => {
  it('finds the slot of a closed pull request, fails the step once per slot with a problem, and changes nothing', async () => {
    const pool = 'doctor-action';
    const slugs = ['doc-1', 'doc-2', 'doc-3'];
    stack.twin.seed(slotSeed(stack.config, slugs, slugs));
    for (const slug of slugs) await stack.client.add({ type: pool, slug });
    await stack.client.acquireSpecific({ type: pool, slug: 'doc-1', holder: 'pr-91', leaseMs: HOUR });
    await stack.client.acquireSpecific({ type: pool, slug: 'doc-2', holder: 'pr-92', leaseMs: HOUR });
    stack.github.pullRequests.set(91, 'open');
    stack.github.pullRequests.set(92, 'merged');
    const before = await stack.client.list(pool);

    const run = await runAction(
      actionInputs(stack, pool, { command: 'doctor', 'github-token': TOKENS.github }),
      { env: { GITHUB_API_URL: stack.github.url } },
    );
    expectNoLeaks(run, Object.values(TOKENS));
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(
      '::error::preview-gc doctor: doc-2 has a problem. The job summary says what was found and what to do.',
    );
    const annotations = run.stdout.split('\n').filter((line) => line.startsWith('::error title='));
    expect(annotations).toEqual([
      expect.stringMatching(
        /^::error title=preview-gc%3A doc-2 has a problem::held by pr-92, whose pull request is merged: its cleanup did not run.*Fix: preview-gc cleanup --pr 92/,
      ),
    ]);
    expect(run.summary.split('\n')[0]).toBe(
      '## ❌ preview-gc doctor on pool `doctor-action`: 1 of 3 slots has a problem',
    );
    expect(run.summary).toContain('| Slot | State | Holder | Lease | Resources | Verdict |');
    expect(run.summary).toMatch(
      /\| `doc-2` \| leased \| \[pr-92\]\(https:\/\/github\.com\/acme\/shop\/pull\/92\) Change number 92 \(merged\) \| ends in 1 h \| 4 of 4 \| ❌ 1 problem \|/,
    );
    expect(run.summary).toMatch(/\| `doc-1` \| leased \| .* \| 4 of 4 \| ✅ ok \|/);
    const report = JSON.parse(run.outputs.report ?? '{}') as RunReport;
    expect(report.doctor?.rows.map((row) => row.slug)).toEqual(slugs);
    expect(run.exitCode).toBe(expectedExitCode(report));
    expect((await stack.client.list(pool)).resources).toEqual(before.resources);
  });
});

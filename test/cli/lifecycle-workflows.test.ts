// The workflows the README tells adopters to copy are the ones kept (and linted by `npm run lint`)
// under .depot/workflows, apart from the runner, the name and where the action comes from; and the
// lifecycle's rules hold in them: deploy and cleanup share one concurrency group per pull request,
// the cleanup cancels a deploy in flight, checks out the default branch and has no paths filter, and
// the deploy asks for no more permissions than it uses.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const WORKFLOWS = [
  { readme: 'preview-deploy.yml', depot: 'cloudflare-preview-deploy.yml' },
  { readme: 'preview-gc.yml', depot: 'cloudflare-preview-gc.yml' },
  { readme: 'preview-cleanup.yml', depot: 'cloudflare-preview-cleanup.yml' },
];

interface Workflow {
  name: string;
  on: Record<string, { types?: string[]; paths?: string[] } | null>;
  concurrency: { group: string; 'cancel-in-progress': boolean };
  permissions: Record<string, string>;
  jobs: Record<
    string,
    {
      'runs-on': string;
      if?: string;
      needs?: string;
      steps: { uses?: string; with?: Record<string, unknown>; env?: Record<string, string>; run?: string }[];
    }
  >;
}

/** The YAML block that follows the README's line naming the file. */
function readmeWorkflow(readme: string, file: string): Workflow {
  const start = readme.indexOf(`\`.github/workflows/${file}\``);
  const block = /```yaml\n([\s\S]*?)```/.exec(readme.slice(start));
  if (start < 0 || block === null) throw new Error(`the README shows no ${file}`);
  return parse(block[1] ?? '') as Workflow;
}

/** What may differ between the README's copy and Depot's: the name, the runner, the action's source. */
function comparable(workflow: Workflow): unknown {
  const jobs = Object.fromEntries(
    Object.entries(workflow.jobs).map(([id, job]) => [
      id,
      {
        ...job,
        'runs-on': '(runner)',
        steps: job.steps.map((step) =>
          step.uses === './' || step.uses === 'your-org/preview-gc@v1'
            ? { ...step, uses: '(preview-gc)' }
            : step,
        ),
      },
    ]),
  );
  return { ...workflow, name: '(name)', jobs };
}

async function load(): Promise<{ readme: Workflow; depot: Workflow }[]> {
  const readme = await readFile('README.md', 'utf8');
  return Promise.all(
    WORKFLOWS.map(async (pair) => ({
      readme: readmeWorkflow(readme, pair.readme),
      depot: parse(await readFile(`.depot/workflows/${pair.depot}`, 'utf8')) as Workflow,
    })),
  );
}

describe('the workflows adopters copy', () => {
  it('are the linted Depot workflows, apart from the name, the runner and the action source', async () => {
    for (const { readme, depot } of await load()) expect(comparable(readme)).toEqual(comparable(depot));
  });

  it('run deploy and cleanup in one group per pull request, the cleanup cancelling a deploy in flight', async () => {
    const [deploy, , cleanup] = (await load()).map((pair) => pair.depot);
    expect(deploy?.concurrency).toEqual({
      group: 'preview-${{ github.event.pull_request.number }}',
      'cancel-in-progress': false,
    });
    expect(cleanup?.concurrency).toEqual({
      group: 'preview-${{ github.event.pull_request.number }}',
      'cancel-in-progress': true,
    });
    expect(deploy?.on).toEqual({ pull_request: { types: ['opened', 'synchronize', 'reopened'] } });
    expect(cleanup?.on).toEqual({ pull_request: { types: ['closed'] } });
  });

  it('check out the default branch for cleanup, and give deploy and gc only what they use', async () => {
    const [deploy, gc, cleanup] = (await load()).map((pair) => pair.depot);
    const checkout = cleanup?.jobs.cleanup?.steps.find((step) => step.uses?.startsWith('actions/checkout'));
    expect(checkout?.with).toEqual({ ref: '${{ github.event.repository.default_branch }}' });
    // id-token: write is the deploy's sign-in to the semaphore (its OIDC token), in place of a secret.
    expect(deploy?.permissions).toEqual({ contents: 'read', 'pull-requests': 'write', 'id-token': 'write' });
    // gc writes the warning before reclaim on the pull request (issue 31).
    expect(gc?.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    const acquire = deploy?.jobs.deploy?.steps.find((step) => step.with?.command === 'acquire');
    expect(acquire?.with).toMatchObject({ command: 'acquire', comment: true });
  });

  it("skip Dependabot's pull requests (no secrets) and deploy with the app's own pinned wrangler", async () => {
    for (const { readme, depot } of await load()) {
      if (depot.name !== 'cloudflare-preview-deploy') continue;
      for (const workflow of [readme, depot]) {
        const job = workflow.jobs.deploy;
        expect(job?.if).toContain("github.actor != 'dependabot[bot]'");
        expect(job?.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
        const steps = job?.steps ?? [];
        const install = steps.findIndex((step) => step.run === 'npm ci');
        const deploy = steps.findIndex((step) => step.run?.includes('wrangler deploy'));
        expect(install).toBeGreaterThan(-1);
        expect(deploy).toBeGreaterThan(install);
        // npx without --no-install would download the newest wrangler when the app has none.
        const commands = (steps[deploy]?.run ?? '').split('\n').filter((line) => line.includes('wrangler'));
        for (const command of commands) expect(command).toMatch(/^npx --no-install wrangler /);
      }
    }
  });

  it('renew the lease in the e2e job: it acquires again as the same pull request, then checks the slot is the deployed one', async () => {
    for (const { readme, depot } of await load()) {
      if (depot.name !== 'cloudflare-preview-deploy') continue;
      for (const workflow of [readme, depot]) {
        const e2e = workflow.jobs.e2e;
        expect(e2e?.needs).toBe('deploy');
        const steps = e2e?.steps ?? [];
        const renew = steps.findIndex((step) => step.with?.command === 'acquire');
        const check = steps.findIndex((step) => step.env?.DEPLOYED === '${{ needs.deploy.outputs.slot }}');
        const tests = steps.findIndex((step) => step.run?.includes('npm run e2e') === true);
        // The pull request comes from the event, as in the deploy: the same holder, so the same slot.
        expect(steps[renew]?.with?.['pull-request']).toBeUndefined();
        expect(steps[check]?.env?.RENEWED).toBe('${{ steps.slot.outputs.slot }}');
        expect(renew).toBeGreaterThanOrEqual(0);
        expect(check).toBeGreaterThan(renew);
        expect(tests).toBeGreaterThan(check);
      }
    }
  });
});

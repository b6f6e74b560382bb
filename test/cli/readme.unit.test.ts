// The README's inputs and outputs tables and its CLI reference are generated; this fails `npm test`
// when action.yml or the CLI changed and `npm run readme` was not run, so the README cannot drift.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { updateReadme } from '../../scripts/readme-inputs.ts';

describe('README.md', () => {
  it('has the inputs and outputs of action.yml and the CLI reference as they are (npm run readme)', async () => {
    const [readme, actionYml] = await Promise.all([
      readFile('README.md', 'utf8'),
      readFile('action.yml', 'utf8'),
    ]);
    expect(updateReadme(readme, actionYml)).toBe(readme);
  });

  it('notices a drift: an input added to action.yml changes the table', async () => {
    const [readme, actionYml] = await Promise.all([
      readFile('README.md', 'utf8'),
      readFile('action.yml', 'utf8'),
    ]);
    const withNewInput = actionYml.replace(
      'inputs:\n',
      'inputs:\n  sweep-color:\n    description: "A new input | with a pipe."\n    required: false\n',
    );
    const updated = updateReadme(readme, withNewInput);
    expect(updated).not.toBe(readme);
    expect(updated).toContain('| `sweep-color` | no | – | A new input \\| with a pipe. |');
  });

  it('keeps the quick start commands CI runs', async () => {
    const readme = await readFile('README.md', 'utf8');
    const quickStart = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
    );
    for (const command of ['npm ci', 'npm start', 'npm test']) expect(quickStart).toContain(`\n${command} `);
  });
});

// The README's inputs and outputs tables and its CLI reference are generated; this fails `npm test`
// when action.yml or the CLI changed and `npm run readme` was not run, so the README cannot drift.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { updateGenerated, updateReadme } from '../../scripts/readme-inputs.ts';
import { TOKEN_PERMISSIONS } from '../../src/kinds/permissions.ts';
import { headingAnchor } from '../docs/references.ts';

async function generatedFiles() {
  const [readme, actionYml, configDoc, security] = await Promise.all(
    ['README.md', 'action.yml', 'docs/config.md', 'SECURITY.md'].map((path) => readFile(path, 'utf8')),
  );
  return {
    readme: readme ?? '',
    actionYml: actionYml ?? '',
    configDoc: configDoc ?? '',
    security: security ?? '',
  };
}

/** A section of the README: from its heading to the next heading of the same level. */
function section(readme: string, heading: string): string {
  const start = readme.indexOf(heading);
  const level = heading.slice(0, heading.indexOf(' ') + 1);
  return readme.slice(start, readme.indexOf(`\n${level}`, start + 1));
}

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

  it('lists the API token permissions of src/kinds/permissions.ts alike in the README, docs/config.md, SECURITY.md and action.yml', async () => {
    const files = await generatedFiles();
    expect(updateGenerated(files)).toEqual(files);
    for (const permission of TOKEN_PERMISSIONS) {
      expect(files.readme).toContain(`| ${permission.dashboard} | ${permission.apiName} |`);
      expect(files.configDoc).toContain(`**${permission.dashboard}** (API name \`${permission.apiName}\`)`);
      expect(files.security).toContain(`**${permission.dashboard}** (API name \`${permission.apiName}\`)`);
      expect(files.actionYml).toContain(permission.dashboard);
    }
  });

  it("points SECURITY.md's token section at the README step whose table those permissions are", async () => {
    const { readme, security } = await generatedFiles();
    const token = section(security, '### `CLOUDFLARE_API_TOKEN`');
    const link = /\]\(README\.md#([^)]+)\)/.exec(token)?.[1];
    const step = readme
      .split('\n')
      .find((line) => line.startsWith('### ') && headingAnchor(line.slice(4)) === link);
    expect(step).toBe('### 2. Create the Cloudflare API token');
    expect(section(readme, step ?? '')).toContain('<!-- permissions:start');
  });

  it('says which outcome cleanup reports: reclaimed when its teardown finished, released when it did not', async () => {
    const readme = await readFile('README.md', 'utf8');
    const outcomes = section(readme, '## Outcomes, and what to do about each');
    const row = (outcome: string) =>
      outcomes.split('\n').find((line) => line.startsWith(`| \`${outcome}\` |`));
    expect(row('reclaimed')).toContain('`cleanup` when its teardown finished');
    expect(row('released')).toContain('`cleanup`, when its teardown did not finish');
  });

  it("says npm ci's EBADENGINE warnings on an older Node are expected, and why", async () => {
    const readme = await readFile('README.md', 'utf8');
    const quickStart = section(readme, '## Quick start');
    expect(quickStart).toContain('`npm warn EBADENGINE`');
    expect(quickStart).toContain("runs on that Node 24, not on the machine's");
  });

  it("adopts the slots dirty into the config's pool, and rehearses on npm run stack", async () => {
    const adoption = section(await readFile('README.md', 'utf8'), '## Use it in your repository');
    const commands = adoption.split('\n').filter((line) => line.startsWith('preview-gc '));
    expect(commands[0]).toMatch(/^preview-gc slots sync --count 9 --dirty --dry-run /);
    expect(commands[1]).toMatch(/^preview-gc slots sync --count 9 --dirty /);
    // The pool comes from the config, so the slots land in the pool the sweeps work on.
    for (const command of commands) expect(command).not.toContain('--pool');
    expect(adoption).toContain('npm run stack -- --seed ');
  });

  it('claims no "never creates or deletes" that slots provision and erase: recreate would make false', async () => {
    const { readme, security } = await generatedFiles();
    // The CLI's help is in the README (generated), so this reads it too.
    for (const text of [readme, security]) {
      expect(text).not.toMatch(
        /never (creates|deletes|create or delete|creates or deletes) (a )?resources?\b/,
      );
      expect(text).not.toMatch(/never deletes a Worker, database/);
      expect(text).not.toMatch(/never creates\b/);
    }
    expect(readme).toContain('`erase: recreate`, deleted and made\nagain under its name');
    expect(readme).toContain('slots add creates and deletes none (slots provision creates what');
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

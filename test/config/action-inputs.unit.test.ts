// action.yml and the settings schema describe the same inputs. The defaults live in the schema (the
// bundled CLI ships without action.yml, so nothing can read it at run time); this test fails when
// action.yml names an input the schema lacks, or the other way round, or gives another default.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { commandHelp } from '../../src/cli/help.ts';
import { COMMANDS } from '../../src/cli/main.ts';
import { INPUT_NAMES, inputDefault } from '../../src/config/settings.ts';

interface ActionInput {
  default?: string;
}

async function actionInputs(): Promise<Record<string, ActionInput>> {
  const action = parse(await readFile('action.yml', 'utf8')) as { inputs: Record<string, ActionInput> };
  return action.inputs;
}

/** Defaults only the runner can fill: a workflow expression is not a value the schema could hold. */
const RUNNER_DEFAULTS = { 'github-token': '${{ github.token }}' };

describe('action.yml and the settings schema', () => {
  it('name the same inputs', async () => {
    expect(Object.keys(await actionInputs()).sort()).toEqual([...INPUT_NAMES].sort());
  });

  it('give every input the same default', async () => {
    const inputs = await actionInputs();
    const fromYaml = Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, input.default]));
    const fromSchema = Object.fromEntries(
      INPUT_NAMES.map((name) => [
        name,
        RUNNER_DEFAULTS[name as keyof typeof RUNNER_DEFAULTS] ?? inputDefault(name),
      ]),
    );
    expect(fromSchema).toEqual(fromYaml);
  });
});

describe('CLI help', () => {
  const flagsWithInput = COMMANDS.flatMap((spec) =>
    Object.entries(spec.options)
      .filter(([, option]) => option.type === 'string' && option.input !== undefined)
      .map(([flag, option]) => ({ spec, flag, input: option.input ?? '' })),
  );

  it('shows the schema default of every flag that sets an input', () => {
    const withDefault = flagsWithInput.filter(({ input }) => inputDefault(input) !== undefined);
    expect(withDefault.map(({ flag }) => flag)).toContain('gc-lease-minutes');
    for (const { spec, flag, input } of withDefault) {
      const line = commandHelp(spec)
        .split('\n')
        .find((text) => new RegExp(`^ +(-\\w, )?--${flag} `).test(text));
      expect(line, `${spec.name} --${flag}`).toContain(`Default: ${inputDefault(input)}.`);
    }
  });
});

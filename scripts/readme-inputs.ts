// The docs' generated parts: the README's inputs and outputs tables from action.yml, its CLI reference
// from the CLI's own command specs, and the API token's permissions (the README's table, docs/config.md,
// SECURITY.md and action.yml's description of the token input) from src/kinds/permissions.ts (each kind's
// permission comes from its module in src/kinds/), so none can
// drift from what runs. `npm run readme` rewrites them in place; `--check` fails when they are stale
// (test/cli/readme.unit.test.ts runs it in `npm test`).
import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { z } from 'zod';
import { commandHelp } from '../src/cli/help.ts';
import { COMMANDS, PROGRAM_HELP } from '../src/cli/main.ts';
import { PROVISION_PERMISSIONS, TOKEN_PERMISSIONS, type TokenPermission } from '../src/kinds/permissions.ts';
import { listed } from '../src/text/words.ts';

const actionSchema = z.object({
  inputs: z.record(
    z.string(),
    z.object({
      description: z.string(),
      required: z.boolean().optional(),
      default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    }),
  ),
  outputs: z.record(z.string(), z.object({ description: z.string() })),
});

/** A table cell: GFM splits cells on '|', and a line break would end the row. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function code(text: string): string {
  return `\`${text.replace(/\|/g, '\\|')}\``;
}

export function inputsTable(actionYml: string): string {
  const action = actionSchema.parse(parse(actionYml));
  const rows = Object.entries(action.inputs).map(([name, input]) => {
    const fallback = input.default === undefined || input.default === '' ? '–' : code(String(input.default));
    return `| ${code(name)} | ${input.required === true ? 'yes' : 'no'} | ${fallback} | ${cell(input.description)} |`;
  });
  return ['| Input | Required | Default | Description |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

export function outputsTable(actionYml: string): string {
  const action = actionSchema.parse(parse(actionYml));
  const rows = Object.entries(action.outputs).map(
    ([name, output]) => `| ${code(name)} | ${cell(output.description)} |`,
  );
  return ['| Output | Description |', '| --- | --- |', ...rows].join('\n');
}

/** The CLI's commands, one line each, then every command's full help. */
export function cliReference(): string {
  const rows = COMMANDS.map(
    (spec) => `| \`preview-gc ${spec.usage[0] ?? spec.name}\` | ${cell(spec.summary)} |`,
  );
  const helps = COMMANDS.flatMap((spec) => [
    `<details><summary><code>preview-gc ${spec.name} --help</code></summary>`,
    '',
    '```text',
    commandHelp(spec),
    '```',
    '',
    '</details>',
    '',
  ]);
  return [
    '| Command | What it does |',
    '| --- | --- |',
    ...rows,
    '',
    '```text',
    PROGRAM_HELP.slice(PROGRAM_HELP.indexOf('Environment')),
    '```',
    '',
    ...helps,
  ]
    .join('\n')
    .trimEnd();
}

/** When a permission is needed, before what it is for: `only when …: `, `optional, only for …: ` or nothing. */
function whenNeeded(permission: TokenPermission): string {
  if (permission.onlyFor !== undefined) return `optional, only for ${permission.onlyFor}: `;
  return permission.onlyWhen === undefined ? '' : `only when ${permission.onlyWhen}: `;
}

/** The README's token table: what to tick in the dashboard, and why. */
export function permissionsTable(): string {
  const rows = TOKEN_PERMISSIONS.map((permission) => {
    const use = `${whenNeeded(permission)}${permission.use}`;
    return `| ${cell(permission.dashboard)} | ${cell(permission.apiName)} | ${cell(use)} |`;
  });
  const provision = PROVISION_PERMISSIONS.map(
    (permission) =>
      `| ${cell(permission.dashboard)} | ${cell(permission.apiName)} | ${cell(permission.use)} |`,
  );
  return [
    '| Permission (dashboard) | API name | What preview-gc does with it |',
    '| --- | --- | --- |',
    ...rows,
    '',
    'Only `preview-gc slots provision` creates (gc, cleanup and acquire never do): it needs no',
    'permission more, for Cloudflare has none that empties a store without also creating one, so this',
    'is what the same permissions do there:',
    '',
    '| Permission (dashboard) | API name | What `slots provision` does with it |',
    '| --- | --- | --- |',
    ...provision,
  ].join('\n');
}

/** docs/config.md's list of the same permissions. */
export function permissionsList(): string {
  return TOKEN_PERMISSIONS.map((permission) => {
    const when =
      permission.onlyFor !== undefined
        ? `, optional, only for ${permission.onlyFor}`
        : permission.onlyWhen === undefined
          ? ''
          : `, only when ${permission.onlyWhen}`;
    return `- **${permission.dashboard}** (API name \`${permission.apiName}\`) for ${permission.resources}${when}: ${permission.use}.`;
  }).join('\n');
}

/** action.yml's description of the token input. */
export function tokenInputDescription(): string {
  const always = TOKEN_PERMISSIONS.filter(
    (permission) => permission.onlyWhen === undefined && permission.onlyFor === undefined,
  );
  const sometimes = TOKEN_PERMISSIONS.filter((permission) => permission.onlyWhen !== undefined).map(
    (permission) => ` (and ${permission.dashboard} when ${permission.onlyWhen})`,
  );
  const optional = TOKEN_PERMISSIONS.filter((permission) => permission.onlyFor !== undefined).map(
    (permission) => `; optionally ${permission.dashboard}, only for ${permission.onlyFor}`,
  );
  return `Cloudflare API token with ${listed(always.map((permission) => permission.dashboard))}${sometimes.join('')} on the account of the slots${optional.join('')}. Required for acquire, gc and cleanup.`;
}

/** action.yml with the token input's description as permissions.ts says; the rest as it was. */
export function updateActionYml(actionYml: string): string {
  const line = /(\n {2}cloudflare-api-token:\n {4}description: )"[^"\n]*"/;
  if (!line.test(actionYml))
    throw new Error('action.yml has no cloudflare-api-token input with a description');
  return actionYml.replace(line, (_, head: string) => `${head}${JSON.stringify(tokenInputDescription())}`);
}

const NOTE = 'generated by `npm run readme`; edit action.yml or the CLI, not this block';
const PERMISSIONS_NOTE =
  'generated by `npm run readme`; edit the kind in src/kinds/ or src/kinds/permissions.ts, not this block';

function replaceBlock(readme: string, name: string, body: string, note = NOTE): string {
  const start = `<!-- ${name}:start (${note}) -->`;
  const end = `<!-- ${name}:end -->`;
  const block = new RegExp(`<!-- ${name}:start[^>]*-->[\\s\\S]*?<!-- ${name}:end -->`);
  if (!block.test(readme)) throw new Error(`no <!-- ${name}:start --> … <!-- ${name}:end --> markers`);
  return readme.replace(block, () => `${start}\n${body}\n${end}`);
}

/** The README with every generated block brought up to date. */
export function updateReadme(readme: string, actionYml: string): string {
  const blocks: [string, string][] = [
    ['inputs', inputsTable(actionYml)],
    ['outputs', outputsTable(actionYml)],
    ['cli', cliReference()],
  ];
  const updated = blocks.reduce((text, [name, body]) => replaceBlock(text, name, body), readme);
  return replaceBlock(updated, 'permissions', permissionsTable(), PERMISSIONS_NOTE);
}

/** docs/config.md (and SECURITY.md) with its permissions list brought up to date. */
export function updateConfigDoc(configDoc: string): string {
  return replaceBlock(configDoc, 'permissions', permissionsList(), PERMISSIONS_NOTE);
}

const CONFIG_DOC = 'docs/config.md';

/** Every generated file as it should be, from the files as they are; action.yml first, the README reads it. */
export function updateGenerated(files: {
  readme: string;
  actionYml: string;
  configDoc: string;
  security: string;
}) {
  const actionYml = updateActionYml(files.actionYml);
  return {
    readme: updateReadme(files.readme, actionYml),
    actionYml,
    configDoc: updateConfigDoc(files.configDoc),
    security: updateConfigDoc(files.security),
  };
}

const FILES = {
  readme: 'README.md',
  actionYml: 'action.yml',
  configDoc: CONFIG_DOC,
  security: 'SECURITY.md',
} as const;

if (import.meta.main) {
  const [readme, actionYml, configDoc, security] = await Promise.all(
    Object.values(FILES).map((path) => readFile(path, 'utf8')),
  );
  const current = {
    readme: readme ?? '',
    actionYml: actionYml ?? '',
    configDoc: configDoc ?? '',
    security: security ?? '',
  };
  const updated = updateGenerated(current);
  const stale = (Object.keys(FILES) as (keyof typeof FILES)[]).filter((key) => updated[key] !== current[key]);
  if (process.argv.includes('--check')) {
    if (stale.length > 0) {
      console.error(
        `${stale.map((key) => FILES[key]).join(', ')}: generated parts differ from their sources: run 'npm run readme' and commit.`,
      );
      process.exit(1);
    }
    console.log(
      'The generated parts of README.md, action.yml, docs/config.md and SECURITY.md are up to date.',
    );
  } else {
    for (const key of stale) await writeFile(FILES[key], updated[key]);
    console.log(
      stale.length > 0
        ? `Updated: ${stale.map((key) => FILES[key]).join(', ')}.`
        : 'README.md, action.yml, docs/config.md and SECURITY.md are up to date.',
    );
  }
}

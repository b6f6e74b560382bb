// The preview's own settings, where wrangler users keep them: an `env.preview` block (its name is the
// slot config's `deploy.env`) applied onto the top level of the app's config as
// `wrangler deploy --env preview` would deploy it. Every key the block gives replaces the top level's;
// a key wrangler does not inherit into an environment (vars and every binding: wrangler-keys.ts) is
// the block's alone, so production's vars and bindings that the block leaves out are left out too.
// The result is the config every later step (placement, the slot's copy) reads.
import { stringify as stringifyToml } from 'smol-toml';
import { type AppWranglerConfig, WranglerConfigError } from './app-config.ts';
import { type ConfigEdit, editJsonc, editTable, isTable } from './config-edits.ts';
import { NOT_INHERITABLE } from './wrangler-keys.ts';

/** The block `env.<name>` of the app's config, or undefined when it has none. */
function envBlock(app: AppWranglerConfig, name: string): Record<string, unknown> | undefined {
  const envs = app.top.env;
  if (!isTable(envs) || !Object.hasOwn(envs, name)) return undefined;
  const block = envs[name];
  if (isTable(block)) return block;
  throw new WranglerConfigError(app.file, [
    `${app.file} env.${name}: must be a table of wrangler settings for the preview, e.g. { "vars": { "MODE": "preview" } }`,
  ]);
}

function editsFor(top: Readonly<Record<string, unknown>>, name: string, block: Record<string, unknown>) {
  const edits: ConfigEdit[] = [];
  for (const [key, value] of Object.entries(block)) if (key !== 'env') edits.push({ path: [key], value });
  // wrangler names an environment's Worker `<name>-<env>` unless the block names it: the block's own
  // Durable Object bindings name their Worker so.
  if (block.name === undefined && typeof top.name === 'string')
    edits.push({ path: ['name'], value: `${top.name}-${name}` });
  for (const key of NOT_INHERITABLE)
    if (!Object.hasOwn(block, key) && top[key] !== undefined) edits.push({ path: [key], value: undefined });
  return edits;
}

/**
 * The app's config as its `env.<name>` deploys, with `env` set to the name applied; the config as it
 * is when it has no such block.
 */
export function applyPreviewEnv(app: AppWranglerConfig, name: string): AppWranglerConfig {
  const block = envBlock(app, name);
  if (block === undefined) return app;
  const edits = editsFor(app.top, name, block);
  const top = structuredClone(app.top) as Record<string, unknown>;
  editTable(top, edits);
  const text = app.format === 'toml' ? stringifyToml(top) : editJsonc(app.text, edits);
  return { ...app, text, top, env: name };
}

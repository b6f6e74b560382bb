// The bindings of the app's wrangler config that reach something no slot has: a Hyperdrive (the
// production database), a service binding to a Worker outside the slot, an mTLS certificate, a
// dispatch namespace, an Analytics Engine dataset, a Secrets Store secret, a Workflow (its name is
// the account's), and every key preview-gc does not know (wrangler-keys.ts). Each is refused before a slot is taken,
// naming the binding and its place in the file, with the two fixes: the preview env block gives its
// own, or the slot config's `deploy.shared` shares it on purpose (listed in the summary and comment).
import { type ConfigPath, pathText, type WranglerReference } from '../../kinds/wrangler-binding.ts';
import { quoted } from '../../text/log-text.ts';
import type { SlotConfig } from '../slot-config-schema.ts';
import type { AppWranglerConfig } from './app-config.ts';
import { valueAt } from './config-edits.ts';
import { isKnownKey, treatmentOf } from './wrangler-keys.ts';

/** A binding the preview shares with whatever it names, because the slot config says so. */
export interface SharedBinding {
  /** Its name (`HYPERDRIVE`), or the key for a setting that is not a list of bindings. */
  name: string;
  /** Where it is in the app's config: `env.preview.hyperdrive[0]`. */
  place: string;
}

export interface OutsideReading {
  shared: SharedBinding[];
  problems: string[];
}

interface OutsideBinding extends SharedBinding {
  /** What the key binds, for the message. */
  key: string;
  /** One of a list of bindings: sharing the key would share every one a branch adds, so only its name shares it. */
  listed: boolean;
}

function nameOf(entry: unknown, fallback: string): string {
  const fields = entry as { binding?: unknown; name?: unknown; service?: unknown } | null;
  for (const name of [fields?.binding, fields?.name, fields?.service])
    if (typeof name === 'string' && name.length > 0) return name;
  return fallback;
}

/** The bindings under one outside key: a list's entries, a table's `bindings`, or the key itself. */
function bindingsUnder(app: AppWranglerConfig, key: string): OutsideBinding[] {
  const value = app.top[key];
  const at = (path: (string | number)[]) => placeInFile(app, path);
  if (Array.isArray(value))
    return value.map((entry: unknown, index) => ({
      key,
      name: nameOf(entry, key),
      place: at([key, index]),
      listed: true,
    }));
  const bindings = (value as { bindings?: unknown } | null)?.bindings;
  if (Array.isArray(bindings))
    return bindings.map((entry: unknown, index) => ({
      key,
      name: nameOf(entry, key),
      place: at([key, 'bindings', index]),
      listed: true,
    }));
  return [{ key, name: nameOf(value, key), place: at([key]), listed: false }];
}

/**
 * Where `path` (of the applied config) is in the file: under `env.<name>` when the preview env block
 * gave its key, at the top level otherwise.
 */
function placeInFile(app: AppWranglerConfig, path: ConfigPath): string {
  const block = (app.top.env as Record<string, Record<string, unknown>> | undefined)?.[app.env ?? ''];
  const key = String(path[0]);
  const inEnv = app.env !== undefined && block !== undefined && Object.hasOwn(block, key);
  return pathText(inEnv ? ['env', app.env ?? '', ...path] : path);
}

/** A name `deploy.shared` can hold, shown as it is; anything else from the file is shown quoted. */
const SHAREABLE = /^[A-Za-z0-9_$-]{1,256}$/;

function nameText(name: string): string {
  return SHAREABLE.test(name) ? name : quoted(name);
}

function problemOf(binding: OutsideBinding, app: AppWranglerConfig, config: SlotConfig): string {
  const known = isKnownKey(binding.key);
  const what = known
    ? `${binding.place} (binding ${nameText(binding.name)}) is not a resource of the slot, so the preview would use what it names now (production's, often)`
    : `${quoted(binding.place)} is a wrangler setting preview-gc does not know, so it cannot tell what the preview would share`;
  const env = app.env ?? config.deploy.env;
  const share = SHAREABLE.test(binding.name)
    ? `share it on purpose with deploy: { shared: [${binding.name}] } in ${config.file}`
    : `give it a name of letters, digits, _ and - to share it on purpose with deploy.shared in ${config.file}`;
  return `${what}; give the preview its own in env.${env} of ${app.file}, or ${share}`;
}

/**
 * A shared name that names bindings of two kinds (a Hyperdrive and a service both called WAREHOUSE):
 * sharing one on purpose must not share the other unawares.
 */
function sharedAcrossKinds(
  outside: readonly OutsideBinding[],
  sharing: ReadonlySet<string>,
  config: SlotConfig,
): string[] {
  const kinds = new Map<string, Set<string>>();
  for (const binding of outside)
    if (sharing.has(binding.name))
      kinds.set(binding.name, (kinds.get(binding.name) ?? new Set()).add(binding.key));
  return [...kinds.entries()]
    .filter(([, keys]) => keys.size > 1)
    .map(
      ([name, keys]) =>
        `${config.file} deploy.shared: ${quoted(name)} names bindings of ${keys.size} kinds (${[...keys].join(', ')}), so sharing one would share the others unawares; give them distinct names`,
    );
}

/**
 * The outside bindings of `app` (its preview env applied), and the unclaimed service bindings
 * placement found: shared where the slot config says so, a problem each otherwise.
 */
export function readOutsideBindings(
  app: AppWranglerConfig,
  config: SlotConfig,
  unclaimedServices: readonly WranglerReference[],
): OutsideReading {
  const outside: OutsideBinding[] = [
    ...Object.keys(app.top)
      .filter((key) => treatmentOf(key) === 'outside')
      .flatMap((key) => bindingsUnder(app, key)),
    ...unclaimedServices.map((reference) => ({
      key: 'services',
      name: nameOf(valueAt(app.top, reference.path), reference.target),
      place: placeInFile(app, reference.path),
      listed: true,
    })),
  ];
  const sharing = new Set(config.deploy.shared);
  const shared: SharedBinding[] = [];
  const problems: string[] = [...sharedAcrossKinds(outside, sharing, config)];
  for (const binding of outside) {
    if (sharing.has(binding.name) || (!binding.listed && sharing.has(binding.key)))
      shared.push({ name: binding.name, place: binding.place });
    else problems.push(problemOf(binding, app, config));
  }
  const used = new Set(outside.flatMap((binding) => [binding.name, binding.key]));
  for (const name of config.deploy.shared.filter((candidate) => !used.has(candidate)))
    problems.push(
      `${config.file} deploy.shared: '${name}' names no binding of ${app.file} outside the slot${outside.length > 0 ? ` (those are ${outside.map((binding) => nameText(binding.name)).join(', ')})` : ''}; fix the name or remove it`,
    );
  return { shared, problems };
}

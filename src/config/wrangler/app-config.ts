// The app's own wrangler config (wrangler.jsonc, wrangler.json or wrangler.toml), read as data: the
// file comes from the pull request's branch, so it is parsed, never run (wrangler's JavaScript
// configs are not read), bounded in size, and refused whole when it is not valid JSONC or TOML or has
// a key that would reach an object's prototype. Its bindings are read by the kinds
// (src/kinds/<kind>/wrangler.ts) and placed by placement.ts.
import { readFile, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { type ParseError, printParseErrorCode, visit } from 'jsonc-parser';
import { parse as parseToml, TomlError } from 'smol-toml';
import { visible } from '../../text/log-text.ts';
import { WranglerConfigError } from '../config-error.ts';

export { WranglerConfigError };

/** The file names wrangler looks for, in its order of preference, when no config is named. */
export const WRANGLER_CONFIG_NAMES = ['wrangler.jsonc', 'wrangler.json', 'wrangler.toml'] as const;

/** A wrangler config lists one Worker's settings: a mebibyte is far more than any has. */
export const MAX_WRANGLER_CONFIG_BYTES = 1024 * 1024;

export type WranglerFormat = 'jsonc' | 'toml';

export interface AppWranglerConfig {
  /** The path it was read from, as given (or found in the working directory). */
  file: string;
  format: WranglerFormat;
  /** The text as read: the JSONC copy is edited in place, so its comments stay. */
  text: string;
  /** The parsed top level. */
  top: Readonly<Record<string, unknown>>;
  /** The `env` block applied onto the top level (preview-env.ts), when one was. */
  env?: string;
}

/** A key that would set an object's prototype as a parser builds it: never data a config needs. */
const PROTOTYPE_KEYS = new Set(['__proto__']);

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

function parseJsonc(file: string, text: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const problems: string[] = [];
  // One pass builds the value and checks every key, so a hostile key is refused before it is used.
  // A key written twice in one object is refused too: this parse keeps the last, the edits of the
  // slot's copy change the first, and wrangler reads the last: a second `account_id` after ours would
  // deploy the preview to production's account.
  const stack: unknown[] = [];
  const keysSeen: Set<string>[] = [];
  let root: unknown;
  let key: string | undefined;
  const place = (value: unknown) => {
    const parent = stack.at(-1);
    if (parent === undefined) root = value;
    else if (Array.isArray(parent)) parent.push(value);
    else if (key !== undefined)
      Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
  };
  try {
    visit(
      text,
      {
        onObjectBegin: () => {
          const object = {};
          place(object);
          stack.push(object);
          keysSeen.push(new Set());
        },
        onObjectEnd: () => {
          stack.pop();
          keysSeen.pop();
        },
        onArrayBegin: () => {
          const array: unknown[] = [];
          place(array);
          stack.push(array);
        },
        onArrayEnd: () => {
          stack.pop();
        },
        onObjectProperty: (name, offset) => {
          key = name;
          const seen = keysSeen.at(-1);
          if (seen?.has(name))
            problems.push(
              `${file}:${lineAndColumn(text, offset)}: the key ${JSON.stringify(name)} is written twice in one object; keep one (wrangler would read the last)`,
            );
          seen?.add(name);
          if (PROTOTYPE_KEYS.has(name))
            problems.push(
              `${file}:${lineAndColumn(text, offset)}: the key ${JSON.stringify(name)} is not a wrangler setting; remove it`,
            );
        },
        onLiteralValue: (value) => place(value),
        onError: (error, offset, length) => errors.push({ error, offset, length }),
      },
      { allowTrailingComma: true, disallowComments: false },
    );
  } catch (error) {
    // Nesting deep enough to exhaust the stack is no config anyone writes.
    if (!(error instanceof RangeError)) throw error;
    throw new WranglerConfigError(file, [
      `${file}: is nested too deeply to be a wrangler config; fix the file`,
    ]);
  }
  for (const error of errors.slice(0, 1))
    problems.push(
      `${file}:${lineAndColumn(text, error.offset)}: is not valid JSONC (${printParseErrorCode(error.error)}); fix the syntax`,
    );
  if (problems.length > 0) throw new WranglerConfigError(file, problems);
  if (root === null || typeof root !== 'object' || Array.isArray(root))
    throw new WranglerConfigError(file, [
      `${file}: must be an object of wrangler settings, e.g. { "name": "app" }`,
    ]);
  return root as Record<string, unknown>;
}

/**
 * The dotted path of a `__proto__` key, or undefined: smol-toml keeps one as an own key of a table
 * without a prototype, where a later assignment would set a prototype; a parser that assigned it would
 * have set the table's prototype instead. Either is refused.
 */
function prototypeKeyPath(value: unknown, path: string): string | undefined {
  // A TOML date is a Date: data, not a table.
  if (typeof value !== 'object' || value === null || value instanceof Date) return undefined;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null)
    return `${path === '' ? '' : `${path}.`}__proto__`;
  for (const [key, inner] of Object.entries(value)) {
    if (PROTOTYPE_KEYS.has(key)) return `${path === '' ? '' : `${path}.`}${key}`;
    const found = prototypeKeyPath(inner, path === '' ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function parseTomlConfig(file: string, text: string): Record<string, unknown> {
  try {
    const table = parseToml(text) as Record<string, unknown>;
    const hostile = prototypeKeyPath(table, '');
    if (hostile !== undefined)
      throw new WranglerConfigError(file, [
        `${file} ${hostile}: the key "__proto__" is not a wrangler setting; remove it`,
      ]);
    return table;
  } catch (error) {
    if (error instanceof WranglerConfigError) throw error;
    if (error instanceof TomlError)
      throw new WranglerConfigError(file, [
        `${file}:${error.line}:${error.column}: is not valid TOML (${visible(error.message.split('\n')[0] ?? '')}); fix the syntax`,
      ]);
    throw error;
  }
}

/** Parses the text of a wrangler config; `file` names it in messages and says its format. */
export function parseAppWranglerConfig(file: string, text: string): AppWranglerConfig {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_WRANGLER_CONFIG_BYTES)
    throw new WranglerConfigError(file, [
      `${file}: is ${bytes} bytes, more than the 1 MiB a wrangler config may have here`,
    ]);
  const format: WranglerFormat = extname(file) === '.toml' ? 'toml' : 'jsonc';
  const top = format === 'toml' ? parseTomlConfig(file, text) : parseJsonc(file, text);
  return { file, format, text, top };
}

/** The path wrangler would use in `directory` when none is named: the first of its three names that exists. */
export async function findWranglerConfig(directory: string): Promise<string | undefined> {
  for (const name of WRANGLER_CONFIG_NAMES) {
    const path = directory === '.' ? name : join(directory, name);
    if (
      await stat(path).then(
        (found) => found.isFile(),
        () => false,
      )
    )
      return path;
  }
  return undefined;
}

/** Reads and parses the wrangler config at `file`; `describeInput` names the setting that gave it. */
export async function loadAppWranglerConfig(file: string, named: string): Promise<AppWranglerConfig> {
  const extension = extname(file);
  if (!['.json', '.jsonc', '.toml'].includes(extension))
    throw new WranglerConfigError(file, [
      `${basename(file)}: is not a .jsonc, .json or .toml file; preview-gc reads wrangler's data configs only, never code. Point ${named} at one`,
    ]);
  let text: string;
  try {
    const { size } = await stat(file);
    if (size > MAX_WRANGLER_CONFIG_BYTES)
      throw new WranglerConfigError(file, [
        `${file}: is ${size} bytes, more than the 1 MiB a wrangler config may have here`,
      ]);
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof WranglerConfigError) throw error;
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new WranglerConfigError(file, [
      missing
        ? `no such file; point ${named} at the app's wrangler config`
        : `cannot be read (${(error as Error).message}); check ${named}`,
    ]);
  }
  return parseAppWranglerConfig(file, text);
}

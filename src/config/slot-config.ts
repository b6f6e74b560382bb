// The slot config (a YAML file in the user's repository) says which Cloudflare resources make up
// one preview slot. It is validated completely before any network call, and every problem names the
// file, the place inside it (`resources.r2[1].expire.after`, line:column) and what to write instead.
// This module reads and parses the file; the schema (slot-config-schema.ts), the diagnostics
// (config-diagnostics.ts) and a slot's expansion (slot-resources.ts) are their own modules, and the
// kinds of resource come from src/kinds/.
import { readFile, stat } from 'node:fs/promises';
import {
  type Alias,
  type Document,
  isAlias,
  isCollection,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  visit,
} from 'yaml';
import { formatCount } from '../text/words.ts';
import { formatPath, locate, problemsOf, segmentsOf } from './config-diagnostics.ts';
import { ConfigError, type ConfigProblem } from './config-error.ts';
import { type DescribeInput, describeActionInput } from './settings.ts';
import {
  nameTemplatesOf,
  SLOT_CONFIG_EXAMPLES,
  type SlotConfig,
  slotConfigSchema,
  templatesOf,
} from './slot-config-schema.ts';
import { protectedTemplates } from './slot-resources.ts';

// What the rest of preview-gc imports from here: the config, its errors and a slot's resources (the
// kinds' own types come from their folders in src/kinds/).
export { ConfigError, type ConfigProblem, ProtectedResourceError } from './config-error.ts';
export { DEFAULT_PROTECT_WORDS, type SlotConfig } from './slot-config-schema.ts';
export { resourcesForSlot, type SlotResources, sharedResourceNames } from './slot-resources.ts';

/**
 * A slot config lists templates, not slots: a mebibyte is far more than any needs, and the bound
 * keeps reading and validating it well under a second.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;

const SHAPE = { schema: slotConfigSchema, examples: SLOT_CONFIG_EXAMPLES };

/** Parses and validates the text of a slot config; `fileName` is only used in messages. */
export function parseSlotConfig(text: string, fileName: string): SlotConfig {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CONFIG_BYTES) throw tooLarge(fileName, bytes);
  const lineCounter = new LineCounter();
  // logLevel 'error': yaml's warnings (a collection used as a key) would go to stderr with text from
  // the file; the schema below refuses such a config and names the key instead.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: 'error' });
  const [syntaxError] = doc.errors;
  if (syntaxError) {
    // Only the first: a YAML mistake makes the parser stumble over everything after it.
    const position = lineCounter.linePos(syntaxError.pos[0]);
    const line = text.split('\n')[position.line - 1] ?? '';
    const hint = /[[{].*\{(slot|n)\}/.test(line)
      ? 'inside [ ] or { } a template needs quotes, e.g. { name: "app-{slot}" }'
      : 'fix the syntax, see the example in docs/config.md';
    throw new ConfigError(fileName, [
      {
        path: '',
        line: position.line,
        column: position.col,
        message: `is not valid YAML (${syntaxError.message.split('\n')[0]}); ${hint}`,
      },
    ]);
  }
  const parsed = slotConfigSchema.safeParse(toPlainData(doc, lineCounter, fileName), { reportInput: true });
  if (!parsed.success)
    throw new ConfigError(fileName, problemsOf(SHAPE, doc, lineCounter, parsed.error.issues));

  const {
    pool,
    resources: entries,
    protect,
    'protect-words': protectWords,
    'worker-previews': workerPreviews,
    deploy,
  } = parsed.data;
  const resources = templatesOf(entries);
  const templates = nameTemplatesOf(resources);
  const positions = Object.fromEntries(
    templates.flatMap(({ path }) => {
      const position = locate(doc, lineCounter, segmentsOf(path));
      return position ? [[path, position]] : [];
    }),
  );
  // One pass with a map: a config of many templates must not take quadratic time to refuse.
  const firstPathOf = new Map<string, string>();
  const duplicates: ConfigProblem[] = [];
  for (const { kind, path, template } of templates) {
    const key = `${kind}\u0000${template}`;
    const firstPath = firstPathOf.get(key);
    if (firstPath === undefined) firstPathOf.set(key, path);
    else
      duplicates.push({
        path,
        ...positions[path],
        message: `'${template}' is listed twice (also at ${firstPath}); remove one of them`,
      });
  }
  if (duplicates.length > 0) throw new ConfigError(fileName, duplicates);
  const refused = protectedTemplates({ protect, protectWords, positions }, templates);
  if (refused.length > 0) throw new ConfigError(fileName, refused);

  return { file: fileName, pool, resources, protect, protectWords, positions, workerPreviews, deploy };
}

/**
 * The document as plain data. yaml refuses aliases that expand into far more than the file (an alias
 * bomb: `b: [*a, *a, …]` of `a: [*x, *x, …]`) by throwing; that refusal names no place, so it becomes a
 * ConfigError naming the alias that expands the most.
 */
function toPlainData(doc: Document, lineCounter: LineCounter, fileName: string): unknown {
  try {
    return doc.toJS();
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    const alias = largestAlias(doc);
    const position = alias === undefined ? undefined : lineCounter.linePos(alias.node.range?.[0] ?? 0);
    throw new ConfigError(fileName, [
      {
        path: alias === undefined ? '' : formatPath(alias.path),
        ...(position === undefined ? {} : { line: position.line, column: position.col }),
        message: `${alias === undefined ? 'uses' : `is the alias *${alias.node.source}, one of`} YAML aliases that expand into far more than the file holds (${error.message.toLowerCase()}); write the values out instead of nesting aliases of aliases`,
      },
    ]);
  }
}

interface PlacedAlias {
  node: Alias;
  path: (string | number)[];
}

/** The alias that stands for the most nodes once expanded: the fuse of an alias bomb. */
function largestAlias(doc: Document): PlacedAlias | undefined {
  const sizes = new Map<unknown, number>();
  const sizeOf = (node: unknown): number => {
    if (isAlias(node)) return sizeOf(node.resolve(doc));
    if (isPair(node)) return sizeOf(node.key) + sizeOf(node.value);
    if (!isCollection(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    // An alias inside its own anchor counts once, so the walk ends.
    sizes.set(node, 1);
    const size = (node.items as unknown[]).reduce<number>(
      (sum, item) => Math.min(Number.MAX_SAFE_INTEGER, sum + sizeOf(item)),
      1,
    );
    sizes.set(node, size);
    return size;
  };
  let largest: (PlacedAlias & { size: number }) | undefined;
  visit(doc, {
    Alias(_key, node, ancestors) {
      const size = sizeOf(node);
      if (largest === undefined || size > largest.size)
        largest = { node, path: keyPath([...ancestors, node]), size };
    },
  });
  return largest;
}

/** The keys and indexes from the document down to the last node of `chain`, e.g. ['d', 3]. */
function keyPath(chain: readonly unknown[]): (string | number)[] {
  return chain.slice(0, -1).flatMap((parent, index): (string | number)[] => {
    const child = chain[index + 1];
    if (isPair(parent) && parent.value === child)
      return [isScalar(parent.key) ? String(parent.key.value) : String(parent.key)];
    if (isSeq(parent)) return [parent.items.indexOf(child)];
    return [];
  });
}

const EXAMPLE_FILE = `pool: preview-slot
resources:
  d1:
    - name: app-{slot}-db`;

function tooLarge(file: string, bytes: number): ConfigError {
  return new ConfigError(file, [
    {
      path: '',
      message: `is ${formatCount(bytes)} bytes, more than the ${formatCount(MAX_CONFIG_BYTES)} (1 MiB) a slot config may have; it lists the templates of one slot, not the slots themselves (see docs/config.md)`,
    },
  ]);
}

/**
 * Reads and validates the slot config at `path`; a file over the size limit is not even read.
 * `describeInput` names the setting that gave the path.
 */
export async function loadSlotConfig(
  path: string,
  describeInput: DescribeInput = describeActionInput,
): Promise<SlotConfig> {
  let text: string;
  try {
    const { size } = await stat(path);
    if (size > MAX_CONFIG_BYTES) throw tooLarge(path, size);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ConfigError(path, [
      {
        path: '',
        message: missing
          ? `no such file; create it (or point ${describeInput('config')} at it), e.g.:\n${EXAMPLE_FILE}\n    (see docs/config.md)`
          : `cannot be read (${(error as Error).message}); check ${describeInput('config')}`,
      },
    ]);
  }
  return parseSlotConfig(text, path);
}

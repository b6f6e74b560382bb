// The slot config (a YAML file in the user's repository) says which Cloudflare resources make up
// one preview slot. It is validated completely before any network call, and every problem names the
// file, the place inside it (`resources.r2[1].expire.after`, line:column) and what to write instead.
import { readFile, stat } from 'node:fs/promises';
import { type Document, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import * as z from 'zod';
import { shellCommand } from '../report/shell.ts';
import { closestWord } from './did-you-mean.ts';
import { parseDurationSeconds } from './duration.ts';
import { firstMatchingGlob, firstProtectedWord } from './glob.ts';
import { type DescribeInput, describeActionInput } from './settings.ts';

/** Words no slot's resource name may contain, in any case: see `protect-words` in docs/config.md. */
export const DEFAULT_PROTECT_WORDS: readonly string[] = ['prod', 'production', 'prd'];
/**
 * A slot config lists templates, not slots: a mebibyte is far more than any needs, and the bound
 * keeps reading and validating it well under a second.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;
export const R2_JURISDICTIONS = ['default', 'eu', 'us', 'fedramp', 'fedramp-high'] as const;
export type R2Jurisdiction = (typeof R2_JURISDICTIONS)[number];

/** One problem in the file: where it is and what to do about it. */
export interface ConfigProblem {
  /** Dotted path inside the file, e.g. `resources.r2[1].expire.after`; '' for the file itself. */
  path: string;
  line?: number;
  column?: number;
  message: string;
}

export class ConfigError extends Error {
  readonly file: string;
  readonly problems: readonly ConfigProblem[];
  constructor(file: string, problems: readonly ConfigProblem[], headline?: string) {
    const lines = problems.map((problem) => `  - ${formatProblem(file, problem)}`);
    super(`${headline ?? `the slot config ${file} was refused (nothing was changed)`}:\n${lines.join('\n')}`);
    this.name = 'ConfigError';
    this.file = file;
    this.problems = problems;
  }
}

/** A resource name of a slot is protected (`protect-words`, `protect`): the slot is refused before any call. */
export class ProtectedResourceError extends ConfigError {
  constructor(file: string, slot: string, problems: readonly ConfigProblem[]) {
    super(file, problems, `refusing to touch slot '${slot}' (no Cloudflare call was made)`);
    this.name = 'ProtectedResourceError';
  }
}

function formatProblem(file: string, problem: ConfigProblem): string {
  const where = problem.line === undefined ? file : `${file}:${problem.line}:${problem.column ?? 1}`;
  return problem.path === ''
    ? `${where}: ${problem.message}`
    : `${where} ${problem.path}: ${problem.message}`;
}

export interface WorkerTemplate {
  name: string;
  durableObjects: 'park' | 'keep';
}
export interface D1Template {
  name: string;
  erase: 'rows' | 'drop';
}
export interface KvTemplate {
  title: string;
}
export interface R2Expiry {
  /** The id of the lifecycle rule preview-gc manages in the bucket. */
  id: string;
  prefix: string;
  afterSeconds: number;
}
export interface R2Template {
  bucket: string;
  jurisdiction: R2Jurisdiction;
  expire: R2Expiry;
}
export interface QueueTemplate {
  name: string;
}
export interface VectorizeTemplate {
  name: string;
}

export interface SlotConfig {
  /** The file the config came from, for messages. */
  file: string;
  pool: string;
  resources: {
    workers: WorkerTemplate[];
    d1: D1Template[];
    kv: KvTemplate[];
    r2: R2Template[];
    queues: QueueTemplate[];
    vectorize: VectorizeTemplate[];
  };
  /** Globs a resource name may not match. */
  protect: string[];
  /** Words a resource name may not contain. */
  protectWords: string[];
  /** Line and column of every name template by its path (`resources.d1[0].name`), for messages. */
  positions: Record<string, { line: number; column: number }>;
}

/** Where a resource of a slot came from, so a failure can name its template. */
interface Origin {
  template: string;
  /** Path of the template in the config, e.g. `resources.d1[0].name`. */
  path: string;
}
export interface SlotWorker extends Origin {
  name: string;
  durableObjects: 'park' | 'keep';
}
export interface SlotD1 extends Origin {
  name: string;
  erase: 'rows' | 'drop';
}
export interface SlotKv extends Origin {
  title: string;
}
export interface SlotR2 extends Origin {
  bucket: string;
  jurisdiction: R2Jurisdiction;
  expire: R2Expiry;
}
export interface SlotQueue extends Origin {
  name: string;
}
export interface SlotVectorIndex extends Origin {
  name: string;
}
/** The concrete resources of one slot, every name expanded and checked against `protect` and `protect-words`. */
export interface SlotResources {
  slot: string;
  workers: SlotWorker[];
  d1: SlotD1[];
  kv: SlotKv[];
  r2: SlotR2[];
  queues: SlotQueue[];
  vectorize: SlotVectorIndex[];
}

export type ResourceKind = 'workers' | 'd1' | 'kv' | 'r2' | 'queues' | 'vectorize';

const KIND_NAMES: Record<ResourceKind, string> = {
  workers: 'Worker',
  d1: 'D1 database',
  kv: 'KV namespace',
  r2: 'R2 bucket',
  queues: 'queue',
  vectorize: 'Vectorize index',
};

/** One name template of the config and where it is: `resources.d1[0].name`. */
interface NameTemplate {
  kind: ResourceKind;
  path: string;
  template: string;
}

/** The key that holds the name template, by kind. */
const NAME_KEYS = {
  workers: 'name',
  d1: 'name',
  kv: 'title',
  r2: 'bucket',
  queues: 'name',
  vectorize: 'name',
} as const;

/** Every name template, in the order of the file (kind by kind). */
function nameTemplatesOf(resources: Record<ResourceKind, readonly object[]>): NameTemplate[] {
  return (Object.keys(NAME_KEYS) as ResourceKind[]).flatMap((kind) =>
    resources[kind].map((item, index) => {
      const key = NAME_KEYS[kind];
      const template = String((item as Record<string, unknown>)[key]);
      return { kind, path: `resources.${kind}[${index}].${key}`, template };
    }),
  );
}

const PLACEHOLDERS = ['slot', 'n'];
const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * A name template: must hold `{slot}` or `{n}` so no two slots (and no production resource) share
 * a name, and may hold no other placeholder.
 */
function template(example: string, charset: RegExp | undefined, charsetText: string) {
  return z.string().check((ctx) => {
    const value = ctx.value;
    const unknown = [...value.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
    for (const name of unknown.filter((placeholder) => !PLACEHOLDERS.includes(placeholder))) {
      const guess = closestWord(name, PLACEHOLDERS);
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: `has the unknown placeholder {${name}}${guess ? `; did you mean {${guess}}?` : ''} Only {slot} and {n} exist; write e.g. ${example}`,
      });
    }
    if (!unknown.some((placeholder) => PLACEHOLDERS.includes(placeholder))) {
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: `'${value}' must contain {slot} or {n}, so that every slot names its own resource; write e.g. ${example}`,
      });
    }
    const literal = value.replace(PLACEHOLDER, '');
    if (charset && !charset.test(literal)) {
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: `'${value}' may only use ${charsetText} besides {slot} and {n}; write e.g. ${example}`,
      });
    }
  });
}

const durationSeconds = z.unknown().transform((value, ctx) => {
  const seconds = typeof value === 'string' ? parseDurationSeconds(value) : undefined;
  if (seconds !== undefined) return seconds;
  ctx.addIssue({
    code: 'custom',
    message: `must be a positive duration like 3h, 90m or 2d, got ${JSON.stringify(value)}; write e.g. after: 3h`,
  });
  return z.NEVER;
});

const WORKER_CHARSET = /^[a-z0-9_-]*$/;
const R2_CHARSET = /^[a-z0-9-]*$/;

const schema = z.strictObject({
  pool: z
    .string()
    .regex(
      /^(?=.*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
      'must be 1-63 of a-z, 0-9 and -, with a letter; write e.g. pool: preview-slot',
    ),
  resources: z
    .strictObject({
      workers: z
        .array(
          z.strictObject({
            name: template('name: app-{slot}', WORKER_CHARSET, 'a-z, 0-9, - and _'),
            'durable-objects': z.enum(['park', 'keep']).default('park'),
          }),
        )
        .default([]),
      d1: z
        .array(
          z.strictObject({
            name: template('name: app-{slot}-db', WORKER_CHARSET, 'a-z, 0-9, - and _'),
            erase: z.enum(['rows', 'drop']).default('rows'),
          }),
        )
        .default([]),
      kv: z.array(z.strictObject({ title: template('title: app-{slot}-cache', undefined, '') })).default([]),
      r2: z
        .array(
          z.strictObject({
            bucket: template('bucket: app-{slot}-files', R2_CHARSET, 'a-z, 0-9 and -'),
            jurisdiction: z.enum(R2_JURISDICTIONS).default('default'),
            expire: z.strictObject({
              id: z.string().min(1, 'must not be empty; write e.g. id: expire-preview-files'),
              prefix: z.string().default(''),
              after: durationSeconds,
            }),
          }),
        )
        .default([]),
      queues: z
        .array(
          z.strictObject({ name: template('name: app-{slot}-jobs', WORKER_CHARSET, 'a-z, 0-9, - and _') }),
        )
        .default([]),
      vectorize: z
        .array(
          z.strictObject({
            name: template('name: app-{slot}-embeddings', WORKER_CHARSET, 'a-z, 0-9, - and _'),
          }),
        )
        .default([]),
    })
    .refine((resources) => Object.values(resources).some((list) => list.length > 0), {
      message: 'lists no resource to erase; write e.g. d1: [{ name: "app-{slot}-db" }] under resources',
    }),
  protect: z.array(z.string().min(1, 'must not be empty; write e.g. "*-live*"')).default([]),
  'protect-words': z
    .array(
      z.string().regex(/^[\p{L}\p{N}]{1,63}$/u, 'must be one word of letters and digits; write e.g. prod'),
    )
    .default([...DEFAULT_PROTECT_WORDS]),
});

type Segment = string | number;

/** The example shown when a key is missing or has the wrong type, by path without indexes. */
const EXAMPLES: Record<string, string> = {
  '': `a mapping with pool and resources; see docs/config.md`,
  pool: 'pool: preview-slot',
  resources: 'resources: { d1: [{ name: "app-{slot}-db" }] }',
  'resources.workers': 'workers: [{ name: "app-{slot}", durable-objects: park }]',
  'resources.workers[]': '- name: app-{slot}',
  'resources.workers[].name': 'name: app-{slot}',
  'resources.workers[].durable-objects': 'durable-objects: park',
  'resources.d1': 'd1: [{ name: "app-{slot}-db", erase: rows }]',
  'resources.d1[]': '- name: app-{slot}-db',
  'resources.d1[].name': 'name: app-{slot}-db',
  'resources.d1[].erase': 'erase: rows',
  'resources.kv': 'kv: [{ title: "app-{slot}-cache" }]',
  'resources.kv[]': '- title: app-{slot}-cache',
  'resources.kv[].title': 'title: app-{slot}-cache',
  'resources.r2': 'r2: [{ bucket: "app-{slot}-files", expire: { id: expire-preview-files, after: 3h } }]',
  'resources.r2[]': '- bucket: app-{slot}-files',
  'resources.r2[].bucket': 'bucket: app-{slot}-files',
  'resources.r2[].jurisdiction': 'jurisdiction: eu',
  'resources.r2[].expire': 'expire: { id: expire-preview-files, prefix: "", after: 3h }',
  'resources.r2[].expire.id': 'id: expire-preview-files',
  'resources.r2[].expire.prefix': 'prefix: "backups/"',
  'resources.r2[].expire.after': 'after: 3h',
  protect: 'protect: ["*-live*"]',
  'resources.queues': 'queues: [{ name: "app-{slot}-jobs" }]',
  'resources.queues[]': '- name: app-{slot}-jobs',
  'resources.queues[].name': 'name: app-{slot}-jobs',
  'resources.vectorize': 'vectorize: [{ name: "app-{slot}-embeddings" }]',
  'resources.vectorize[]': '- name: app-{slot}-embeddings',
  'resources.vectorize[].name': 'name: app-{slot}-embeddings',
  'protect[]': '"*-live*"',
  'protect-words': 'protect-words: [prod, production, prd]',
  'protect-words[]': 'prod',
};

function formatPath(path: readonly Segment[]): string {
  return path
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`,
    )
    .join('');
}

function patternOf(path: readonly Segment[]): string {
  return formatPath(path.map((segment) => (typeof segment === 'number' ? 0 : segment))).replace(
    /\[0\]/g,
    '[]',
  );
}

/** The keys an object accepts at `path`, found by walking the schema, for did-you-mean. */
function knownKeysAt(path: readonly Segment[]): string[] {
  let node: z.ZodType = schema;
  for (const segment of path) {
    node = unwrap(node);
    if (node instanceof z.ZodArray && typeof segment === 'number') node = node.element as z.ZodType;
    else if (node instanceof z.ZodObject && typeof segment === 'string') {
      const child = (node.shape as Record<string, z.ZodType>)[segment];
      if (!child) return [];
      node = child;
    } else return [];
  }
  node = unwrap(node);
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

function unwrap(node: z.ZodType): z.ZodType {
  let current = node;
  for (;;) {
    if (current instanceof z.ZodDefault || current instanceof z.ZodOptional)
      current = current.unwrap() as z.ZodType;
    else if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
    else return current;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function messageFor(issue: z.core.$ZodIssue): string {
  const example = EXAMPLES[patternOf(issue.path as Segment[])];
  const write = example ? `; write e.g. ${example}` : '';
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = knownKeysAt(issue.path as Segment[]);
      return issue.keys
        .map((key) => {
          const guess = closestWord(key, known);
          const instead = guess ? `did you mean '${guess}'?` : `remove it`;
          return `unknown key '${key}' (a typo?): ${instead} Keys allowed here: ${known.join(', ')}`;
        })
        .join('; ');
    }
    case 'invalid_type':
      if (issue.input === undefined) return `is missing${write}`;
      return `must be ${issue.expected === 'object' ? 'a mapping' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}, got ${describeValue(issue.input)}${write}`;
    case 'invalid_value': {
      const choices = issue.values.map(String);
      const guess = typeof issue.input === 'string' ? closestWord(issue.input, choices) : undefined;
      return `must be one of ${choices.join(', ')}, got ${describeValue(issue.input)}${guess ? ` (did you mean '${guess}'?)` : ''}${write}`;
    }
    default:
      return issue.message;
  }
}

/** Line and column (1-based) of the node at `path`, or of its deepest existing ancestor. */
function locate(
  doc: Document,
  lineCounter: LineCounter,
  path: readonly Segment[],
  pointAtKey: boolean,
): { line: number; column: number } | undefined {
  let node: unknown = doc.contents;
  let offset = (doc.contents as { range?: [number, number, number] } | null)?.range?.[0];
  for (const [index, segment] of path.entries()) {
    const isLast = index === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && item.key.value === segment);
      if (!pair) break;
      const target = pointAtKey && isLast ? pair.key : pair.value;
      node = target;
      offset = (target as { range?: [number, number, number] } | null)?.range?.[0] ?? offset;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = (node as { range?: [number, number, number] } | null)?.range?.[0] ?? offset;
    } else break;
  }
  if (offset === undefined) return undefined;
  const position = lineCounter.linePos(offset);
  return { line: position.line, column: position.col };
}

function problemsOf(
  doc: Document,
  lineCounter: LineCounter,
  issues: readonly z.core.$ZodIssue[],
): ConfigProblem[] {
  // A missing key that a misspelt one stands for is the same mistake: report only the typo.
  const misspelt = new Set(
    issues.flatMap((issue) => {
      if (issue.code !== 'unrecognized_keys') return [];
      const known = knownKeysAt(issue.path as Segment[]);
      return issue.keys.flatMap((key) => {
        const guess = closestWord(key, known);
        return guess ? [formatPath([...(issue.path as Segment[]), guess])] : [];
      });
    }),
  );
  return issues.flatMap((issue) => {
    const path = issue.path as Segment[];
    if (issue.code === 'unrecognized_keys') {
      // One problem per unknown key, each pointing at the key itself.
      return issue.keys.map((key) => ({
        path: formatPath([...path, key]),
        ...locate(doc, lineCounter, [...path, key], true),
        message: messageFor({ ...issue, keys: [key] }),
      }));
    }
    if (issue.code === 'invalid_type' && issue.input === undefined && misspelt.has(formatPath(path)))
      return [];
    return [{ path: formatPath(path), ...locate(doc, lineCounter, path, false), message: messageFor(issue) }];
  });
}

/** Parses and validates the text of a slot config; `fileName` is only used in messages. */
export function parseSlotConfig(text: string, fileName: string): SlotConfig {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CONFIG_BYTES) throw tooLarge(fileName, bytes);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
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
  const parsed = schema.safeParse(doc.toJS(), { reportInput: true });
  if (!parsed.success) throw new ConfigError(fileName, problemsOf(doc, lineCounter, parsed.error.issues));

  const { pool, resources, protect, 'protect-words': protectWords } = parsed.data;
  const templates = nameTemplatesOf(resources);
  const positions = Object.fromEntries(
    templates.flatMap(({ path }) => {
      const position = locate(doc, lineCounter, segmentsOf(path), false);
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

  return {
    file: fileName,
    pool,
    resources: {
      workers: resources.workers.map((worker) => ({
        name: worker.name,
        durableObjects: worker['durable-objects'],
      })),
      d1: resources.d1,
      kv: resources.kv,
      r2: resources.r2.map((bucket) => ({
        bucket: bucket.bucket,
        jurisdiction: bucket.jurisdiction,
        expire: { id: bucket.expire.id, prefix: bucket.expire.prefix, afterSeconds: bucket.expire.after },
      })),
      queues: resources.queues,
      vectorize: resources.vectorize,
    },
    protect,
    protectWords,
    positions,
  };
}

/** `resources.d1[0].name` -> ['resources', 'd1', 0, 'name']. */
function segmentsOf(path: string): Segment[] {
  return path.split(/\.|\[(\d+)\]/).flatMap((part, index): Segment[] => {
    if (part === undefined || part === '') return [];
    return index % 2 === 1 ? [Number(part)] : [part];
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
      message: `is ${bytes.toLocaleString('en-US')} bytes, more than the ${MAX_CONFIG_BYTES.toLocaleString('en-US')} (1 MiB) a slot config may have; it lists the templates of one slot, not the slots themselves (see docs/config.md)`,
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

const SLOT_SLUG = /^[a-z0-9](?:[a-z0-9_-]{0,62})$/;

/** The number in a slot's name, what `{n}` expands to: the last run of digits (`preview-3` → `3`). */
export function slotNumberOf(slug: string): string | undefined {
  return /(\d+)(?!.*\d)/.exec(slug)?.[1];
}

function expand(
  template: string,
  slot: string,
  number: string | undefined,
  path: string,
): { name: string } | { problem: string } {
  if (template.includes('{n}') && number === undefined) {
    return {
      problem: `uses {n}, but the slot '${slot}' has no number in it; use {slot} in the template or number the slots (e.g. preview-3)`,
    };
  }
  const name = template.replaceAll('{slot}', slot).replaceAll('{n}', number ?? '');
  return name.length > 0 ? { name } : { problem: `expands to an empty name at ${path}` };
}

/** Why a name is protected (`contains the protected word 'prod'`), or undefined. */
function protectionOf(name: string, config: SlotConfig): string | undefined {
  const word = firstProtectedWord(name, config.protectWords);
  if (word !== undefined) return `contains the protected word '${word}' (protect-words)`;
  const glob = firstMatchingGlob(name, config.protect);
  return glob === undefined ? undefined : `matches the protect pattern '${glob}'`;
}

/**
 * The concrete resources of slot `slug`: every template expanded ({slot} = the slug, {n} = the last
 * number in it) and every name checked against `protect-words` and `protect`. Any refusal throws
 * before any call.
 */
export function resourcesForSlot(config: SlotConfig, slug: string): SlotResources {
  if (!SLOT_SLUG.test(slug)) {
    throw new ConfigError(config.file, [
      {
        path: '',
        message: `slot '${slug}' is not a usable slug (1-63 of a-z, 0-9, - and _); rename the slot in the semaphore`,
      },
    ]);
  }
  const number = slotNumberOf(slug);
  const problems: ConfigProblem[] = [];
  const protectedNames: ConfigProblem[] = [];
  const name = (template: string, path: string): string => {
    const expanded = expand(template, slug, number, path);
    if ('problem' in expanded) {
      problems.push({ path, ...config.positions[path], message: expanded.problem });
      return '';
    }
    const protection = protectionOf(expanded.name, config);
    if (protection !== undefined) {
      protectedNames.push({
        path,
        ...config.positions[path],
        message: `'${template}' expands to '${expanded.name}', which ${protection}; rename the template or the slot so no slot name can reach production`,
      });
    }
    return expanded.name;
  };

  const { workers, d1, kv, r2, queues, vectorize } = config.resources;
  const resources: SlotResources = {
    slot: slug,
    workers: workers.map((worker, index) => {
      const path = `resources.workers[${index}].name`;
      return {
        name: name(worker.name, path),
        template: worker.name,
        path,
        durableObjects: worker.durableObjects,
      };
    }),
    d1: d1.map((database, index) => {
      const path = `resources.d1[${index}].name`;
      return { name: name(database.name, path), template: database.name, path, erase: database.erase };
    }),
    kv: kv.map((namespace, index) => {
      const path = `resources.kv[${index}].title`;
      return { title: name(namespace.title, path), template: namespace.title, path };
    }),
    r2: r2.map((bucket, index) => {
      const path = `resources.r2[${index}].bucket`;
      return {
        bucket: name(bucket.bucket, path),
        template: bucket.bucket,
        path,
        jurisdiction: bucket.jurisdiction,
        expire: bucket.expire,
      };
    }),
    queues: queues.map((queue, index) => {
      const path = `resources.queues[${index}].name`;
      return { name: name(queue.name, path), template: queue.name, path };
    }),
    vectorize: vectorize.map((index, position) => {
      const path = `resources.vectorize[${position}].name`;
      return { name: name(index.name, path), template: index.name, path };
    }),
  };
  if (problems.length > 0)
    throw new ConfigError(config.file, problems, `cannot name the resources of slot '${slug}'`);
  if (protectedNames.length > 0) throw new ProtectedResourceError(config.file, slug, protectedNames);
  return resources;
}

/** A resource name one slot maps to, and the template it comes from. */
interface SlotName extends NameTemplate {
  slot: string;
  name: string;
}

/** The names slot `slug` maps to; a template it cannot expand is left out (resourcesForSlot refuses it). */
function namesOfSlot(config: SlotConfig, slug: string): SlotName[] {
  if (!SLOT_SLUG.test(slug)) return [];
  const number = slotNumberOf(slug);
  return nameTemplatesOf(config.resources).flatMap((template) => {
    const expanded = expand(template.template, slug, number, template.path);
    return 'name' in expanded ? [{ ...template, slot: slug, name: expanded.name }] : [];
  });
}

function sharedNameMessage(config: SlotConfig, first: SlotName, second: SlotName): string {
  const where = (name: SlotName) => {
    const position = config.positions[name.path];
    const at = position === undefined ? '' : `:${position.line}:${position.column}`;
    return `${config.file}${at} ${name.path} '${name.template}'`;
  };
  const templates = first.path === second.path ? where(first) : `${where(first)} and ${where(second)}`;
  const fix = [first, second].some((name) => name.template.includes('{n}'))
    ? 'use {slot} instead of {n} in the template'
    : 'change the template so that every slot names its own resource';
  const remove = shellCommand(['preview-gc', 'slots', 'remove', second.slot]);
  return `slots '${first.slot}' and '${second.slot}' both map to the ${KIND_NAMES[first.kind]} '${first.name}' (${templates}): erasing one would erase the other's data, so both are refused. Fix: ${fix}, or take one of the two slots out of the pool${remove === null ? '' : ` (${remove})`}`;
}

/**
 * One owner per resource name. For every slot among `slugs` (a pool's listing, or the slots it is
 * about to have) that maps to a resource name another of them maps to as well: why it is refused,
 * one message per shared name. Erasing such a slot would erase the data of the other, whoever holds
 * it, so both are refused before any call. Linear in slots × templates.
 */
export function sharedResourceNames(config: SlotConfig, slugs: readonly string[]): Map<string, string[]> {
  const owners = new Map<string, SlotName>();
  const refusals = new Map<string, string[]>();
  const refuse = (slug: string, message: string) =>
    refusals.set(slug, [...(refusals.get(slug) ?? []), message]);
  for (const slug of new Set(slugs)) {
    for (const name of namesOfSlot(config, slug)) {
      const key = `${name.kind}\u0000${name.name}`;
      const owner = owners.get(key);
      if (owner === undefined) owners.set(key, name);
      else if (owner.slot !== slug) {
        const message = sharedNameMessage(config, owner, name);
        refuse(owner.slot, message);
        refuse(slug, message);
      }
    }
  }
  return refusals;
}

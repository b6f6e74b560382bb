// From zod's issues to problems a person can act on: each names the place in the YAML file (path and
// line:column), what was wrong and an example of what to write instead, with did-you-mean for typos.
import { type Document, isMap, isScalar, isSeq, type LineCounter } from 'yaml';
import { closestWord } from '../text/did-you-mean.ts';
import * as z from '../zod.ts';
import type { ConfigProblem } from './config-error.ts';

type Segment = string | number;

/** How to tell problems in one kind of file: its schema, and examples by path without indexes. */
export interface FileShape {
  schema: z.ZodType;
  /** `resources.d1[].name` -> `name: app-{slot}-db`; '' is the file itself. */
  examples: Record<string, string>;
}

export function formatPath(path: readonly Segment[]): string {
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

/** `resources.d1[0].name` -> ['resources', 'd1', 0, 'name']. */
export function segmentsOf(path: string): Segment[] {
  return path.split(/\.|\[(\d+)\]/).flatMap((part, index): Segment[] => {
    if (part === undefined || part === '') return [];
    return index % 2 === 1 ? [Number(part)] : [part];
  });
}

/** The keys an object accepts at `path`, found by walking the schema, for did-you-mean. */
function knownKeysAt(schema: z.ZodType, path: readonly Segment[]): string[] {
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

function messageFor(shape: FileShape, issue: z.core.$ZodIssue): string {
  const example = shape.examples[patternOf(issue.path as Segment[])];
  const write = example ? `; write e.g. ${example}` : '';
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = knownKeysAt(shape.schema, issue.path as Segment[]);
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
export function locate(
  doc: Document,
  lineCounter: LineCounter,
  path: readonly Segment[],
  pointAtKey = false,
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

/** One problem per issue (one per unknown key), each at its place in `doc`. */
export function problemsOf(
  shape: FileShape,
  doc: Document,
  lineCounter: LineCounter,
  issues: readonly z.core.$ZodIssue[],
): ConfigProblem[] {
  // A missing key that a misspelt one stands for is the same mistake: report only the typo.
  const misspelt = new Set(
    issues.flatMap((issue) => {
      if (issue.code !== 'unrecognized_keys') return [];
      const known = knownKeysAt(shape.schema, issue.path as Segment[]);
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
        message: messageFor(shape, { ...issue, keys: [key] }),
      }));
    }
    if (issue.code === 'invalid_type' && issue.input === undefined && misspelt.has(formatPath(path)))
      return [];
    return [{ path: formatPath(path), ...locate(doc, lineCounter, path), message: messageFor(shape, issue) }];
  });
}

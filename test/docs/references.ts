// Finds references a clone of the repository cannot follow: a path outside the repository, an absolute
// path of the machine that wrote it, a numbered section (§) of a document that is not here, a docs page,
// file or heading that does not exist. Pure: the caller reads the files and answers whether a path exists.
import { posix } from 'node:path';

export interface RepoFile {
  /** Relative to the repository root, with `/`. */
  path: string;
  text: string;
}

export interface Repository {
  exists(path: string): boolean;
  /** The text of a Markdown file, for its headings; undefined when it cannot be read. */
  markdown(path: string): string | undefined;
  /** Whether .gitignore leaves the path out (a generated file a doc may name). */
  ignored(path: string): boolean;
}

export interface BadReference {
  path: string;
  line: number;
  reference: string;
  problem: string;
}

const UP_THE_TREE = /(?<![\w./-])(?:\.\.\/)+[^\s'"`)\]>,;*${}]*/g;
const ABSOLUTE_WORK_PATH = /(?<![\w.])\/work\/[^\s'"`)\]>,;]*/g;
const NUMBERED_SECTION = /§\s?\d[\d.-]*/g;
const OLD_NOTES = /\bAPI\snotes\b|cloudflare-api-note[s]/gi;
const DOCS_PAGE = /(?<![\w./-])docs\/[\w.-]+\.md(?:#[\w-]+)?/g;
const MARKDOWN_LINK = /\]\(([^)\s]+)\)/g;
const BACKTICKED_PATH = /`((?:src|test|scripts|bench|docs|demo)\/[^`\s*{}<>]*)`/g;
const FENCE = /^\s*(```|~~~)/;

/** The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor of a Markdown text, duplicates numbered as GitHub does (`name`, `name-1`, …). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading?.[1]) continue;
    const anchor = headingAnchor(heading[1]);
    const times = seen.get(anchor) ?? 0;
    seen.set(anchor, times + 1);
    anchors.add(times === 0 ? anchor : `${anchor}-${times}`);
  }
  return anchors;
}

/** The problem with `target` (a repository path, maybe with `#anchor`), or undefined when it resolves. */
function problemWithTarget(target: string, repository: Repository): string | undefined {
  const [written = '', writtenAnchor] = target.split('#', 2);
  const anchor = writtenAnchor?.replace(/[.:]+$/, '');
  if (written === '..' || written.startsWith('../')) {
    return 'points outside the repository; a clone has nothing there';
  }
  // A sentence may end right after a path: its full stop is not part of it.
  const path = written.replace(/(?<=\w)[.:]+$/, '');
  if (!repository.exists(path)) return `names ${path}, which does not exist`;
  if (anchor === undefined || !path.endsWith('.md')) return undefined;
  const markdown = repository.markdown(path);
  if (markdown !== undefined && !anchorsOf(markdown).has(anchor)) {
    return `names the heading #${anchor}, which ${path} does not have`;
  }
  return undefined;
}

function* matches(pattern: RegExp, text: string): Generator<{ text: string; group: string }> {
  for (const match of text.matchAll(pattern)) yield { text: match[0], group: match[1] ?? match[0] };
}

function problemsOfLine(
  file: RepoFile,
  line: string,
  inFence: boolean,
  repository: Repository,
): { reference: string; problem: string }[] {
  const directory = posix.dirname(file.path);
  const found: { reference: string; problem: string }[] = [];
  const check = (reference: string, target: string) => {
    const problem = problemWithTarget(target, repository);
    if (problem !== undefined) found.push({ reference, problem });
  };
  for (const { text } of matches(UP_THE_TREE, line)) {
    const target = posix.join(directory, text);
    // Inside the repository, only what looks like a file is checked ('../x' may be a hostile slug).
    if (target === '..' || target.startsWith('../') || /\.\w+(#[\w-]*)?$/.test(target)) check(text, target);
  }
  for (const { text } of matches(ABSOLUTE_WORK_PATH, line)) {
    found.push({ reference: text, problem: 'is an absolute path of the machine that wrote it' });
  }
  for (const { text } of matches(NUMBERED_SECTION, line)) {
    found.push({
      reference: text,
      problem: 'cites a numbered section; name docs/<page>.md#<heading> instead',
    });
  }
  for (const { text } of matches(OLD_NOTES, line)) {
    found.push({
      reference: text,
      problem: 'names notes that are not in the repository; cite docs/ instead',
    });
  }
  for (const { text } of matches(DOCS_PAGE, line)) check(text, text);
  if (!file.path.endsWith('.md') || inFence) return found;
  for (const { text, group } of matches(MARKDOWN_LINK, line)) {
    if (/^[a-z][a-z+.-]*:/i.test(group)) continue;
    check(text, group.startsWith('#') ? `${file.path}${group}` : posix.join(directory, group));
  }
  for (const { text, group } of matches(BACKTICKED_PATH, line)) {
    if (!repository.ignored(group)) check(text, group.replace(/\/$/, ''));
  }
  return found;
}

export function findBadReferences(files: readonly RepoFile[], repository: Repository): BadReference[] {
  const bad: BadReference[] = [];
  for (const file of files) {
    let inFence = false;
    file.text.split('\n').forEach((line, index) => {
      if (FENCE.test(line)) inFence = !inFence;
      for (const found of problemsOfLine(file, line, inFence, repository)) {
        bad.push({ path: file.path, line: index + 1, ...found });
      }
    });
  }
  return bad;
}

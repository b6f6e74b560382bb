// No file of the repository may send a reader where a clone cannot follow: outside the repository, to
// an absolute path of someone's machine, to numbered sections of notes that are not here, or to a docs
// page, file or heading that does not exist.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DESIGN_EXAMPLE } from '../config/design-example.ts';
import { anchorsOf, findBadReferences, headingAnchor, type RepoFile, type Repository } from './references.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['src', 'docs', 'scripts', 'test', 'bench', 'README.md', 'SECURITY.md', 'action.yml'];

/** The .gitignore rules this repository uses: `dir/`, `path/from/root`, `*.ext` and plain names. */
function gitignored(gitignore: string): (path: string) => boolean {
  const rules = gitignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  return (path) => {
    const parts = path.split('/');
    return rules.some((rule) => {
      const name = rule.replace(/^\/|\/$/g, '');
      if (name.startsWith('*.')) return path.endsWith(name.slice(1));
      if (name.includes('/')) return path === name || path.startsWith(`${name}/`);
      return parts.includes(name);
    });
  };
}

const ignored = gitignored(readFileSync(join(ROOT, '.gitignore'), 'utf8'));

function repositoryFiles(): RepoFile[] {
  const paths = SCANNED.flatMap((entry) =>
    entry.includes('.')
      ? [entry]
      : readdirSync(join(ROOT, entry), { recursive: true, withFileTypes: true })
          .filter((dirent) => dirent.isFile())
          .map((dirent) => relative(ROOT, join(dirent.parentPath, dirent.name)).split(sep).join('/')),
  );
  return paths
    .filter((path) => !ignored(path))
    .map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }))
    .filter((file) => !file.text.includes('\0'));
}

const onDisk: Repository = {
  exists: (path) => existsSync(join(ROOT, path)),
  markdown: (path) => (existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : undefined),
  ignored,
};

describe('references in src/, docs/, scripts/, test/, bench/, README.md, SECURITY.md and action.yml', () => {
  it('all lead to files and headings inside the repository', () => {
    const bad = findBadReferences(repositoryFiles(), onDisk).map(
      (found) => `${found.path}:${found.line}: '${found.reference}' ${found.problem}`,
    );
    expect(bad).toEqual([]);
  });
});

describe('findBadReferences', () => {
  // Built from pieces, so this file does not itself hold what it looks for.
  const up = '../';
  const notes = ['API', 'notes'].join(' ');
  const page = (name: string) => ['docs', name].join('/');
  const repository: Repository = {
    exists: (path) => ['docs', 'docs/design.md', 'src/commands', 'src/commands/lease.ts'].includes(path),
    markdown: (path) => (path === 'docs/design.md' ? '# Design\n\n## Invariants\n' : undefined),
    ignored: (path) => path === 'bench/results.json',
  };
  const problemsIn = (path: string, text: string) =>
    findBadReferences([{ path, text }], repository).map((found) => found.reference);

  it('finds a path outside the repository, an absolute path, a numbered section and the old notes', () => {
    expect(problemsIn('src/commands/lease.ts', `// see ${up.repeat(3)}shared/docs/a.md`)).toEqual([
      `${up.repeat(3)}shared/docs/a.md`,
    ]);
    expect(problemsIn('src/x.ts', `// ${'/wo'}rk/shared/docs/a.md`)).toHaveLength(1);
    expect(problemsIn('src/x.ts', `// (${notes} \u00a76.4)`).sort()).toEqual([notes, '\u00a76.4'].sort());
  });

  it('lets relative paths inside the repository through', () => {
    expect(problemsIn('test/commands/x.ts', `import '${up.repeat(2)}src/commands/lease.ts';`)).toEqual([]);
  });

  it('checks that a docs page and its heading exist', () => {
    expect(problemsIn('src/x.ts', '// docs/design.md#invariants, docs/design.md')).toEqual([]);
    expect(problemsIn('src/x.ts', `// ${page('design.md#invariant')}`)).toEqual([
      page('design.md#invariant'),
    ]);
    expect(problemsIn('src/x.ts', `// ${page('gone.md')}`)).toEqual([page('gone.md')]);
  });

  it('reads Markdown links relative to the page, and paths in backticks from the root', () => {
    expect(problemsIn('docs/twin.md', '[the rule](design.md#invariants) and [x](#design)')).toEqual([
      '](#design)',
    ]);
    expect(problemsIn('docs/twin.md', '[design](docs/design.md)')).toEqual(['](docs/design.md)']);
    expect(
      problemsIn('README.md', '`src/commands/lease.ts`, `src/commands/`, `bench/results.json`, `src/old.ts`'),
    ).toEqual(['`src/old.ts`']);
  });

  it('reads headings inside fenced code as code', () => {
    expect([...anchorsOf('# A\n```sh\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1']);
    expect(headingAnchor("The SDK's Worker upload is broken in 7.x")).toBe(
      'the-sdks-worker-upload-is-broken-in-7x',
    );
  });
});

describe('docs/design.md', () => {
  it('shows the slot config example the tests parse', () => {
    expect(readFileSync(join(ROOT, 'docs/design.md'), 'utf8')).toContain(DESIGN_EXAMPLE);
  });
});

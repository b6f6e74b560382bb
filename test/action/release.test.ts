// The release workflow's tagging (scripts/release.ts) in a scratch clone of this repository, whose
// origin is a scratch bare repository: a dry run tags locally and pushes nothing, a real run pushes
// vX.Y.Z and vX, and every refusal says what to do. Nothing leaves the temporary folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseNotes } from '../../scripts/release.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const RELEASE_SCRIPT = join(ROOT, 'scripts/release.ts');
// A major no real release of preview-gc will reach, so tags of this repository never collide.
const MAJOR = 41;

let scratch: string;
let clone: string;
let origin: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function runRelease(...args: string[]) {
  const result = spawnSync(process.execPath, [RELEASE_SCRIPT, ...args], { cwd: clone, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Tags on the scratch origin, each with the commit it points at. */
function originTags(): Record<string, string> {
  const lines = git(clone, 'ls-remote', '--tags', 'origin').split('\n').filter(Boolean);
  return Object.fromEntries(
    lines
      .filter((line) => line.endsWith('^{}'))
      .map((line) => {
        const [commit, ref] = line.split('\t') as [string, string];
        return [ref.replace(/^refs\/tags\//, '').replace(/\^\{\}$/, ''), commit];
      }),
  );
}

/** Tag of the clone → the commit it points at (annotated tags peeled). */
function localTag(tag: string): string | undefined {
  const found = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${tag}^{commit}`], {
    cwd: clone,
    encoding: 'utf8',
  });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/**
 * What a release pull request does: the Unreleased entries (with `entry` added, when given) move under
 * a `version` heading in CHANGELOG.md, and package.json names the version; then it is committed.
 */
async function prepareRelease(version: string, entry?: string): Promise<string> {
  const changelogPath = join(clone, 'CHANGELOG.md');
  const changelog = await readFile(changelogPath, 'utf8');
  const unreleased = entry === undefined ? '' : `\n\n${entry}`;
  await writeFile(
    changelogPath,
    changelog.replace('## [Unreleased]', `## [Unreleased]\n\n## [${version}] - 2026-12-01${unreleased}`),
  );
  const manifestPath = join(clone, 'package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  await writeFile(manifestPath, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
  git(clone, 'commit', '--quiet', '--all', '--message', `Release ${version}`);
  return git(clone, 'rev-parse', 'HEAD');
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'preview-gc-release-'));
  clone = join(scratch, 'clone');
  origin = join(scratch, 'origin.git');
  git(scratch, 'init', '--quiet', '--bare', origin);
  git(scratch, 'clone', '--quiet', '--shared', '--no-checkout', ROOT, clone);
  git(clone, 'checkout', '--quiet', '--detach', git(ROOT, 'rev-parse', 'HEAD'));
  // The clone's origin would be this repository: point it at the scratch one before anything runs.
  git(clone, 'remote', 'set-url', 'origin', origin);
  git(clone, 'config', 'user.name', 'release test');
  git(clone, 'config', 'user.email', 'release-test@example.invalid');
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('scripts/release.ts in a scratch clone', () => {
  it('dry run: tags vX.Y.Z and moves vX here, prints the notes from CHANGELOG.md, pushes nothing', async () => {
    const unreleased = releaseNotes(await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8'), 'Unreleased');
    const commit = await prepareRelease(`${MAJOR}.2.0`);
    const notesFile = join(scratch, 'notes.md');

    const result = runRelease(`${MAJOR}.2.0`, '--dry-run', '--notes-file', notesFile);

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      `Dry run: tagged ${commit} v${MAJOR}.2.0 and v${MAJOR} here; pushed nothing`,
    );
    expect(result.stdout).toContain(`Release notes of v${MAJOR}.2.0:\n\n${unreleased}`);
    expect(await readFile(notesFile, 'utf8')).toBe(`${unreleased}\n`);
    expect([localTag(`v${MAJOR}.2.0`), localTag(`v${MAJOR}`)]).toEqual([commit, commit]);
    expect(originTags()).toEqual({});
  });

  it('a real run pushes vX.Y.Z and moves vX on the origin, both at the released commit', async () => {
    const commit = await prepareRelease(`${MAJOR}.3.0`, '### Added\n\n- The input `parallel-slots`.');

    const result = runRelease(`v${MAJOR}.3.0`);

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      `Release notes of v${MAJOR}.3.0:\n\n### Added\n\n- The input \`parallel-slots\`.\n`,
    );
    expect(result.stdout).toContain(
      `Released ${MAJOR}.3.0: pushed v${MAJOR}.3.0 and v${MAJOR} (${commit}) to origin.`,
    );
    expect(originTags()).toEqual({ [`v${MAJOR}.3.0`]: commit, [`v${MAJOR}`]: commit });
  });

  it('a patch of an older minor gets its tag, but vX stays at the newest release', async () => {
    const newest = originTags()[`v${MAJOR}`];
    const commit = await prepareRelease(`${MAJOR}.1.7`, '### Fixed\n\n- A backported fix.');

    const result = runRelease(`${MAJOR}.1.7`);

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`v${MAJOR} stays at v${MAJOR}.3.0, the newest v${MAJOR} release.`);
    expect(originTags()).toEqual({
      [`v${MAJOR}.3.0`]: newest,
      [`v${MAJOR}`]: newest,
      [`v${MAJOR}.1.7`]: commit,
    });
  });

  it.each([
    ['41.4', 'the version "41.4" is not X.Y.Z (for example 1.2.0)'],
    ['41.4.0; touch pwned', 'the version "41.4.0; touch pwned" is not X.Y.Z'],
    ['41.4.0-rc.1', 'the version "41.4.0-rc.1" is not X.Y.Z'],
  ])('refuses the version %j before touching anything', (version, message) => {
    const result = runRelease(version, '--dry-run');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`release: ${message}`);
    expect(git(clone, 'tag', '--list', 'v41.4*')).toBe('');
  });

  it('refuses a version package.json does not name', () => {
    const result = runRelease(`${MAJOR}.9.0`, '--dry-run');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `release: package.json says "version": "${MAJOR}.1.7", not "${MAJOR}.9.0"`,
    );
  });

  it('refuses a version whose CHANGELOG.md section is missing even when package.json names it', async () => {
    const manifestPath = join(clone, 'package.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    await writeFile(manifestPath, `${JSON.stringify({ ...manifest, version: `${MAJOR}.9.0` }, null, 2)}\n`);
    git(clone, 'commit', '--quiet', '--all', '--message', 'version only');

    const result = runRelease(`${MAJOR}.9.0`, '--dry-run');

    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `release: CHANGELOG.md has no section '## [${MAJOR}.9.0] - <date>': move the Unreleased entries under it`,
    );
    expect(localTag(`v${MAJOR}.9.0`)).toBeUndefined();
  });

  it('refuses a version that is tagged already, and a working tree with changes', async () => {
    git(clone, 'checkout', '--quiet', `v${MAJOR}.3.0`);
    const again = runRelease(`${MAJOR}.3.0`, '--dry-run');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`release: v${MAJOR}.3.0 exists already`);

    await writeFile(join(clone, 'README.md'), 'edited\n');
    const dirty = runRelease(`${MAJOR}.3.0`, '--dry-run');
    expect(dirty.status).toBe(1);
    expect(dirty.stderr).toContain('release: the working tree has changes');
  });
});

// `node scripts/release.ts <X.Y.Z> [--dry-run] [--notes-file <path>] [--remote <name>]`, run from the
// repository at the commit to release (the release workflow runs it after .ci/run). It tags that commit
// vX.Y.Z, moves vX to it (unless a newer vX.y.z exists), pushes both tags in one atomic push, and writes
// the release notes: the version's section of CHANGELOG.md. --dry-run creates the tags locally, prints
// the notes and pushes nothing. Every git command runs without a shell; the version is checked first.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

export class ReleaseError extends Error {}

export interface Version {
  major: number;
  minor: number;
  patch: number;
}

const VERSION = /^v?(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;

/** `1.2.3` or `v1.2.3`; pre-releases are not released this way (vX must only point at releases). */
export function parseVersion(text: string): Version {
  const match = VERSION.exec(text);
  if (match === null) {
    const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
    throw new ReleaseError(`the version ${shown} is not X.Y.Z (for example 1.2.0)`);
  }
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  return { major, minor, patch };
}

export function formatVersion(version: Version): string {
  return `${version.major}.${version.minor}.${version.patch}`;
}

function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/**
 * The body of the `## [X.Y.Z]` section of a Keep a Changelog file, up to the next `## ` heading,
 * without the heading itself; refused when the section is missing or empty.
 */
export function releaseNotes(changelog: string, version: string): string {
  const lines = changelog.replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex((line) => line.startsWith(`## [${version}]`));
  if (start === -1) {
    throw new ReleaseError(
      `CHANGELOG.md has no section '## [${version}] - <date>': move the Unreleased entries under it (and set "version": "${version}" in package.json) in a pull request, then release`,
    );
  }
  const next = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  const notes = lines
    .slice(start + 1, next === -1 ? undefined : next)
    .join('\n')
    .trim();
  if (notes === '') throw new ReleaseError(`the section '## [${version}]' of CHANGELOG.md is empty`);
  return notes;
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The newest released vMAJOR.y.z tag of a major, if any. */
function newestOfMajor(cwd: string, major: number): Version | undefined {
  return git(cwd, ['tag', '--list', `v${major}.*`])
    .split('\n')
    .filter((tag) => VERSION.test(tag))
    .map(parseVersion)
    .sort(compareVersions)
    .at(-1);
}

export interface ReleaseOptions {
  cwd: string;
  version: string;
  dryRun: boolean;
  remote: string;
  notesFile?: string;
  log: (line: string) => void;
}

export function release(options: ReleaseOptions): void {
  const { cwd, dryRun, remote, log } = options;
  const version = parseVersion(options.version);
  const name = formatVersion(version);
  const tag = `v${name}`;
  const majorTag = `v${version.major}`;
  const root = git(cwd, ['rev-parse', '--show-toplevel']);

  if (git(root, ['status', '--porcelain']) !== '') {
    throw new ReleaseError('the working tree has changes: release a commit, not a work in progress');
  }
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
  if (manifest.version !== name) {
    throw new ReleaseError(
      `package.json says "version": ${JSON.stringify(manifest.version)}, not "${name}": the semaphore reports that version, so set it in the release pull request`,
    );
  }
  const notes = releaseNotes(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), name);
  if (git(root, ['tag', '--list', tag]) !== '') {
    throw new ReleaseError(`${tag} exists already: a released version is never tagged again`);
  }
  const newest = newestOfMajor(root, version.major);
  const movesMajor = newest === undefined || compareVersions(version, newest) > 0;

  const commit = git(root, ['rev-parse', 'HEAD']);
  git(root, ['tag', '--annotate', '--message', `preview-gc ${name}`, tag, commit]);
  if (movesMajor) {
    git(root, ['tag', '--force', '--annotate', '--message', `preview-gc ${name}`, majorTag, commit]);
  }
  const tags = movesMajor ? `${tag} and ${majorTag}` : tag;
  const majorNote =
    movesMajor || newest === undefined
      ? ''
      : ` ${majorTag} stays at v${formatVersion(newest)}, the newest ${majorTag} release.`;
  if (options.notesFile !== undefined) writeFileSync(options.notesFile, `${notes}\n`);

  if (dryRun) {
    log(`Dry run: tagged ${commit} ${tags} here; pushed nothing to ${remote}.${majorNote}`);
  } else {
    const refs = [`refs/tags/${tag}`, ...(movesMajor ? [`+refs/tags/${majorTag}`] : [])];
    try {
      git(root, ['push', '--atomic', remote, ...refs]);
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim() ?? String(error);
      throw new ReleaseError(`pushing ${tags} to ${remote} failed, so nothing was released:\n${stderr}`);
    }
    log(`Released ${name}: pushed ${tags} (${commit}) to ${remote}.${majorNote}`);
  }
  log(`Release notes of ${tag}:\n\n${notes}`);
}

function main(argv: string[]): void {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    throw new ReleaseError(`${(error as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const [version, ...extra] = positionals;
  if (version === undefined || extra.length > 0) throw new ReleaseError(USAGE);
  release({
    cwd: process.cwd(),
    version,
    dryRun: values['dry-run'],
    remote: values.remote,
    ...(values['notes-file'] === undefined ? {} : { notesFile: values['notes-file'] }),
    log: (line) => console.log(line),
  });
}

const USAGE = 'usage: node scripts/release.ts <X.Y.Z> [--dry-run] [--notes-file <path>] [--remote <name>]';

function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      'notes-file': { type: 'string' },
      remote: { type: 'string', default: 'origin' },
    },
  });
}

if (import.meta.main) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    console.error(`release: ${error.message}`);
    process.exit(1);
  }
}

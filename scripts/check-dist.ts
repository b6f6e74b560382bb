// Fails when the committed dist/ is not what the source builds (the action runs dist/, not src/), or
// when what ships beside the code is wrong: a .js without its sourcemap, a map that points at source
// that is not there, a bundled package whose licence is missing from dist/licenses.txt.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { bundle, EXECUTABLES, ROOT } from './bundle.ts';
import { packageDirOf, packageNameOf } from './bundled-packages.ts';
import { LICENSES_FILE, packageHeading } from './licenses.ts';

/** A build of the current source in a temporary folder, removed once `use` is done with it. */
export async function withFreshBuild<T>(use: (freshDir: string) => Promise<T>): Promise<T> {
  const fresh = await mkdtemp(join(tmpdir(), 'preview-gc-dist-'));
  try {
    await bundle(fresh);
    return await use(fresh);
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}

/** Files that differ between `distDir` and a fresh build (missing on either side counts). */
export async function staleFiles(distDir: string, freshDir: string): Promise<string[]> {
  const names = new Set([...(await listFiles(distDir)), ...(await listFiles(freshDir))]);
  const stale: string[] = [];
  for (const name of [...names].sort()) {
    const [committed, built] = await Promise.all([
      readOrNull(join(distDir, name)),
      readOrNull(join(freshDir, name)),
    ]);
    if (committed === null || built === null || !committed.equals(built)) stale.push(name);
  }
  return stale;
}

export function staleDistFiles(distDir: string): Promise<string[]> {
  return withFreshBuild((fresh) => staleFiles(distDir, fresh));
}

const sourceMapSchema = z.object({
  version: z.literal(3),
  sources: z.array(z.string()).min(1),
  mappings: z.string().min(1),
});

/**
 * What is wrong with the sourcemaps and the licence file of `distDir`, one line each. The maps are
 * laid out for dist/ (scripts/bundle.ts), so their sources resolve from the repository's dist/ wherever
 * the files under check are. The packages are read from the maps, not from the build that wrote the
 * licences, so a package the licence file forgot shows up here.
 */
export async function distProblems(distDir: string): Promise<string[]> {
  const problems: string[] = [];
  const packageDirs = new Set<string>();
  const scripts = (await listFiles(distDir)).filter((file) => file.endsWith('.js'));
  for (const script of scripts) {
    const sources = await mapSources(distDir, script, problems);
    for (const source of sources) {
      const path = join('dist', source);
      const dir = packageDirOf(path.replace(/^(\.\.\/)+/, ''));
      // A package's own published sourcemaps may name sources outside any package folder (Octokit's
      // point at `node_modules/@octokit/src/...`, its TypeScript tree): the package that shipped them
      // is in the bundle's inputs and has its licence checked from there.
      if (dir !== undefined && existsSync(join(ROOT, dir, 'package.json'))) packageDirs.add(dir);
      else if (dir !== undefined) continue;
      else if (!existsSync(join(ROOT, path))) problems.push(`${script}.map: source ${source} does not exist`);
    }
  }
  problems.push(...(await licenseProblems(distDir, packageDirs)));
  for (const name of EXECUTABLES) {
    const mode = await stat(join(distDir, `${name}.js`)).then(
      (stats) => stats.mode,
      () => 0o111,
    );
    if ((mode & 0o111) === 0)
      problems.push(
        `${name}.js: not executable; it is the package's bin, which npm link makes executable (a mode change git then shows): run npm run bundle, which writes it 755, and commit it`,
      );
  }
  return problems;
}

/** The sources of a script's map; adds a problem and returns none when the map is missing or broken. */
async function mapSources(distDir: string, script: string, problems: string[]): Promise<string[]> {
  const text = await readFile(join(distDir, script), 'utf8');
  const link = /\n\/\/# sourceMappingURL=(\S+)\n?$/.exec(text)?.[1];
  if (link !== `${script}.map`) {
    problems.push(`${script}: does not end with //# sourceMappingURL=${script}.map`);
    return [];
  }
  const raw = await readOrNull(join(distDir, link));
  if (raw === null) {
    problems.push(`${script}: its sourcemap ${link} is missing`);
    return [];
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    json = undefined;
  }
  const map = sourceMapSchema.safeParse(json);
  if (!map.success) {
    problems.push(`${link}: not a version 3 sourcemap with sources and mappings`);
    return [];
  }
  return map.data.sources;
}

async function licenseProblems(distDir: string, packageDirs: ReadonlySet<string>): Promise<string[]> {
  const licenses = await readOrNull(join(distDir, LICENSES_FILE));
  if (licenses === null) return [`${LICENSES_FILE} is missing`];
  const sections = new Map(
    licenses
      .toString('utf8')
      .split(/^={78}\n/m)
      .slice(1)
      .map((section) => [section.slice(0, section.indexOf('\n')), section] as const),
  );
  const problems: string[] = [];
  for (const dir of [...packageDirs].sort()) {
    const manifest = await readOrNull(join(ROOT, dir, 'package.json'));
    const version = manifest === null ? undefined : (JSON.parse(manifest.toString('utf8')).version as string);
    const heading = packageHeading(packageNameOf(dir), version ?? '?');
    const section = sections.get(heading);
    if (section === undefined) {
      problems.push(`${LICENSES_FILE}: no licence for ${heading}, which is bundled (${dir})`);
    } else if (!/^--- .+ ---\n\s*\S/m.test(section)) {
      problems.push(`${LICENSES_FILE}: the section of ${heading} has no licence text`);
    }
  }
  return problems;
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch {
    return null;
  }
}

if (import.meta.main) {
  const stale = await staleDistFiles('dist');
  const problems = await distProblems('dist');
  for (const problem of problems) console.error(`dist/${problem}`);
  if (stale.length > 0) {
    console.error(
      `dist/ is stale (${stale.join(', ')}): run 'npm run bundle' and commit dist/ with the change.`,
    );
  }
  if (stale.length > 0 || problems.length > 0) process.exit(1);
  console.log(
    'dist/ matches the source; every script has its sourcemap and every bundled package its licence.',
  );
}

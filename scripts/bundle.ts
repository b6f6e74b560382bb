// Bundles the action (and the CLI) into single minified ESM files under dist/, every dependency
// inlined, each with a sourcemap beside it, and dist/licenses.txt with the licence of every bundled
// package. `node scripts/bundle.ts [outdir]`; check-dist.ts calls bundle() with a temporary folder.
import { chmod, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { ES_MODULE_BUILDS, leaveOutUnusedModules, testOnlyInputs } from './bundle-rules.ts';
import { bundledPackages, LICENSES_FILE, renderLicenses } from './licenses.ts';

export const ENTRY_POINTS = { index: 'src/index.ts', cli: 'src/cli.ts' } as const;
export type EntryName = keyof typeof ENTRY_POINTS;

/** The repository root: builds resolve from here whatever the working directory. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * Where the files are meant to live. Every build lays its files out for dist/, also when they are
 * written elsewhere, so the sourcemaps' paths (`../src/…`) come out the same in a check's temp folder.
 */
const DIST = join(ROOT, 'dist');

/**
 * Entries run as executables (the package's bin): their shebang must be the file's very first line,
 * and they are written executable (755). `npm link` and `npx` make a package's bin executable
 * themselves; written 644, the file's mode changed under git at the first link.
 */
export const EXECUTABLES: ReadonlySet<string> = new Set(['cli']);

// Some dependencies are CommonJS and call require() for Node built-ins; give the ESM bundle one.
const REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);";

export type Metafiles = Record<string, Metafile>;

/** What a build writes into dist/: the entries, their chunks and maps, the licences. */
const GENERATED = /^[\w.-]+\.js(\.map)?$|^licenses\.txt$/;

/** Builds every entry and the licence file into `outdir`; returns each entry's metafile. */
export async function bundle(outdir: string): Promise<Metafiles> {
  // Chunk names carry a hash of their content: a chunk of an older build must not stay behind.
  await mkdir(outdir, { recursive: true });
  const old = (await readdir(outdir)).filter((file) => GENERATED.test(file));
  await Promise.all(old.map((file) => rm(join(outdir, file))));
  // One build per entry: esbuild's banner is the same for every output of a build, and only the
  // executables get a shebang above it.
  const names = Object.keys(ENTRY_POINTS) as EntryName[];
  const metafiles = await Promise.all(names.map((name) => bundleEntry(outdir, name, ENTRY_POINTS[name])));
  const byName = Object.fromEntries(names.map((name, index) => [name, metafiles[index] as Metafile]));
  await writeFile(join(outdir, LICENSES_FILE), renderLicenses(bundledPackages(ROOT, byName)));
  return byName;
}

/**
 * Bundles one entry into `outdir/<name>.js`, the chunks it loads on demand (`<name>-<module>-<hash>.js`)
 * and a `.map` beside each (the CLI tests bundle the CLI fresh, like a user gets it); returns its
 * metafile.
 */
export async function bundleEntry(outdir: string, name: string, entry: string): Promise<Metafile> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { [name]: entry },
    outdir: DIST,
    write: false,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    // A dynamic import() becomes a chunk of its own, read from disk only when a run needs it: the CLI's
    // help never parses the Cloudflare client. Without splitting esbuild would inline it, parsed at
    // start-up and, wrapped for lazy evaluation, less tree-shaken.
    splitting: true,
    chunkNames: `${name}-[name]-[hash]`,
    minify: true,
    // Linked, not inline: the runtime never reads it, so it costs no start-up time. Without the
    // sources' text: the paths and lines point into src/ and node_modules/ of the same commit, and
    // the map stays a third of the size (scripts/bundle-report.ts prints both).
    sourcemap: 'linked',
    sourcesContent: false,
    // The licences go to dist/licenses.txt whole, not as the comments esbuild would keep.
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    banner: { js: EXECUTABLES.has(name) ? `#!/usr/bin/env node\n${REQUIRE_SHIM}` : REQUIRE_SHIM },
    alias: ES_MODULE_BUILDS,
    plugins: [leaveOutUnusedModules],
  });
  const testOnly = testOnlyInputs(ROOT, result.metafile);
  if (testOnly.length > 0) {
    throw new Error(
      `bundle: dist/${name}.js would carry what only tests and tooling use: ${testOnly.join(', ')}. Import it from test/ only, or make it a dependency if the action needs it.`,
    );
  }
  await mkdir(outdir, { recursive: true });
  await Promise.all(
    result.outputFiles.map((file) => writeFile(join(outdir, relative(DIST, file.path)), file.contents)),
  );
  // chmod, not writeFile's mode: the mode given on creation is cut by the umask.
  if (EXECUTABLES.has(name)) await chmod(join(outdir, `${name}.js`), 0o755);
  return result.metafile;
}

if (import.meta.main) {
  await bundle(process.argv[2] ?? DIST);
}

// What may and may not enter dist/: modules whose load-time work preview-gc does not need, and
// code that only tests and tooling use.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile, Plugin } from 'esbuild';
import { packageDirOf, packageNameOf } from './bundled-packages.ts';

/**
 * Modules the bundle may leave out whenever nothing of theirs is used (esbuild's `sideEffects: false`).
 * Each runs code when loaded, so esbuild keeps them, and everything they import, even when no
 * export of theirs is called. If preview-gc ever calls one, esbuild bundles it as before.
 */
const LOADED_BUT_UNUSED: readonly RegExp[] = [
  // ~430 KiB with undici and tunnel: only @actions/core's getIDToken (an OIDC token) uses it, and
  // preview-gc asks for none. undici's one load-time act is to install its own Agent as the dispatcher
  // of Node's global fetch; without it, fetch keeps Node's built-in one.
  /\/node_modules\/@actions\/http-client\//,
  // ~100 KiB of Octokit, built (Octokit.plugin(...).defaults(...)) when the module loads: only
  // getOctokit uses it (the action's pull request lookups); a bundle that never calls it leaves it out.
  /\/node_modules\/@actions\/github\/lib\/utils\.js$/,
];

/**
 * Packages bundled from their ES module build rather than the CommonJS one Node's `exports` condition
 * picks. esbuild wraps each CommonJS file in a function that V8 parses once when the bundle loads and
 * again when it is first called; yaml is about 80 such files, all loaded before the first request,
 * and its ES build (the same source, for bundlers) saves that second parse (bench/README.md, cold start).
 * It differs from the Node build in two places preview-gc meets: a warning goes to console.warn rather
 * than process.emitWarning, which never runs (src/config/slot-config.ts parses with `logLevel:
 * 'error'`); and a `!!binary` value is decoded with atob rather than Buffer, so a malformed one is a
 * YAML error rather than a value the schema refuses. Either way the config is refused, named.
 */
export const ES_MODULE_BUILDS: Readonly<Record<string, string>> = {
  yaml: './node_modules/yaml/browser/dist/index.js',
  // Its `main` is a UMD build whose require() calls name its files by variables esbuild cannot
  // follow (the bundle would fail on `./impl/format` at run time); its ES build is the same code.
  'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js',
};

/** Marks LOADED_BUT_UNUSED modules free of side effects, so unused means left out. */
export const leaveOutUnusedModules: Plugin = {
  name: 'leave-out-unused-modules',
  setup(build) {
    const inner = Symbol('resolving');
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === inner) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: inner,
      });
      if (resolved.errors.length > 0 || !LOADED_BUT_UNUSED.some((path) => path.test(resolved.path))) {
        return undefined;
      }
      return { ...resolved, sideEffects: false };
    });
  },
};

/**
 * Inputs that must never be in a bundle: the tests' own code and every devDependency (the twin,
 * wrangler, msw, vitest and the like are what only tests and tooling use). Returns one line per
 * offending input, empty when the bundle is clean.
 */
export function testOnlyInputs(root: string, metafile: Metafile): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
  };
  const devOnly = new Set(Object.keys(manifest.devDependencies ?? {}));
  const problems = new Set<string>();
  for (const path of Object.keys(metafile.inputs)) {
    const dir = packageDirOf(path);
    // Only a top-level copy is the devDependency; a nested one belongs to the package above it.
    if (
      dir !== undefined &&
      dir === `node_modules/${packageNameOf(dir)}` &&
      devOnly.has(packageNameOf(dir))
    ) {
      problems.add(`${packageNameOf(dir)} (a devDependency)`);
    } else if (dir === undefined && /^(test|bench)\//.test(path)) {
      problems.add(`${path} (test code)`);
    }
  }
  return [...problems].sort();
}

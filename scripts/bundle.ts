// Bundles the action (and the CLI) into single ESM files under dist/, every dependency inlined.
// `node scripts/bundle.ts [outdir]`; check-dist.ts calls bundle() with a temporary folder.
import { build } from 'esbuild';

export const ENTRY_POINTS = { index: 'src/index.ts', cli: 'src/cli.ts' } as const;

/** Entries run as executables (the package's bin): their shebang must be the file's very first line. */
const EXECUTABLES: ReadonlySet<string> = new Set(['cli']);

// Some dependencies are CommonJS and call require() for Node built-ins; give the ESM bundle one.
const REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);";

export async function bundle(outdir: string): Promise<void> {
  // One build per entry: esbuild's banner is the same for every output of a build, and only the
  // executables get a shebang above it.
  await Promise.all(Object.entries(ENTRY_POINTS).map(([name, entry]) => bundleEntry(outdir, name, entry)));
}

/** Bundles one entry into `outdir/<name>.js` (the CLI tests bundle the CLI fresh, like a user gets it). */
export async function bundleEntry(outdir: string, name: string, entry: string): Promise<void> {
  await build({
    entryPoints: { [name]: entry },
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    minify: false,
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: EXECUTABLES.has(name) ? `#!/usr/bin/env node\n${REQUIRE_SHIM}` : REQUIRE_SHIM },
  });
}

if (import.meta.main) {
  await bundle(process.argv[2] ?? 'dist');
}
